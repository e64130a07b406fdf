"""Stop sequences, applied the same way by every backend: the answer ends before the first one."""

from __future__ import annotations

from collections.abc import Sequence


def cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """``text`` up to (not including) the earliest stop string, and whether one was found."""
    cut = min((k for k in (text.find(s) for s in stop if s) if k >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)
