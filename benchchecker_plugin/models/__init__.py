"""Model access: the only place that talks to a model.

``get_model(spec, ...)`` turns a spec string (``hf/...``, ``openai-compatible/...``,
``inspect/<provider>/...``) into a :class:`TextModel` (local ``hf/`` models are also
:class:`LogprobModel`\\ s), optionally behind the SQLite response cache or as a dry run.
Backends are imported when first used; importing this package loads neither torch nor Inspect.
"""

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names
from ._aliases import ALIASES, DEFAULT_MODEL_SPEC
from ._backends import BACKENDS, PREFIXES, Backend, ModelSpec, model_identity, parse_spec
from ._base import Completion, GenerationParams, LogprobModel, TextModel, TokenScores
from ._cache import (
    DB_NAME,
    CachedLogprobModel,
    CachedModel,
    CacheStats,
    ResponseCache,
    completion_key,
    default_cache_dir,
    with_cache,
)
from ._dry_run import DRY_RUN_ERROR, DryRunModel
from ._gguf import EXPORT_MARKER, ensure_exported, export_gguf_folder, shipped_gguf_path
from ._inspect_api import InspectModel, greedy_fields
from ._names import canonical_model_name, lm_eval_model_name
from ._options import ModelOptions, set_threads, torch_threads
from ._spec import get_model
from ._tiny_gpt2 import adamw_steps, tiny_gpt2, train_tokenizer

if TYPE_CHECKING:
    from ._hf import HFModel

#: Names whose module imports torch: loaded on first use (importing this package loads no torch)
_LAZY = {"HFModel": "._hf"}

__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "ALIASES",
    "BACKENDS",
    "Backend",
    "CacheStats",
    "CachedLogprobModel",
    "CachedModel",
    "Completion",
    "DB_NAME",
    "DEFAULT_MODEL_SPEC",
    "DRY_RUN_ERROR",
    "DryRunModel",
    "EXPORT_MARKER",
    "GenerationParams",
    "HFModel",
    "InspectModel",
    "LogprobModel",
    "ModelOptions",
    "ModelSpec",
    "PREFIXES",
    "ResponseCache",
    "TextModel",
    "TokenScores",
    "adamw_steps",
    "canonical_model_name",
    "completion_key",
    "default_cache_dir",
    "ensure_exported",
    "export_gguf_folder",
    "get_model",
    "greedy_fields",
    "lm_eval_model_name",
    "model_identity",
    "parse_spec",
    "set_threads",
    "shipped_gguf_path",
    "tiny_gpt2",
    "torch_threads",
    "train_tokenizer",
    "with_cache",
]
