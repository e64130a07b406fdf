"""``benchchecker cache``: what the response cache holds, and emptying it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import click

from ..errors import InputError
from ..models import DB_NAME, EXPORT_MARKER, ResponseCache, default_cache_dir
from ._options import cache_dir_option


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
    folder = _cache_folder(cache_dir)
    models = folder / "models"
    if not (folder / DB_NAME).is_file():
        what = "empty: no model call cached yet" if folder == default_cache_dir() else "no cache there"
        click.echo(f"cache: {folder / DB_NAME} ({what})")
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
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation (needed without a terminal).")
def clear(cache_dir: Path | None, errors_only: bool, with_models: bool, yes: bool) -> None:
    """Delete cached responses (all, or only errors with --errors-only).

    Asks for confirmation unless --yes is given. The next run asks the model again for every
    deleted entry.

    \b
    Example:
      benchchecker cache clear --yes
    """
    if not yes:
        try:
            sure = click.confirm("Delete the cached model responses?")
        except click.Abort:   # end of input: nobody to answer
            raise click.UsageError("cache clear deletes cached answers: give --yes (nothing answered "
                                   "the question)") from None
        if not sure:
            raise click.Abort()
    folder = _cache_folder(cache_dir)
    models = folder / "models"
    exports = _exports(models) if with_models else []
    if (folder / DB_NAME).is_file():
        store = ResponseCache(folder)
        try:
            n = store.clear(errors_only=errors_only)
        finally:
            store.close()
        click.echo(f"deleted {n} {'error ' if errors_only else ''}entries from {store.path}")
    else:
        click.echo(f"cache: {folder / DB_NAME} (no cache there: nothing to delete)")
    for export in exports:
        shutil.rmtree(export)
    if with_models and models.is_dir() and not models.is_symlink() and not any(models.iterdir()):
        models.rmdir()
    if exports:
        click.echo(f"deleted {len(exports)} exported model(s) in {models}")


def _cache_folder(cache_dir: Path | None) -> Path:
    """The cache folder: ``--cache-dir`` or the default; a path that exists and is not a folder
    is a one-line error (it was reported as an empty cache)."""
    folder = cache_dir if cache_dir is not None else default_cache_dir()
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--cache-dir {folder}: is a file, not a cache folder")
    for above in folder.parents:   # a path below a regular file: it cannot exist at all
        if above.exists():
            if not above.is_dir():
                raise InputError(f"--cache-dir {folder}: cannot be a folder: {above} is a file")
            break
    db = folder / DB_NAME
    if db.is_dir() or (os.path.lexists(db) and not db.is_file()):
        kind = "a folder" if db.is_dir() else "not a regular file"
        raise InputError(f"cache file {db}: is {kind}, not a cache file (move it away; nothing was "
                         "read or deleted)")
    return folder


def _exports(models: Path) -> list[Path]:
    """The exported model folders under ``models`` (each with benchchecker's export marker);
    ``models`` itself must be a real folder (a link could lead anywhere) holding nothing else."""
    if not os.path.lexists(models):
        return []
    if models.is_symlink() or not models.is_dir():
        raise InputError(f"{models}: not a folder of exported models (a link or a file); left as it is")
    entries = sorted(models.iterdir())
    others = [p.name for p in entries if p.is_symlink() or not p.is_dir() or not (p / EXPORT_MARKER).is_file()]
    if others:
        raise InputError(f"{models}: holds {', '.join(others[:3])}, which benchchecker did not export; "
                         "nothing deleted (remove them yourself)")
    return entries
