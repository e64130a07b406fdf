"""SWE-bench Verified's contamination paper against our intervals: each finding recomputed with
the pooled estimator, with a verdict read from the interval (consistent / inconsistent / not
testable), never assumed. Only a bundle of SWE-bench Verified has this section."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..report import drop_text
from ._groups import FAMILIES, top10_label
from ._tables import cell, mde_text, n_text, years_of

PAPER_BENCHMARK = "swe-bench-verified"
_PAPER_YEAR = {"2023": (0.425, 0.425, "42.5%", 0.558, "55.8%"), "2025": (0.052, 0.052, "5.2%", 0.0, "~0")}
_PAPER_SMALL = (("2025", "5.2% for 2025", 0.052, 0.052), (None, "8-11% for Claude 4", 0.08, 0.11))


def verdict_against(row: pd.Series | None, low: float, high: float) -> str:
    """``consistent`` when our 95% interval meets the paper's value (or range) ``[low, high]``,
    ``inconsistent`` when it does not, ``not testable`` when there is no interval (too few clean
    instances, or none could be drawn)."""
    if row is None or pd.isna(row["drop_ci_low"]) or pd.isna(row["drop_ci_high"]):
        return "not testable (no interval: too few clean instances)"
    if row["drop_ci_high"] < low or row["drop_ci_low"] > high:
        return "inconsistent (the paper's value is outside our interval)"
    return "consistent (the paper's value is inside our interval; not detectable at this power)" \
        if row["drop_ci_low"] <= 0 else "consistent (our interval excludes 0 and meets the paper's)"


def _year_rows(summary: pd.DataFrame, groups: Mapping[str, Sequence[str]], medium: str) -> list[dict]:
    rows = []
    for y in years_of(groups):
        a, m = cell(summary, y, "all"), cell(summary, y, medium)
        if y in _PAPER_YEAR:
            lo, hi, text, med, med_text = _PAPER_YEAR[y]
            rows.append({"finding": f"drop, {y} submissions", "paper": text,
                         "ours": f"{drop_text(a)} ({n_text(a)})", "MDE": mde_text(a),
                         "verdict": verdict_against(a, lo, hi), "note": ""})
            rows.append({"finding": f"drop on 15-60 min tasks, {y} submissions", "paper": med_text,
                         "ours": drop_text(m) if m is not None else "-", "MDE": mde_text(m),
                         "verdict": verdict_against(m, med, med), "note": ""})
        else:
            rows.append({"finding": f"drop, {y} submissions", "paper": "(no figure for this year)",
                         "ours": f"{drop_text(a)} ({n_text(a)})", "MDE": mde_text(a),
                         "verdict": "not testable (no paper figure)", "note": ""})
    return rows


def paper_summary(summary: pd.DataFrame, groups: Mapping[str, Sequence[str]], n_scored: int,
                  shares: pd.DataFrame, hard: str, medium: str) -> pd.DataFrame:
    """The paper's findings, ours beside them, each with its MDE and verdict."""
    top_label = top10_label(n_scored)
    c4_label = list(FAMILIES)[0]
    th, c4 = cell(summary, top_label, hard), cell(summary, c4_label, "all")
    rows = [{"finding": "relative drop on 1-4 h tasks, top-10 submissions",
             "paper": "> 20% for every one",
             "ours": f"{top_label}, 1-4 h pooled: {drop_text(th) if th is not None else '-'} "
                     f"({n_text(th)})", "MDE": mde_text(th),
             "verdict": verdict_against(th, 0.20, 10.0),
             "note": "not the paper's top 10: none of the board's top 10 has per-instance "
                     "results here (see 'Groups as they are')"},
            {"finding": "overall drop, Claude 4 submissions", "paper": "8-11%",
             "ours": f"{c4_label}: {drop_text(c4) if c4 is not None else '-'} ({n_text(c4)})",
             "MDE": mde_text(c4), "verdict": verdict_against(c4, 0.08, 0.11),
             "note": "Claude 4.5 is its own row ('Model families')"}]
    rows += _year_rows(summary, groups, medium)
    cont = shares["contaminated share"].str.rstrip("%").astype(float)
    rows.append({"finding": "share of instances flagged per model", "paper": "(per model, in the "
                 "paper's figures)", "ours": f"contaminated share {cont.min():.0f}-{cont.max():.0f}% "
                 "per model", "MDE": "", "verdict": "not testable (no figure to compare)", "note": ""})
    return pd.DataFrame(rows)


def paper_sentence(summary: pd.DataFrame) -> str:
    """Where the paper's smaller drops fall against our intervals, read from them."""
    c4 = list(FAMILIES)[0]
    inside: list[str] = []
    outside: list[str] = []
    untestable: list[str] = []
    for group, text, low, high in _PAPER_SMALL:
        verdict = verdict_against(cell(summary, group or c4, "all"), low, high)
        (inside if verdict.startswith("consistent") else outside if verdict.startswith("inconsistent")
         else untestable).append(text)
    out = []
    if inside:
        out.append(f"the paper's {' and '.join(inside)} lie{'s' if len(inside) == 1 else ''} inside our "
                   "intervals: not detectable at this power, neither confirmed nor refuted")
    if outside:
        out.append(f"the paper's {' and '.join(outside)} lie{'s' if len(outside) == 1 else ''} outside "
                   "our intervals: inconsistent with this data")
    if untestable:
        out.append(f"the paper's {' and '.join(untestable)} cannot be tested here (no interval)")
    return "; ".join(out) + "."
