"""A state folder: each finished unit of work kept in one file named by a digest of its inputs.

A unit's key (:func:`digest`) digests everything its result depends on (for a corpus shard its
size, time and a sample of its bytes, :func:`file_identity`; for a Stage II task its instances,
cutoffs, settings and the repository's refs), so a changed input is computed again, never confused
with the old one. Files are written atomically (:mod:`..atomic`): a run killed at any point leaves
whole files or none. A file that cannot be read is computed again, with a warning; a folder on a
full disk is one line naming the option (the units kept before stay whole).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ..atomic import atomic_path
from ..errors import InputError

T = TypeVar("T")
#: bytes read at each end of a file for :func:`file_identity`
SAMPLE = 1 << 16
#: what a state file that cannot be read raises while it is read (then computed again)
UNREADABLE = (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile)


def digest(*parts: Any) -> str:
    """The SHA-256 (hex) of ``parts`` as JSON (plain values: strings, numbers, lists, dicts)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8")).hexdigest()


def file_identity(path: str | os.PathLike[str]) -> list[object] | None:
    """Size, modification time (ns) and a digest of the first and last 64 KiB of a regular file
    (an edit in place that keeps the size, and even the time, still changes it); ``None`` for
    anything else (a FIFO or a device is never opened) or a file that cannot be read."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            h.update(fh.read(SAMPLE))
            if st.st_size > SAMPLE:
                fh.seek(max(SAMPLE, st.st_size - SAMPLE))
                h.update(fh.read(SAMPLE))
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, h.hexdigest()]


class StateStore:
    """The files of one state folder (``option`` names it in messages: ``--state``)."""

    def __init__(self, folder: str | os.PathLike[str], *, suffix: str = ".json",
                 option: str = "--state") -> None:
        self.folder = Path(folder)
        self.suffix = suffix
        self.option = option

    def path(self, key: str) -> Path:
        return self.folder / f"{key[:40]}{self.suffix}"

    def load(self, key: str, read: Callable[[Path], T], *, what: str, again: str = "computing it again") -> T | None:
        """``read(path)`` of the unit kept under ``key``, or ``None`` when there is none or it
        cannot be read (``read`` raises one of :data:`UNREADABLE`: warned, naming ``what``)."""
        path = self.path(key)
        if not path.is_file():
            return None
        try:
            return read(path)
        except UNREADABLE as exc:
            warnings.warn(f"{path}: unreadable state of {what} ({exc}); {again}", RuntimeWarning,
                          stacklevel=2)
            return None

    def save(self, key: str, write: Callable[[Path], None], *, what: str,
             kept: str = "the units kept before are whole") -> None:
        """``write(tmp)`` then ``tmp`` renamed to the unit's file; a folder that takes no more
        bytes is an :class:`InputError` naming the option and ``what``."""
        path = self.path(key)
        try:
            with atomic_path(path) as tmp:
                write(tmp)
        except (OSError, InputError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else \
                str(exc).rsplit("(", 1)[-1].rstrip(")") if isinstance(exc, InputError) else str(exc)
            raise InputError(f"{self.option} {self.folder}: cannot keep {what} ({why}); {kept}") from None


def write_json(path: Path, key: str, payload: dict[str, Any]) -> None:
    """``payload`` with its ``key`` as one JSON file (for :meth:`StateStore.save`)."""
    with open(path, "w", encoding="utf-8") as fh:   # the temporary of StateStore.save's atomic_path
        json.dump({"key": key, **payload}, fh, ensure_ascii=False, allow_nan=False)


def read_json(path: Path, key: str) -> dict[str, Any]:
    """The payload :func:`write_json` kept under ``key`` (``ValueError``: another unit's, or not one)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("key") != key:
        raise ValueError(f"{path}: holds another unit's state")
    return data
