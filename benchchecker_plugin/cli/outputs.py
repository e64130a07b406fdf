"""Outputs never destroy inputs: a command refuses an output path that is one of its inputs.

``rescore --out F.jsonl`` over the flags file, ``patch-presence -o`` over the instances and
``flags merge F -o F`` replaced their input and exited 0. :func:`check_outputs` runs before any
work: an output that *is* an input (the same file or folder, through any path or link) is one
line naming both.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..errors import InputError

__all__ = ["check_outputs"]


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_outputs(outputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
                  inputs: Iterable[str | os.PathLike[str] | None]) -> None:
    """Raise :class:`InputError` when an output (``(option, path)``) is one of ``inputs`` (paths
    that do not exist on disk, such as dataset names, are ignored)."""
    given = [Path(p) for p in inputs if p is not None and str(p) and Path(p).exists()]
    for option, out in outputs:
        if out is None:
            continue
        target = Path(out)
        for source in given:
            if _same(target, source):
                raise InputError(f"{option} {out}: is the input {source}; writing there would "
                                 "destroy it, choose another path")
