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
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from .cutoff import CutoffPeriod
from .cutoffs_file import read_model_cutoffs
from .errors import DataError
from .flags import ContaminationFlag

__all__ = ["CutoffPeriod", "FixDates", "PATCH_DATE_METHOD", "dated_rows", "fix_dates", "patch_date_flags",
           "read_model_cutoffs"]

PATCH_DATE_METHOD = "benchchecker.patch_date"
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
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        raise DataError(f"instance {instance_id!r}: created_at {text!r} is not an ISO date") from None


def _field(item: object, name: str) -> object:
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)


def dated_rows(instances: Iterable[object], dates: Iterable[object] = ()) -> list[dict[str, object]]:
    """The rows :func:`fix_dates` reads (``instance_id``, ``repo``, ``created_at``) for
    ``instances``, taking ``created_at`` from ``dates`` where an instance lacks it.

    Both are SWE-bench-style dicts or objects with those attributes (e.g. ``BugInstance``);
    ``dates`` is typically a fuller copy of the same benchmark (an instance's own date wins; dates
    of instances not in ``instances`` are ignored). An instance id given twice is a
    :class:`DataError`.
    """
    known = {str(_field(d, "instance_id")): _field(d, "created_at") for d in dates}
    rows: list[dict[str, object]] = []
    seen: set[str] = set()
    for item in instances:
        iid = str(_field(item, "instance_id"))
        if iid in seen:
            raise DataError(f"instance {iid!r} is listed twice")
        seen.add(iid)
        rows.append({"instance_id": iid, "repo": _field(item, "repo"),
                     "created_at": _field(item, "created_at") or known.get(iid)})
    return rows


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
                benchmark=benchmark, instance_id=d.instance_id, model=model, method=PATCH_DATE_METHOD,
                contaminated=verdict, score=score, p_value=None,
                evidence={"pr_number": d.number, "created_at_exact": d.exact,
                          "created_earliest": d.earliest.isoformat() if d.earliest else None,
                          "created_latest": d.latest.isoformat() if d.latest else None,
                          "cutoff": period.text}))
    return flags
