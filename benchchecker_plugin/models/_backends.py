"""The model backends (``hf/``, ``openai-compatible/``, ``inspect/``): one registry entry each,
with the options it takes, how it names its outputs in the cache (identity) and how it is built.

:func:`~.spec.get_model` (with a cache, a dry run or an executor) and the workers of a remote
executor (:mod:`._remote`) build models through :func:`build_model`; neither imports the other.
Each backend's module (transformers, httpx, inspect_ai) is imported only when it is built.
"""

from __future__ import annotations

import enum
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelSpecError
from ._aliases import ALIASES, DEFAULT_MODEL_SPEC
from ._base import TextModel
from ._cache import default_cache_dir


class Backend(enum.Enum):
    """Which layer answers a spec (the value is the spec prefix)."""

    HF = "hf"
    OPENAI_COMPATIBLE = "openai-compatible"
    INSPECT = "inspect"


PREFIXES = tuple(f"{b.value}/" for b in Backend)

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


#: options every backend accepts (used where they apply)
COMMON_OPTIONS = frozenset({"batch_size", "max_concurrency"})


@dataclass(frozen=True)
class BackendEntry:
    """One backend: the ``options`` it takes (besides :data:`COMMON_OPTIONS`), its cache
    ``identity(parsed, opts)``, how to ``build(parsed, opts)`` it, and ``resolve(parsed, opts)``:
    the options a remote worker gets (the API key never travels)."""

    options: frozenset[str]
    identity: Callable[[ModelSpec, dict[str, Any]], str]
    build: Callable[[ModelSpec, dict[str, Any]], TextModel]
    resolve: Callable[[ModelSpec, dict[str, Any]], dict[str, Any]]


def _without_key(parsed: ModelSpec, opts: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in opts.items() if k != "api_key"}


def _hf_identity(parsed: ModelSpec, opts: dict[str, Any]) -> str:
    from ._hf import HFModel

    return HFModel.identity_for(parsed.raw, chat=bool(opts.get("chat", False)))


def _openai_identity(parsed: ModelSpec, opts: dict[str, Any]) -> str:
    from ._openai_compatible import OpenAICompatibleModel

    return OpenAICompatibleModel.identity_for(parsed.raw, base_url=opts.get("base_url"),
                                              endpoint=opts.get("endpoint", "completions"))


def _inspect_identity(parsed: ModelSpec, opts: dict[str, Any]) -> str:
    from ._inspect_api import InspectModel

    return InspectModel.identity_for(parsed.raw, base_url=opts.get("base_url"))


def _openai_resolve(parsed: ModelSpec, opts: dict[str, Any]) -> dict[str, Any]:
    """A worker is sent the server this process resolved (the cache identity names it)."""
    from ._openai_compatible import resolve_base_url

    return {**_without_key(parsed, opts), "base_url": resolve_base_url(parsed.raw, opts.get("base_url"))}


def _build_openai(parsed: ModelSpec, opts: dict[str, Any]) -> TextModel:
    from ._openai_compatible import OpenAICompatibleModel

    opts.pop("batch_size", None)  # every command passes it; requests are sent one by one
    return OpenAICompatibleModel(parsed.raw, parsed.name, **opts)


def _build_inspect(parsed: ModelSpec, opts: dict[str, Any]) -> TextModel:
    from ._inspect_api import InspectModel

    model_args = dict(opts.pop("model_args", {}) or {})
    opts.pop("batch_size", None)
    return InspectModel(parsed.raw, parsed.name, **opts, **model_args)


def _build_hf(parsed: ModelSpec, opts: dict[str, Any]) -> TextModel:
    from ._gguf import ensure_exported, shipped_gguf_path
    from ._hf import HFModel

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


BACKENDS: dict[Backend, BackendEntry] = {
    Backend.HF: BackendEntry(frozenset({"device", "dtype", "chat", "export_dir", "prefill_cache_mb",
                                        "prefix_cache_mb"}),
                             _hf_identity, _build_hf, _without_key),
    Backend.OPENAI_COMPATIBLE: BackendEntry(
        frozenset({"base_url", "api_key", "endpoint", "max_retries", "timeout"}),
        _openai_identity, _build_openai, _openai_resolve),
    Backend.INSPECT: BackendEntry(frozenset({"base_url", "api_key", "max_retries", "timeout", "model_args"}),
                                  _inspect_identity, _build_inspect, _without_key),
}


def check_options(parsed: ModelSpec, opts: dict[str, Any]) -> None:
    """:class:`ModelSpecError` naming the options that do not apply to ``parsed``'s backend."""
    allowed = BACKENDS[parsed.backend].options | COMMON_OPTIONS
    unknown = set(opts) - allowed
    if unknown:
        raise ModelSpecError(f"model spec {parsed.raw!r}: option(s) {', '.join(sorted(unknown))} do not apply to "
                             f"{parsed.backend.value}/ models; valid: {', '.join(sorted(allowed))}")


def model_identity(parsed: ModelSpec, opts: dict[str, Any]) -> str:
    """The cache identity of ``parsed`` with ``opts``."""
    return BACKENDS[parsed.backend].identity(parsed, opts)


def worker_options(parsed: ModelSpec, opts: dict[str, Any]) -> dict[str, Any]:
    """The options a remote worker builds ``parsed`` with (no API key)."""
    return BACKENDS[parsed.backend].resolve(parsed, opts)


def build_model(spec: str, **options: Any) -> TextModel:
    """The model of ``spec`` itself: no cache, no executor (``None`` options are ignored)."""
    parsed = parse_spec(spec)
    opts = {k: v for k, v in options.items() if v is not None}
    check_options(parsed, opts)
    return BACKENDS[parsed.backend].build(parsed, opts)
