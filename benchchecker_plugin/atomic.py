"""The one atomic writer: every output file appears whole or not at all.

The text goes to a temporary file in the target's folder, is flushed and fsynced, and is renamed
over the target: a crash, a SIGKILL or a full disk leaves the old file or the complete new one,
never a torn one (a harness sidecar was once left as 1,024 bytes of invalid JSON). A target that
exists and is not a regular file (``/dev/null``, a FIFO) is written through, never replaced.
A full disk while writing, flushing or closing is one line naming the output, never a traceback.
The temporary is ``.NAME.PID-xxxxxxxx.tmp``, locked while written: a run killed mid-write leaves
it behind, and the next write of ``NAME`` removes it (only temporaries of that pattern, whose
writer is gone and which no process holds).

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
import stat
import tempfile
import time
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
        _remove_stale(target)
        fd, tmp = tempfile.mkstemp(prefix=_tmp_prefix(target), suffix=".tmp", dir=target.parent)
    fh = os.fdopen(fd, "w", encoding="utf-8")
    try:
        _hold(fh.fileno())
        with _writing(target):
            yield fh
        with _as_input_error(target):
            fh.flush()
            os.fsync(fh.fileno())
            fh.close()
            os.chmod(tmp, mode)   # mkstemp makes it 0600; outputs are meant to be read
            os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            fh.close()   # on a full disk the close's flush fails again: the first error is the one told
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
        _remove_stale(target)
        fd, name = tempfile.mkstemp(prefix=_tmp_prefix(target), suffix=f".tmp{target.suffix}",
                                    dir=target.parent)
    tmp = Path(name)
    try:
        _hold(fd)   # held while the caller writes: no other run takes it for a stale one
        with _writing(target):   # the caller's writer on a full disk: one line naming the output
            yield tmp
        with _as_input_error(target):
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)


def _tmp_prefix(target: Path) -> str:
    return f".{target.name}.{os.getpid()}-"


#: a temporary of ours: ``.NAME.`` then the writer's pid (absent in older releases), 8 random
#: characters (mkstemp's), ``.tmp`` and, for :func:`atomic_path`, the target's suffix
_TMP_REST = re.compile(r"(?:(\d+)-)?[a-z0-9_]{8}\.tmp(?:\.[A-Za-z0-9_-]+)?")
#: a temporary younger than this is never taken for stale (its writer may not hold it yet)
_STALE_MIN_AGE_S = 5.0
#: a temporary without a pid (older releases) is stale after this long
_STALE_UNNAMED_AGE_S = 86400.0


def _hold(fd: int) -> None:
    """Lock the open temporary ``fd`` for as long as it is open (see :func:`_remove_stale`)."""
    with contextlib.suppress(ImportError, OSError):   # no locks (not POSIX, some NFS): age and pid only
        import fcntl
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:   # EPERM: it exists, another user's
        return True
    return True


def _remove_stale(target: Path) -> None:
    """Remove the temporaries of ``target`` a killed run left (``.NAME.PID-xxxxxxxx.tmp``): only
    names of our pattern, regular files, older than a few seconds, whose writer's pid is gone
    (or, without a pid, a day old), and that no process holds locked."""
    prefix = f".{target.name}."
    try:
        entries = [e for e in os.scandir(target.parent) if e.name.startswith(prefix)]
    except OSError:
        return
    now = time.time()
    for entry in entries:
        m = _TMP_REST.fullmatch(entry.name[len(prefix):])
        if m is None:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        age = now - st.st_mtime
        if not stat.S_ISREG(st.st_mode) or age < _STALE_MIN_AGE_S:
            continue
        if m.group(1) is not None and _pid_alive(int(m.group(1))):
            continue
        if m.group(1) is None and age < _STALE_UNNAMED_AGE_S:
            continue
        _unlink_unheld(Path(entry.path))


def _unlink_unheld(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    try:
        try:
            import fcntl
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:   # pragma: no cover - not POSIX
            pass
        except OSError:      # held by a live writer
            return
        path.unlink(missing_ok=True)
    finally:
        os.close(fd)


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
