"""The published re-scored leaderboard: ``leaderboard.csv``, ``leaderboard.md``, ``index.html``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import pandas as pd

from ..scoring.rates import timeline
from .html import HtmlPage, write_text_atomic
from .plots import drop_by_tier_svg, timeline_svg
from .tables import to_markdown, wide_summary, write_csv

__all__ = ["write_leaderboard_report"]


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def write_leaderboard_report(table: pd.DataFrame, out_dir: str | os.PathLike[str], *,
                             title: str = "Leaderboard re-scored without contaminated instances",
                             notes: Sequence[str] = ()) -> dict[str, Path]:
    """Write the three files of a rate table into ``out_dir``; returns ``{kind: path}``.

    The HTML page is self-contained: a sortable table with one row per submission (original vs
    clean rate per tier, drop and its interval), plots of the drop per tier and over time, and the
    full long table.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"csv": write_csv(table, out / "leaderboard.csv")}
    md = ([f"# {title}", ""] + [f"- {n}" for n in notes] + ["", to_markdown(table), "",
          "## Mean relative drop by submission month (tier: all)", "",
          to_markdown(timeline(table))])
    paths["md"] = write_text_atomic(out / "leaderboard.md", "\n".join(md))

    page = HtmlPage(title)
    for note in notes:
        page.paragraph(note, note=True)
    page.heading("Submissions")
    page.paragraph("Rates are fractions of the tier's instances resolved; drop = (original - clean) "
                   "/ original, with a percentile bootstrap interval. Click a column to sort.")
    summary = wide_summary(table)
    not_rates = {"submission", "model", "date", "n clean", "n contaminated", "n undecided"}
    rate_cols = {c: _pct for c in summary.columns if c not in not_rates}
    page.table(summary, formats=rate_cols, table_id="submissions")
    if len(table):
        page.heading("Plots")
        page.figure(drop_by_tier_svg(table), caption="Relative drop per difficulty tier.")
        page.figure(timeline_svg(timeline(table)), caption="Mean relative drop by submission month.")
    page.heading("All rows (leaderboard.csv)")
    page.table(table, table_id="long")
    paths["html"] = page.write(out / "index.html")
    return paths
