"""Patch-date flags: was an instance's fix public before a model's training cutoff?

A gold patch can only be in the repository snapshot at a model's cutoff (Stage II) if its pull
request existed before that cutoff. Without local clones, that necessary condition is all one can
check — and for SWE-bench-style instances it can be checked from public metadata alone:
GitHub numbers issues and pull requests with one counter that grows with creation time, so within a
repository the PR number orders fixes in time. From the instances whose ``created_at`` is known,
each other instance's creation date is *bracketed* (no interpolation): the nearest dated PRs below
and above its number give a lower and an upper bound.

Decision for a cutoff published as a period (``2023``, ``2023-10``, ``2023-10-01``):

- fix created before the period starts (upper bound < start) → ``contaminated = true``
  (the fix was public before the model's data ends; Stage II with a clone refines it);
- fix created after the period ends (lower bound > end) → ``false``;
- otherwise (the bracket overlaps the period, or the repository has too few dated instances)
  → ``null`` (undecided).

Score: days between the fix's latest possible creation and the cutoff's start (positive = public
that long before the cutoff), for AUC; the p-value is null. Method ``benchchecker.patch_date``.
"""

from __future__ import annotations

import bisect
import csv
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from .cutoff import CutoffPeriod
from .errors import DataError
from .flags import ContaminationFlag

__all__ = ["METHOD", "CutoffPeriod", "FixDates", "fix_dates", "patch_date_flags", "read_model_cutoffs"]

METHOD = "benchchecker.patch_date"
_NUMBER = re.compile(r"-(\d+)$")


@dataclass(frozen=True)
class FixDates:
    """Bounds on when an instance's fix PR was created (``None`` = unbounded on that side)."""

    instance_id: str
    repo: str
    number: int
    earliest: datetime | None
    latest: datetime | None
    exact: bool


def _number(instance_id: str) -> int:
    m = _NUMBER.search(instance_id)
    if not m:
        raise DataError(f"instance {instance_id!r}: no PR number at the end of its id")
    return int(m.group(1))


def _date(text: str, instance_id: str) -> datetime:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)
    except ValueError:
        raise DataError(f"instance {instance_id!r}: created_at {text!r} is not an ISO date") from None


def fix_dates(instances: Iterable[Mapping[str, object]]) -> list[FixDates]:
    """Bracket each instance's fix creation date from the dated instances of the same repository.

    ``instances`` are SWE-bench-style dicts with ``instance_id``, ``repo`` and, where known,
    ``created_at``. Within a repository, dates must grow with PR numbers; a pair that does not is
    reported as a :class:`DataError` naming both instances.
    """
    rows = list(instances)
    dated: dict[str, list[tuple[int, datetime, str]]] = defaultdict(list)
    for r in rows:
        iid = str(r["instance_id"])
        if r.get("created_at"):
            dated[str(r["repo"])].append((_number(iid), _date(str(r["created_at"]), iid), iid))
    for repo, points in dated.items():
        points.sort()
        for (n1, d1, i1), (n2, d2, i2) in zip(points, points[1:]):
            if d2 < d1:
                raise DataError(f"{repo}: {i2} (#{n2}) is dated before {i1} (#{n1}); PR numbers and "
                                "creation dates disagree")
    out = []
    for r in rows:
        iid, repo = str(r["instance_id"]), str(r["repo"])
        n = _number(iid)
        points = dated.get(repo, [])
        numbers = [p[0] for p in points]
        lo_i = bisect.bisect_right(numbers, n) - 1      # largest dated number <= n
        hi_i = bisect.bisect_left(numbers, n)           # smallest dated number >= n
        earliest = points[lo_i][1] if lo_i >= 0 else None
        latest = points[hi_i][1] if hi_i < len(points) else None
        exact = lo_i >= 0 and numbers[lo_i] == n
        out.append(FixDates(iid, repo, n, earliest, latest, exact))
    return out


def read_model_cutoffs(path: str | Path) -> dict[str, CutoffPeriod]:
    """``{model: CutoffPeriod}`` from a CSV with ``model`` and ``cutoff`` columns; models whose
    cutoff is empty (unpublished) are left out."""
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if not reader.fieldnames or not {"model", "cutoff"} <= set(reader.fieldnames):
                raise DataError(f"{path}: a cutoffs table needs 'model' and 'cutoff' columns")
            return {row["model"]: CutoffPeriod.parse(row["cutoff"]) for row in reader
                    if row["cutoff"].strip()}
    except OSError as exc:
        raise DataError(f"{path}: cannot read the cutoffs table ({exc.strerror})") from None


def patch_date_flags(dates: Sequence[FixDates], cutoffs: Mapping[str, CutoffPeriod], *,
                     benchmark: str = "swe-bench-verified") -> list[ContaminationFlag]:
    """One flag per (instance, model with a known cutoff)."""
    flags = []
    for model, period in sorted(cutoffs.items()):
        for d in dates:
            if d.latest is not None and d.latest < period.start:
                verdict: bool | None = True
            elif d.earliest is not None and d.earliest >= period.end:
                verdict = False
            else:
                verdict = None
            ref = d.latest or d.earliest
            score = (period.start - ref).total_seconds() / 86400.0 if ref is not None else 0.0
            flags.append(ContaminationFlag(
                benchmark=benchmark, instance_id=d.instance_id, model=model, method=METHOD,
                contaminated=verdict, score=score, p_value=None,
                evidence={"pr_number": d.number, "created_at_exact": d.exact,
                          "created_earliest": d.earliest.isoformat() if d.earliest else None,
                          "created_latest": d.latest.isoformat() if d.latest else None,
                          "cutoff": period.text}))
    return flags
