"""The one-line summary of Stage II flags that the commands and logs print."""

from __future__ import annotations

from collections.abc import Iterable

from ..flags import ContaminationFlag


def summary_line(flags: Iterable[ContaminationFlag]) -> str:
    """``N instances: a contaminated, b clean, c undecided, e failed`` for the CLI and logs."""
    flags = list(flags)
    failed = sum(1 for f in flags if "error" in f.evidence)
    yes = sum(1 for f in flags if f.contaminated is True)
    no = sum(1 for f in flags if f.contaminated is False)
    und = len(flags) - yes - no - failed
    return f"{len(flags)} instances: {yes} contaminated, {no} clean, {und} undecided, {failed} failed"
