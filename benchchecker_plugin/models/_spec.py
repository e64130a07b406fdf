"""Model spec strings (``hf/...``, ``openai-compatible/...``, ``inspect/<provider>/...``) → models.

::

    get_model("hf/smollm2-135m")                      # offline default: SmolLM2-135M-Instruct (GGUF)
    get_model("hf//data/models/my-llama")             # a local folder (absolute path after "hf/")
    get_model("hf/models/q.gguf")                     # a local GGUF file
    get_model("hf/HuggingFaceTB/SmolLM2-135M")        # a hub name (network or HF cache)
    get_model("hf/org/repo:model.Q4_K_M.gguf")        # a GGUF file in a hub repo
    get_model("openai-compatible/llama", base_url="http://127.0.0.1:8000/v1")
    get_model("inspect/anthropic/claude-sonnet-4-5")  # anything Inspect's model layer supports

``cache_dir=`` (or ``use_cache=True`` for the default folder) wraps the model in the SQLite response
cache; ``dry_run=True`` gives a :class:`DryRunModel` that loads nothing and counts calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..execution import Executor
from ._backends import (
    BACKENDS,
    Backend,
    check_options,
    model_identity,
    parse_spec,
    worker_options,
)
from ._base import TextModel
from ._cache import ResponseCache, with_cache
from ._dry_run import DryRunModel


def get_model(spec: str, *, cache_dir: str | Path | None = None, use_cache: bool | None = None,
              dry_run: bool = False, executor: Executor | None = None, **options: Any) -> TextModel:
    """The model of ``spec``; see the module docstring for spec forms.

    Options (``None`` values are ignored): ``batch_size`` and ``max_concurrency`` for every
    backend; ``hf``: ``device`` ("cpu", "cuda", "auto"), ``dtype``, ``chat``, ``prefill_cache_mb`` (memory
    for reusing a batch's prompt KV cache, default 256; 0 turns it off), ``prefix_cache_mb`` (memory
    for the KV caches of prompt beginnings shared by several prompts, default 256; 0 turns
    shared-prefix reading off), ``export_dir``
    (where the shipped GGUF is exported once as a plain folder, default ``<cache dir>/models``;
    ``False`` loads the GGUF directly every time); ``openai-compatible``: ``base_url``,
    ``api_key``, ``endpoint`` ("completions" or "chat"), ``max_retries``, ``timeout``;
    ``inspect``: ``base_url``, ``api_key``, ``max_retries``, ``timeout``, ``model_args`` (dict
    passed to the Inspect provider).

    The cache is used when ``cache_dir`` is given (and ``use_cache`` is not ``False``) or when
    ``use_cache=True`` (default folder :func:`default_cache_dir`).

    With an ``executor`` (a Ray cluster: ``--executor ray``) the model is built on its workers
    and asked from here (:mod:`._remote`); the cache stays in this process, under the same identity.
    """
    parsed = parse_spec(spec)
    opts = {k: v for k, v in options.items() if v is not None}
    check_options(parsed, opts)
    if use_cache is None:
        use_cache = cache_dir is not None
    cache = ResponseCache(cache_dir) if use_cache else None
    if dry_run:
        return DryRunModel(parsed.raw, model_identity(parsed, opts), cache)
    if executor is not None:
        from ._remote import ModelRecipe, remote_model

        # no key travels: a worker reads it from its own environment; the server is the one
        # this process resolved (the cache identity names it)
        shipped = worker_options(parsed, opts)
        model: TextModel = remote_model(
            ModelRecipe(parsed.raw, tuple(sorted(shipped.items()))), executor, identity=model_identity(parsed, opts),
            local=parsed.backend is Backend.HF, max_concurrency=int(opts.get("max_concurrency", 8)),
            batch_size=int(opts.get("batch_size", 8)))
    else:
        model = BACKENDS[parsed.backend].build(parsed, opts)
    return with_cache(model, cache) if cache is not None else model
