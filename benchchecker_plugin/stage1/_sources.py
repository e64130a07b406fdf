"""The source files Stage I mines: a plain folder, or a git repository at a cutoff date.

Stage I works on any folder of code (the controlled membership evaluation uses installed packages'
source trees, which are not git repositories). When a ``cutoff`` is given and the folder is a git
repository, the files are read from the snapshot at that date through ``benchchecker_plugin.repos``
(the only place that talks to git).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

LANGUAGE_EXTENSIONS: dict[str, tuple[str, ...]] = {"python": (".py",), "java": (".java",)}
_SKIP_DIRS = {".git", "__pycache__", ".tox", ".venv", "venv", "node_modules", "build", "dist"}


@dataclass(frozen=True)
class SourceFile:
    """One source file: ``path`` relative to the repository root, its decoded ``text``."""

    path: str
    text: str

    @property
    def n_lines(self) -> int:
        return self.text.count("\n") + (0 if self.text.endswith("\n") or not self.text else 1)


def read_sources(root: str | os.PathLike[str], *, language: str = "python", cutoff: str | None = None,
                 max_file_bytes: int = 200_000) -> list[SourceFile]:
    """Read every source file of ``language`` under ``root`` (sorted by path).

    Files larger than ``max_file_bytes`` (generated code, vendored data) and files that are not UTF-8
    are skipped, and so is anything that is not a regular file of the folder (a link, which may
    lead outside it, a FIFO, a device): nothing outside ``root`` is read. With ``cutoff`` (``YYYY-MM-DD``) on a git repository, files come from the snapshot
    at that date.
    """
    if language not in LANGUAGE_EXTENSIONS:
        raise InputError(f"--language {language!r} is not supported (choose from "
                         f"{', '.join(sorted(LANGUAGE_EXTENSIONS))})")
    base = Path(root)
    if not base.is_dir():
        raise InputError(f"repository path {str(base)!r} is not a folder")
    if cutoff is not None and (base / ".git").exists():
        return _from_snapshot(base, cutoff, language, max_file_bytes)
    exts = LANGUAGE_EXTENSIONS[language]
    files: list[SourceFile] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if not name.endswith(exts):
                continue
            path = Path(dirpath) / name
            data = _read_regular(path, max_file_bytes)
            if data is None:
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            files.append(SourceFile(path.relative_to(base).as_posix(), text))
    if not files and (base / ".git").exists() and not _has_worktree(base):
        raise InputError(f"{base}: a git clone without a checkout (what `benchchecker repos "
                         "fetch` makes): give --cutoff DATE to read it as it was then")
    return sorted(files, key=lambda f: f.path)


def _read_regular(path: Path, max_bytes: int) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of at most ``max_bytes``, else ``None``: a
    link (it may lead out of the folder: its text would go to the model), a FIFO (reading it
    blocks), a device (``/dev/zero`` never ends) or a socket is skipped, and never followed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:   # a link (ELOOP under O_NOFOLLOW), or unreadable
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(max_bytes + 1)
        return data if len(data) <= max_bytes else None
    finally:
        os.close(fd)

def _has_worktree(base: Path) -> bool:
    """Whether ``base`` holds any file besides its ``.git``."""
    return any(p.name != ".git" for p in base.iterdir())


def _from_snapshot(base: Path, cutoff: str, language: str, max_file_bytes: int) -> list[SourceFile]:
    from ..repos import Snapshot

    snap = Snapshot.at(base, cutoff)
    exts = LANGUAGE_EXTENSIONS[language]
    files = []
    try:
        for path in snap.files():
            if not path.endswith(exts) or any(part in _SKIP_DIRS for part in path.split("/")[:-1]):
                continue
            data = snap.read_bytes(path)
            if len(data) > max_file_bytes:
                continue
            try:
                files.append(SourceFile(path, data.decode("utf-8")))
            except UnicodeDecodeError:
                continue
    finally:
        snap.close()
    return files
