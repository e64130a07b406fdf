"""Rate tables as CSV (full precision, empty cell for undefined) and Markdown.

For display (Markdown, HTML) a row whose tier has too few clean instances for a relative drop
(``note`` starting ``too few clean instances``, see ``min_clean`` of
:func:`~benchchecker_plugin.scoring.rate_table`) shows ``too few (n=4)`` in its drop cell; the
CSV keeps the empty cell and the note.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pandas as pd

from ..scoring.rates import TOO_FEW_CLEAN
from .html import write_text_atomic

__all__ = ["display_drops", "pct", "rate_formats", "to_markdown", "wide_summary", "write_csv"]


def pct(value: Any) -> str:
    """A fraction as a percent with one decimal (``0.5`` -> ``50.0%``); blank for ``nan``; text
    (``too few (n=4)``) as it is."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, str):
        return value
    return f"{100 * float(value):.1f}%"


def rate_formats(frame: pd.DataFrame) -> dict[str, Any]:
    """Percent formats for the rate, interval and drop columns of a rate table (HTML display:
    one unit on a page, never fractions beside percents)."""
    return {c: pct for c in frame.columns
            if c.endswith(("_rate", "_rate_500", "_ci_low", "_ci_high")) or c == "relative_drop"}


def write_csv(table: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """CSV with the table's columns; ``nan`` written as an empty cell."""
    return write_text_atomic(path, table.to_csv(index=False, na_rep=""))


def _fmt(value: Any, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value).replace("|", "\\|")


def to_markdown(table: pd.DataFrame, digits: int = 4) -> str:
    """A GitHub-flavoured Markdown table (floats to ``digits`` decimals, undefined empty)."""
    cols = [str(c) for c in table.columns]
    numeric = [table[c].dtype.kind in "iuf" for c in table.columns]
    lines = ["| " + " | ".join(cols) + " |",
             "|" + "|".join("---:" if n else ":---" for n in numeric) + "|"]
    for row in table.itertuples(index=False, name=None):
        lines.append("| " + " | ".join(_fmt(v, digits) for v in row) + " |")
    return "\n".join(lines) + "\n"


def _too_few(table: pd.DataFrame) -> pd.Series:
    if "note" not in table.columns:
        return pd.Series(False, index=table.index)
    return table["note"].fillna("").astype(str).str.startswith(TOO_FEW_CLEAN)


def display_drops(table: pd.DataFrame) -> pd.DataFrame:
    """A copy of a rate table for display: ``relative_drop`` reads ``too few (n=4)`` where the
    tier has too few clean instances (every other cell unchanged)."""
    out = table.copy()
    mask = _too_few(table)
    if mask.any():
        out["relative_drop"] = out["relative_drop"].astype(object)
        out.loc[mask, "relative_drop"] = [f"too few (n={int(n)})" for n in table.loc[mask, "n_clean"]]
    return out


def wide_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per submission: its ``all`` row (rates with their intervals), then original / clean
    / drop for every tier; a drop on too few clean instances reads ``too few (n=4)``."""
    first = table.drop_duplicates("submission")[["submission", "model", "date"]]
    out = first.set_index("submission")
    shown = display_drops(table)
    for tier in dict.fromkeys(table["tier"]):
        part = shown[shown["tier"] == tier].set_index("submission")
        prefix = "" if tier == "all" else f"{tier}: "
        cols = {"original_rate": f"{prefix}original", "clean_rate": f"{prefix}clean",
                "relative_drop": f"{prefix}drop"}
        if tier == "all":
            cols = {"original_rate": "original", "original_ci_low": "original CI low",
                    "original_ci_high": "original CI high", "clean_rate": "clean",
                    "clean_ci_low": "clean CI low", "clean_ci_high": "clean CI high",
                    "relative_drop": "drop", "drop_ci_low": "drop CI low",
                    "drop_ci_high": "drop CI high", "n_clean": "n clean",
                    "n_contaminated": "n contaminated", "n_undecided": "n undecided"}
            cols = {k: v for k, v in cols.items() if k in part.columns}
        out = out.join(part[list(cols)].rename(columns=cols))
    return out.reset_index()
