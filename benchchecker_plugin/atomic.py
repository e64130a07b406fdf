"""The one atomic writer: every output file appears whole or not at all.

The text goes to a temporary file in the target's folder, is flushed and fsynced, and is renamed
over the target: a crash, a SIGKILL or a full disk leaves the old file or the complete new one,
never a torn one (a harness sidecar was once left as 1,024 bytes of invalid JSON). A target that
exists and is not a regular file (``/dev/null``, a FIFO) is written through, never replaced.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator

__all__ = ["atomic_open", "write_text_atomic"]


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], *, mode: int = 0o644) -> Iterator[IO[str]]:
    """A text file handle whose content replaces ``path`` when the block ends without error
    (with permissions ``mode``); on error the target is untouched and the temporary removed."""
    target = Path(path)
    if target.exists() and not target.is_file() and not target.is_dir():
        with open(target, "w", encoding="utf-8") as fh:
            yield fh
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)   # mkstemp makes it 0600; outputs are meant to be read
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_open`)."""
    with atomic_open(path) as fh:
        fh.write(text)
    return Path(path)
