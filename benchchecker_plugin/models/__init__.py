"""Model access: the only place that talks to a model.

``get_model(spec, ...)`` turns a spec string (``hf/...``, ``openai-compatible/...``,
``inspect/<provider>/...``) into a :class:`TextModel` (local ``hf/`` models are also
:class:`LogprobModel`\\ s), optionally behind the SQLite response cache or as a dry run.
Backends are imported when first used; importing this package loads neither torch nor Inspect.
"""

from .base import Completion, GenerationParams, LogprobModel, TextModel, TokenScores
from .cache import CachedLogprobModel, CachedModel, CacheStats, ResponseCache, default_cache_dir, with_cache
from .dry_run import DRY_RUN_ERROR, DryRunModel
from .executor import Executor, ItemResult, LocalExecutor
from .gguf import ensure_exported, export_gguf_folder, shipped_gguf_path
from .names import canonical_model_name, lm_eval_model_name
from .spec import ALIASES, DEFAULT_MODEL_SPEC, PREFIXES, Backend, ModelSpec, get_model, parse_spec

__all__ = [
    "ALIASES",
    "Backend",
    "CacheStats",
    "CachedLogprobModel",
    "CachedModel",
    "Completion",
    "DEFAULT_MODEL_SPEC",
    "DRY_RUN_ERROR",
    "DryRunModel",
    "Executor",
    "GenerationParams",
    "ItemResult",
    "LocalExecutor",
    "LogprobModel",
    "ModelSpec",
    "PREFIXES",
    "ResponseCache",
    "TextModel",
    "TokenScores",
    "canonical_model_name",
    "default_cache_dir",
    "ensure_exported",
    "export_gguf_folder",
    "get_model",
    "lm_eval_model_name",
    "parse_spec",
    "shipped_gguf_path",
    "with_cache",
]
