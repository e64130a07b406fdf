"""Extracting a tar archive we did not write (a ``git archive`` of a cloned repository, a
package's sdist) so that nothing lands outside the destination folder.

Python 3.11.4+ has :func:`tarfile.data_filter` (PEP 706) and we use it. Python 3.11.0-3.11.3
(Debian 12's ``python3`` is 3.11.2) lacks it; there :func:`extract_tar` applies the same rules
itself, one member at a time, resolving each path against what is already on disk so that a link
extracted earlier cannot carry a later member out: a leading ``/`` dropped, no ``..``, no device or
FIFO members, no symbolic or hard link pointing outside, no setuid/setgid/sticky bits and no
group/other write permission.
"""

from __future__ import annotations

import os
import tarfile
from pathlib import PurePosixPath

__all__ = ["extract_tar"]


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
