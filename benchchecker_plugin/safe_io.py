"""Opening files we did not create without blocking on them.

A path the user gives where a file is expected (a ``report.json``, ``results.json``, a task YAML,
a flags file, ``leaderboards.json``, a tiers file, ...) may be a FIFO (``open`` waits for a
writer forever), a device (``/dev/zero`` never ends) or a socket. :func:`open_input` opens it
with ``O_NONBLOCK`` (so opening a FIFO returns at once), checks on the open descriptor that it is
a regular file (no race between a check and the open) and only then reads it, blocking as usual.
Anything else is a :class:`~benchchecker_plugin.errors.DataError` naming the path and what it is;
a folder is :class:`IsADirectoryError`, as :meth:`pathlib.Path.read_text` raises.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from .errors import DataError

__all__ = ["file_kind", "is_input_file", "open_input", "read_input_bytes", "read_input_text"]

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words (``a FIFO (named pipe)``, ``a folder``, ``a regular file``)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _refuse(path: str | os.PathLike[str], mode: int) -> DataError:
    return DataError(f"{path}: is {file_kind(mode)}, not a regular file; refused (reading it "
                     "could wait forever or never end)")


def open_input(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading in binary, refused unless it is a regular file.

    Raises :class:`DataError` for a FIFO, device or socket, :class:`IsADirectoryError` for a
    folder and the usual :class:`OSError` (``FileNotFoundError``, ``PermissionError``) otherwise.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:   # a socket, or a FIFO opened without a reader
            raise DataError(f"{path}: is {_kind_of(path)}, not a regular file; refused") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            raise _refuse(path, mode)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _kind_of(path: str | os.PathLike[str]) -> str:
    try:
        return file_kind(os.stat(path).st_mode)
    except OSError:
        return "not a regular file"


def read_input_bytes(path: str | os.PathLike[str], *, limit: int | None = None) -> bytes:
    """The bytes of ``path`` (see :func:`open_input`); more than ``limit`` bytes is a
    :class:`DataError` naming the file."""
    with open_input(path) as fh:
        data = fh.read() if limit is None else fh.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise DataError(f"{path}: larger than {limit} bytes; refused")
    return data


def read_input_text(path: str | os.PathLike[str], encoding: str = "utf-8",
                    errors: str = "strict") -> str:
    """The text of ``path``, as :meth:`pathlib.Path.read_text` gives it (universal newlines;
    :class:`UnicodeDecodeError` on a bad byte), but refused unless it is a regular file."""
    text = read_input_bytes(path).decode(encoding, errors)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def is_input_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names something that is not a folder (a regular file, or a FIFO or device
    :func:`open_input` will refuse by name): what a reader should open rather than call
    "no such file"."""
    try:
        return not stat.S_ISDIR(Path(path).stat().st_mode)
    except OSError:
        return False
