"""The one atomic writer: every output file appears whole or not at all.

The text goes to a temporary file in the target's folder, is flushed and fsynced, and is renamed
over the target: a crash, a SIGKILL or a full disk leaves the old file or the complete new one,
never a torn one (a harness sidecar was once left as 1,024 bytes of invalid JSON). A target that
exists and is not a regular file (``/dev/null``, a FIFO) is written through, never replaced.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from .errors import InputError

__all__ = ["atomic_open", "write_text_atomic"]


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
