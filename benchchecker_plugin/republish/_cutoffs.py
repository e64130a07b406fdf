"""Each model's training cutoff as an interval, and the plausible interval of a submission whose
model has no published cutoff."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..cutoff import CutoffPeriod, period_in_words
from ..cutoffs_file import ModelCutoffs
from ..leaderboard import Submission, cap_cutoffs

CUTOFF_COLUMNS = ("model", "published cutoff", "interval read", "kind", "snapshot at", "note")


def read_cutoffs_table(table: ModelCutoffs, sources: pd.DataFrame | None, subs: Sequence[Submission]
                       ) -> tuple[dict[str, CutoffPeriod], pd.DataFrame]:
    """Each model's cutoff as an interval: the published value, narrowed to the period its source's
    own words name ("Early 2023" is January-April 2023, not 2023: the ``quote`` column of
    ``sources``), capped at the model's first submission; a cutoff the sources mark ``derived``
    (from a base model) is labelled a lower bound. Returns the cutoffs and ``cutoffs.csv``."""
    quote = dict(zip(sources["model"], sources["quote"].fillna(""))) if sources is not None else {}
    conf = dict(zip(sources["model"], sources["confidence"].fillna(""))) if sources is not None else {}
    read: dict[str, CutoffPeriod] = {}
    notes: dict[str, list[str]] = {}
    for m, period in table.cutoffs.items():
        words = period_in_words(quote.get(m, ""))
        if words is not None and words.end < period.end:
            notes.setdefault(m, []).append(f"the source's words name {words.text} (quote column), "
                                           f"inside the published '{period.text}'")
            period = words
        read[m] = period
    capped, cap_notes = cap_cutoffs(read, subs)
    for m, n in cap_notes.items():
        notes.setdefault(m, []).append(n)
    rows = []
    for m, c in capped.items():
        kind = "derived: a lower bound" if conf.get(m, "").startswith("derived") else "published"
        rows.append({"model": m, "published cutoff": table.cutoffs[m].text,
                     "interval read": f"{read[m].start:%Y-%m-%d}..{read[m].last_moment:%Y-%m-%d}",
                     "kind": kind, "snapshot at": f"{c.last_moment:%Y-%m-%d}",
                     "note": "; ".join(notes.get(m, []))})
    return capped, pd.DataFrame(rows, columns=list(CUTOFF_COLUMNS))


def snapshot_dates(cutoffs: Mapping[str, CutoffPeriod]) -> dict[str, str]:
    """Each model's snapshot date: the last day of its cutoff interval."""
    return {m: f"{c.last_moment:%Y-%m-%d}" for m, c in cutoffs.items()}


def moved_models(cutoff_df: pd.DataFrame) -> set[str]:
    """The models whose cutoff the source's own words narrowed (their snapshot date may be
    another model's)."""
    return {m for m, n in zip(cutoff_df["model"], cutoff_df["note"]) if "quote column" in n}


def band_dates(sub: Any, dates: Sequence[str], floor: str) -> tuple[str, str] | None:
    """The computed snapshot dates at the ends of a submission's plausible cutoff interval: the
    first at or after ``floor``, the last at or before the submission's date."""
    inside = [d for d in sorted(dates) if floor <= d <= (sub.date or "9999")]
    return (inside[0], inside[-1]) if inside else None
