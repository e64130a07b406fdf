"""The one atomic writer: every output file appears whole or not at all.

The text goes to a temporary file in the target's folder, is flushed and fsynced, and is renamed
over the target: a crash, a SIGKILL or a full disk leaves the old file or the complete new one,
never a torn one (a harness sidecar was once left as 1,024 bytes of invalid JSON). A target that
exists and is not a regular file (``/dev/null``, a FIFO) is written through, never replaced.

A set of files that belong together (a leaderboard's CSV, page and README) lands together with
:func:`atomic_file_set`: each is written whole into a hidden staging folder beside them, then a
journal naming the set is written (the commit point), the files are renamed into place and the
journal removed. A run killed before the journal leaves the old set untouched; one killed during
the renames (microseconds, not the seconds spent rendering) leaves the journal, and the next
write into that folder finishes the renames first. Only the named files are replaced: the
folder's other files stay, so it need not be the set's alone.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from .errors import InputError

__all__ = ["atomic_file_set", "atomic_open", "atomic_path", "write_text_atomic"]


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], *, mode: int = 0o644) -> Iterator[IO[str]]:
    """A text file handle whose content replaces ``path`` when the block ends without error
    (with permissions ``mode``); on error the target is untouched and the temporary removed."""
    target = Path(path)
    if target.is_dir():
        raise InputError(f"{target}: is a folder; give a file name for the output")
    if target.exists() and not target.is_file():
        with _as_input_error(target):
            fh = open(target, "w", encoding="utf-8")
        try:
            with _writing(target):
                yield fh
            with _as_input_error(target):
                fh.flush()   # /dev/full: "No space left on device", one line
        finally:
            with contextlib.suppress(OSError):
                fh.close()
        return
    with _as_input_error(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            with _writing(target):
                yield fh
            with _as_input_error(target):
                fh.flush()
                os.fsync(fh.fileno())
        with _as_input_error(target):
            os.chmod(tmp, mode)   # mkstemp makes it 0600; outputs are meant to be read
            os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, mode: int = 0o644) -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix) for a writer that needs a file name (say
    Inspect's ``write_eval_log``); when the block ends without error the file there is fsynced and
    renamed over ``path`` (permissions ``mode``); on error it is removed and the target untouched."""
    target = Path(path)
    if target.is_dir():
        raise InputError(f"{target}: is a folder; give a file name for the output")
    with _as_input_error(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{target.suffix}",
                                    dir=target.parent)
        os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with _as_input_error(target):
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _as_input_error(target: Path) -> Iterator[None]:
    """An OS error on the output (read-only file system, a parent that is a file, a full disk)
    as one line naming the path (exit 2), not a traceback."""
    try:
        yield
    except OSError as exc:
        raise InputError(f"{target}: cannot write ({exc.strerror or exc})") from None


#: errors of writing itself (not of reading an input while writing): a full disk, a quota, an I/O error
_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS, errno.EPIPE})


@contextlib.contextmanager
def _writing(target: Path) -> Iterator[None]:
    """A write to the output that fails for want of space (or an I/O error) inside the caller's
    block: one line naming the output, not a traceback."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in _WRITE_ERRNOS:
            raise
        raise InputError(f"{target}: cannot write ({exc.strerror or exc})") from None


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_open`)."""
    with atomic_open(path) as fh:
        fh.write(text)
    return Path(path)


@contextlib.contextmanager
def atomic_file_set(folder: str | os.PathLike[str], *, tag: str) -> Iterator[Path]:
    """A staging folder: the files written into it replace their namesakes in ``folder``
    together when the block ends without error (see the module doc); on error, or a kill before
    the end, ``folder`` keeps its old files. ``tag`` names the set's hidden files
    (``.{tag}.staging-*``, ``.{tag}.commit``); writers of one folder take turns."""
    target = Path(folder)
    with _as_input_error(target):
        target.mkdir(parents=True, exist_ok=True)
    with _folder_lock(target):
        _finish_sets(target, tag)   # a set a killed run had committed; dead staging folders
        with _as_input_error(target):
            stage = target / f".{tag}.staging-{secrets.token_hex(4)}"
            stage.mkdir()
        try:
            yield stage
            names = sorted(p.name for p in stage.iterdir())
            write_text_atomic(target / f".{tag}.commit",
                              json.dumps({"staging": stage.name, "files": names}) + "\n")
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        _finish_sets(target, tag)


def _finish_sets(target: Path, tag: str) -> None:
    """Move a committed set's files into place (its journal names them), then remove the
    journal and every staging folder of ``tag`` (the caller holds the folder's lock).

    A journal is obeyed only when it names a staging folder of ours (``.{tag}.staging-`` and 8
    hex digits, a real folder directly in ``target``) and plain file names (no folder part, no
    link): anything else is refused by name and every file is left as it is."""
    journal = target / f".{tag}.commit"
    with _as_input_error(target):
        if journal.is_file():
            stage, names = _read_journal(journal, target, tag)
            for name in names:
                if (stage / name).is_file() and not (stage / name).is_symlink():
                    os.replace(stage / name, target / name)
            _fsync_folder(target)
            journal.unlink()
        for leftover in target.glob(f".{tag}.staging-*"):
            if leftover.is_dir() and not leftover.is_symlink():
                shutil.rmtree(leftover)


def _read_journal(journal: Path, target: Path, tag: str) -> tuple[Path, list[str]]:
    """The staging folder and file names ``journal`` names, checked (see :func:`_finish_sets`)."""
    try:
        data = json.loads(journal.read_text(encoding="utf-8"))
        staging, names = data["staging"], data["files"]
        if not isinstance(staging, str) or not isinstance(names, list):
            raise TypeError("'staging' must be a string and 'files' a list")
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{journal}: not a journal of benchchecker's ({exc}); "
                         "remove it if the folder's files are as they should be") from None
    stage = target / staging
    if not re.fullmatch(rf"\.{re.escape(tag)}\.staging-[0-9a-f]{{8}}", staging) or stage.is_symlink() \
            or not stage.is_dir():
        raise InputError(f"{journal}: names the staging folder {staging!r}, which is not one of ours "
                         f"inside {target}; refused, nothing moved (remove the journal if the folder's "
                         "files are as they should be)")
    for name in names:
        if not isinstance(name, str) or not _plain_name(name):
            raise InputError(f"{journal}: names the file {name!r}, which is not a plain file name "
                             f"inside {target}; refused, nothing moved (remove the journal if the "
                             "folder's files are as they should be)")
    return stage, names


def _plain_name(name: str) -> bool:
    return (bool(name) and name not in (".", "..") and "/" not in name and os.sep not in name
            and "\0" not in name and (os.altsep is None or os.altsep not in name))


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        yield
        return
    with _as_input_error(folder):
        fd = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:   # a file system without locks (some NFS): writers are not serialised
            pass
        yield
    finally:
        os.close(fd)   # releases the lock
