"""Stage II end to end: for each instance, was its gold patch in the repository at the cutoff?

>>> flags = patch_presence(load_instances("verified.jsonl"), "repos/", "2023-04-30",
...                        model="gpt-4-0613")                                   # doctest: +SKIP

One :class:`~benchchecker_plugin.flags.ContaminationFlag` per instance, ``method =
"benchchecker.stage2"``, ``score`` = the least matched-line similarity (1.0 when verified by
tests). An instance that fails (bad diff, missing commit, missing repository, non-UTF-8 file)
gets a flag with ``contaminated = None`` and ``evidence.error``; the run goes on. It is
:func:`~.engine.run_stage2` at one cutoff; judging an instance is :mod:`._judge`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import date, datetime

from ..flags import ANY_MODEL, ContaminationFlag
from ..instances import BugInstance
from ..models import Executor
from ..repos import parse_cutoff
from ._config import PresenceConfig
from ._engine import run_stage2


def patch_presence(instances: Sequence[BugInstance], repos_dir: str | os.PathLike[str],
                   cutoff: str | date | datetime, *, model: str = ANY_MODEL,
                   config: PresenceConfig | None = None, executor: Executor | None = None,
                   workers: int = 1) -> list[ContaminationFlag]:
    """One stage-II flag per instance (in order); failures are flags with ``evidence.error``.
    ``executor`` runs one task per repository, ``workers`` threads its instances
    (:func:`~.engine.run_stage2`)."""
    run = run_stage2(instances, repos_dir, {model: parse_cutoff(cutoff)}, config=config, executor=executor,
                     workers=workers, desc="patch presence", reuse_counts=False)
    return list(run.flags)


def summary_line(flags: Iterable[ContaminationFlag]) -> str:
    """``N instances: a contaminated, b clean, c undecided, e failed`` for the CLI and logs."""
    flags = list(flags)
    failed = sum(1 for f in flags if "error" in f.evidence)
    yes = sum(1 for f in flags if f.contaminated is True)
    no = sum(1 for f in flags if f.contaminated is False)
    und = len(flags) - yes - no - failed
    return f"{len(flags)} instances: {yes} contaminated, {no} clean, {und} undecided, {failed} failed"
