"""Flags compared across runs: everything but the time they were written."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from benchchecker_plugin.flags import ContaminationFlag, read_flags

__all__ = ["comparable_flags", "untimed_flags"]


def comparable_flags(
        source: str | os.PathLike[str] | Iterable[ContaminationFlag]) -> dict[str, dict[str, Any]]:
    """``{instance_id: flag as a dict without created_at}`` of a flags file or of flags already read
    (a later flag of the same instance replaces an earlier one)."""
    flags = read_flags(source) if isinstance(source, (str, os.PathLike)) else source
    out = {}
    for f in flags:
        d = f.to_dict()
        d.pop("created_at")
        out[f.instance_id] = d
    return out


def untimed_flags(flags: Iterable[ContaminationFlag]) -> list[dict[str, Any]]:
    """Flags as dicts in their order, without what changes from run to run: ``created_at`` and
    the evidence's ``timings_s``."""
    out = []
    for f in flags:
        d = f.to_dict()
        d.pop("created_at")
        d["evidence"].pop("timings_s", None)
        out.append(d)
    return out
