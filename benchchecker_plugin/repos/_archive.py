"""Extracting a tar archive we did not write (a ``git archive`` of a cloned repository, a
package's sdist) so that nothing lands outside the destination folder.

Python 3.11.4+ has :func:`tarfile.data_filter` (PEP 706) and we use it. Python 3.11.0-3.11.3
(Debian 12's ``python3`` is 3.11.2) lacks it; there :func:`extract_tar` applies the same rules
itself, one member at a time, resolving each path against what is already on disk so that a link
extracted earlier cannot carry a later member out: a leading ``/`` dropped, no ``..``, no device or
FIFO members, no symbolic or hard link pointing outside, no setuid/setgid/sticky bits and no
group/other write permission.

A package's sdist is extracted by :func:`extract_sdist` under :class:`ExtractLimits`: the number
of members and the bytes they unpack to are counted before each member is written (a tar header
and a zip directory entry give the size; zipfile stops reading a member at its declared size), so a
gzip or zip bomb is refused after at most one cap's worth of output, never extracted.
"""

from __future__ import annotations

import os
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import DataError, InputError

#: below this many unpacked bytes the ratio cap does not apply (a tiny sdist of short files)
RATIO_FLOOR = 1 << 20


@dataclass(frozen=True)
class ExtractLimits:
    """Caps on what one archive may unpack to: ``max_bytes`` in all, ``max_ratio`` times its own
    size (beyond :data:`RATIO_FLOOR`), ``max_members`` entries. The defaults are far above any
    real sdist (django's unpacks to ~40 MiB in ~7,000 files, about 5 times its size)."""

    max_bytes: int = 1 << 30
    max_ratio: float = 200.0
    max_members: int = 200_000

    def __post_init__(self) -> None:
        if not (self.max_bytes > 0 and self.max_ratio > 0 and self.max_members > 0):
            raise InputError(f"extraction limits must be > 0 (max_bytes {self.max_bytes}, max_ratio "
                             f"{self.max_ratio}, max_members {self.max_members})")


class _Budget:
    def __init__(self, archive: Path, limits: ExtractLimits) -> None:
        self.name, self.limits = archive.name, limits
        self.size = max(archive.stat().st_size, 1)
        self.members = self.total = 0

    def take(self, member: str, size: int) -> None:
        self.members += 1
        self.total += max(size, 0)
        lim = self.limits
        if self.members > lim.max_members:
            raise DataError(f"sdist {self.name}: more than {lim.max_members:,} members (max_members); refused")
        if self.total > lim.max_bytes:
            raise DataError(f"sdist {self.name}: unpacks to more than {lim.max_bytes:,} bytes (max_bytes; "
                            f"at member {member!r}); refused as a possible archive bomb")
        if self.total > RATIO_FLOOR and self.total > lim.max_ratio * self.size:
            raise DataError(f"sdist {self.name}: unpacks to more than {lim.max_ratio:g} times its "
                            f"{self.size:,} bytes (max_ratio; at member {member!r}); refused as a "
                            "possible archive bomb")


def extract_sdist(archive: str | os.PathLike[str], dest: str | os.PathLike[str],
                  limits: ExtractLimits = ExtractLimits()) -> None:
    """Extract the tar or zip ``archive`` into ``dest`` under ``limits``; :class:`DataError`
    naming it and the cap when one is passed, :class:`tarfile.TarError`/:class:`zipfile.BadZipFile`
    for a member leaving ``dest`` or a corrupt archive."""
    path = Path(archive)
    budget = _Budget(path, limits)
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            for info in infos:   # every size is in the central directory: check them all first
                p = PurePosixPath(info.filename)
                if p.is_absolute() or ".." in p.parts:
                    raise tarfile.TarError(f"member {info.filename!r} would be extracted outside the destination")
                budget.take(info.filename, info.file_size)
            for info in infos:
                zf.extract(info, dest)
        return
    with tarfile.open(path) as tf:
        sizes: dict[str, int] = {}
        for member in tf:    # streamed: sizes counted before each member is written
            # a hard link costs its target's size: stored as a file, git reads (hashes) it again
            size = member.size if member.isreg() else sizes.get(member.linkname, 0) if member.islnk() else 0
            sizes[member.name] = size
            budget.take(member.name, size)
            if hasattr(tarfile, "data_filter"):
                tf.extract(member, dest, filter="data")
            else:  # pragma: no cover - Python < 3.11.4
                root = os.path.realpath(dest)
                _check(member, root)
                tf.extract(member, root, set_attrs=not member.issym())


def extract_tar(tf: tarfile.TarFile, dest: str | os.PathLike[str]) -> None:
    """Extract every member of the open archive ``tf`` into ``dest`` (which must exist) with the
    rules of :func:`tarfile.data_filter`; :class:`tarfile.TarError` naming the member that would
    leave ``dest`` or is a device."""
    if hasattr(tarfile, "data_filter"):
        tf.extractall(dest, filter="data")
    else:  # pragma: no cover - Python < 3.11.4 (tests call _extract_checked directly)
        _extract_checked(tf, dest)


def _extract_checked(tf: tarfile.TarFile, dest: str | os.PathLike[str]) -> None:
    """The data filter's rules without :func:`tarfile.data_filter`, one member at a time."""
    root = os.path.realpath(dest)
    for member in tf:
        _check(member, root)
        tf.extract(member, root, set_attrs=not member.issym())


def _inside(root: str, path: str) -> bool:
    return os.path.commonpath([root, path]) == root


def _check(member: tarfile.TarInfo, root: str) -> None:
    """Refuse ``member`` when it would leave ``root``; tame its mode like the data filter."""
    name = member.name.lstrip("/" + os.sep)  # as the data filter: a leading '/' is dropped
    if name != member.name:
        member.name = name
    if not name or ".." in PurePosixPath(name).parts:
        raise tarfile.TarError(f"member {name!r} would be extracted outside the destination")
    if member.ischr() or member.isblk() or member.isfifo() or member.isdev():
        raise tarfile.TarError(f"member {name!r} is a device or FIFO, refused")
    target = os.path.realpath(os.path.join(root, name))
    if not _inside(root, target):
        raise tarfile.TarError(f"member {name!r} would be extracted outside the destination "
                               f"(through a link)")
    if member.issym():
        parent = os.path.realpath(os.path.join(root, os.path.dirname(name)))
        linked = os.path.realpath(os.path.join(parent, member.linkname))
        if os.path.isabs(member.linkname) or not _inside(root, linked):
            raise tarfile.TarError(f"member {name!r} links outside the destination "
                                   f"({member.linkname!r})")
    elif member.islnk():
        linked = os.path.realpath(os.path.join(root, member.linkname))
        if os.path.isabs(member.linkname) or not _inside(root, linked):
            raise tarfile.TarError(f"member {name!r} links outside the destination "
                                   f"({member.linkname!r})")
    if member.isdir():
        member.mode = 0o755
    elif member.isfile() or member.islnk():
        mode = member.mode & 0o755 | 0o600
        if not mode & 0o100:
            mode &= ~0o111
        member.mode = mode
    member.uid = member.gid = os.getuid() if hasattr(os, "getuid") else 0
    member.uname = member.gname = ""
