"""Inputs a republished leaderboard must not take at face value, screened with stated rules.

- **Resolved counts.** A submission whose resolved count disagrees with the official leaderboard
  by more than ``tolerance`` of the instances (default 2%: 10 of SWE-bench Verified's 500) is not
  scored: its per-instance list is not the run the board reports. The official figure comes from
  the leaderboard json (``leaderboards.json``, :func:`official_percentages`) or, failing that, from
  the submission's own ``leaderboard_entry.json`` (``Submission.official_pct``). A submission the
  data names as untrusted (``untrusted``) is not scored either.
- **Partial lists** (``Submission.partial``, e.g. ambiguous ids left out) are scored and marked.
- **Cutoffs stated as a period** (``2023``: "Early 2023") are intervals; a snapshot at the end of
  the period may fall after the model was in use. :func:`cap_cutoffs` caps each model's cutoff at
  the earliest submission date of the submissions built on it (a model cannot have been trained
  on data after a run that used it) and says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ..cutoff import CutoffPeriod
from ..errors import DataError
from ._submission import Submission, official_percent, read_json


@dataclass(frozen=True)
class Screened:
    """``scored``: the submissions to rate; ``excluded``: ``(submission, reason)`` of the others;
    ``marks``: ``{name: note}`` for scored submissions a reader must know about (partial lists)."""

    scored: tuple[Submission, ...]
    excluded: tuple[tuple[Submission, str], ...]
    marks: Mapping[str, str]


def official_percentages(path: str | Path, board: str = "Verified") -> dict[str, float]:
    """``{submission folder: resolved %}`` of one board of a SWE-bench ``leaderboards.json``
    (``{"leaderboards": [{"name": "Verified", "results": [{"folder", "resolved"}, ...]}]}``)."""
    file = Path(path)
    data = read_json(file)
    boards = data.get("leaderboards") if isinstance(data, Mapping) else None
    if not isinstance(boards, list):
        raise DataError(f"{file}: expected {{\"leaderboards\": [...]}} (a SWE-bench leaderboards.json)")
    names = [b.get("name") for b in boards if isinstance(b, Mapping)]
    found = [b for b in boards if isinstance(b, Mapping) and b.get("name") == board]
    if not found:
        raise DataError(f"{file}: no board named {board!r} (it has: {', '.join(map(str, names))})")
    out: dict[str, float] = {}
    results = found[0].get("results") or []
    k = next((i for i, b in enumerate(boards) if b is found[0]), 0)
    for j, entry in enumerate(results if isinstance(results, list) else []):
        if not isinstance(entry, Mapping):
            continue
        folder = entry.get("folder")
        pct = official_percent(entry.get("resolved"),
                               f"{file}: leaderboards[{k}].results[{j}].resolved")
        if isinstance(folder, str) and pct is not None:
            out[folder] = pct
    return out


def screen_submissions(subs: Sequence[Submission], n_instances: int, *,
                       official: Mapping[str, float] | None = None, tolerance: float = 0.02,
                       untrusted: Mapping[str, str] | None = None) -> Screened:
    """Split ``subs`` into scored and excluded by the rules of this module (``n_instances``: the
    benchmark's size, the base of the percentages and of ``tolerance``)."""
    if n_instances <= 0:
        raise DataError(f"n_instances must be positive, got {n_instances}")
    official = official or {}
    untrusted = untrusted or {}
    scored, excluded, marks = [], [], {}
    for sub in subs:
        if sub.name in untrusted:
            excluded.append((sub, f"marked untrusted by its data: {untrusted[sub.name]}"))
            continue
        pct = official.get(sub.name, sub.official_pct)
        if pct is not None:
            want = round(pct * n_instances / 100.0)
            if abs(len(sub.resolved) - want) > tolerance * n_instances:
                excluded.append((sub, f"{len(sub.resolved)} resolved in its per-instance list, "
                                      f"{want} ({pct:g}%) on the official leaderboard: they differ "
                                      f"by more than {tolerance:.0%} of the {n_instances} instances"))
                continue
        if sub.partial:
            marks[sub.name] = sub.partial
        scored.append(sub)
    return Screened(tuple(scored), tuple(excluded), marks)


def _day_end(day: str) -> datetime:
    return datetime.fromisoformat(day[:10]).replace(tzinfo=UTC) + timedelta(days=1)


def cap_cutoffs(cutoffs: Mapping[str, CutoffPeriod], subs: Iterable[Submission]
                ) -> tuple[dict[str, CutoffPeriod], dict[str, str]]:
    """Each model's cutoff capped at the earliest date of a submission built on it: ``(cutoffs,
    {model: note})``, the note saying what was capped and why. A capped cutoff is a day
    (``2023-10-10``), so a snapshot "at" it ends that day."""
    earliest: dict[str, str] = {}
    for sub in subs:
        if len(sub.date) < 10:
            continue
        for model in sub.models:
            if model in cutoffs and (model not in earliest or sub.date < earliest[model]):
                earliest[model] = sub.date[:10]
    out, notes = dict(cutoffs), {}
    for model, day in earliest.items():
        period = cutoffs[model]
        if period.end > _day_end(day):
            out[model] = CutoffPeriod.parse(day)
            notes[model] = (f"cutoff {period.text!r} (until {period.last_moment:%Y-%m-%d}) capped "
                            f"at {day}, the date of its earliest submission: a model is not "
                            "trained on data after a run that used it")
    return out, notes
