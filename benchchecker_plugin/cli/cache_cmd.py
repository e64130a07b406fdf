"""``benchchecker cache``: what the response cache holds, and emptying it."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from ..models.cache import DB_NAME, ResponseCache, default_cache_dir
from .options import cache_dir_option

__all__ = ["cache"]


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover


def _dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else 0


@click.group()
def cache() -> None:
    """Inspect or empty the model response cache.

    Every model answer (and every token-score computation of a local model) is stored in
    ``responses.sqlite3`` under the cache folder, keyed by model + prompt + generation parameters,
    so an interrupted run resumes without asking the model again. Failed calls are stored as
    errors and retried on the next run. Exported local models live in models/ beside it.

    \b
    Examples:
      benchchecker cache stats
      benchchecker cache stats --cache-dir /data/bc-cache
      benchchecker cache clear --errors-only --yes
    """


@cache.command()
@cache_dir_option
def stats(cache_dir: Path | None) -> None:
    """Print entry counts (answers, errors, token scores), size, and entries per model.

    \b
    Example:
      benchchecker cache stats --cache-dir ~/.cache/benchchecker
    """
    folder = cache_dir if cache_dir is not None else default_cache_dir()
    models = folder / "models"
    if not (folder / DB_NAME).is_file():
        click.echo(f"cache: {folder / DB_NAME} (empty: no model call cached yet)")
        if models.is_dir():
            click.echo(f"exported models: {_human(_dir_size(models))} in {models}")
        return
    store = ResponseCache(folder)
    try:
        s = store.stats()
    finally:
        store.close()
    click.echo(f"cache: {s.path}")
    click.echo(f"completions: {s.entries} ({s.entries - s.errors} answers, {s.errors} errors, "
               f"retried on the next run)")
    click.echo(f"token scores: {s.token_score_entries}")
    click.echo(f"size: {_human(s.size_bytes)}")
    if models.is_dir():
        click.echo(f"exported models: {_human(_dir_size(models))} in {models}")
    for identity, n, errors in s.by_model:
        click.echo(f"  {identity}: {n} entries, {errors} errors")


@cache.command()
@cache_dir_option
@click.option("--errors-only", is_flag=True, help="Delete only the stored errors (they are retried anyway).")
@click.option("--models", "with_models", is_flag=True,
              help="Also delete exported local models (models/; re-exported on next use).")
@click.confirmation_option("--yes", "-y", prompt="Delete the cached model responses?",
                           help="Do not ask for confirmation.")
def clear(cache_dir: Path | None, errors_only: bool, with_models: bool) -> None:
    """Delete cached responses (all, or only errors with --errors-only).

    Asks for confirmation unless --yes is given. The next run asks the model again for every
    deleted entry.

    \b
    Example:
      benchchecker cache clear --yes
    """
    folder = cache_dir if cache_dir is not None else default_cache_dir()
    store = ResponseCache(folder)
    try:
        n = store.clear(errors_only=errors_only)
    finally:
        store.close()
    click.echo(f"deleted {n} {'error ' if errors_only else ''}entries from {store.path}")
    models = folder / "models"
    if with_models and models.is_dir():
        shutil.rmtree(models)
        click.echo(f"deleted exported models in {models}")
