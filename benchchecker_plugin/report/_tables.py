"""Rate tables as CSV (full precision, empty cell for undefined) and Markdown.

For display (Markdown, HTML) a row whose tier has too few clean instances for a relative drop
(``note`` starting ``too few``, see ``min_clean`` of
:func:`~benchchecker_plugin.scoring.rate_table`) shows ``too few (clean n=4, resolved n=2)`` in
its drop cell; the CSV keeps the empty cell and the note.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pandas as pd

from ..atomic import write_text_atomic
from ..scoring import TOO_FEW_CLEAN
from ._cells import csv_escape_frame, csv_unescape_frame, markdown_cell


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
            if c.endswith(("_rate", "_rate_500", "_rate_std", "_ci_low", "_ci_high"))
            or c in ("relative_drop", "clean_vs_contaminated", "mde")}


def write_csv(table: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """CSV with the table's columns; ``nan`` written as an empty cell; a text cell a spreadsheet
    would evaluate (``=``, ``+``, ``-``, ``@``, tab, CR first) written with a leading ``'``
    (:func:`~benchchecker_plugin.report._cells.csv_escape`; :func:`read_csv` reads it back)."""
    return write_text_atomic(path, csv_escape_frame(table).to_csv(index=False, na_rep=""))


def read_csv(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A table :func:`write_csv` wrote, as it was (text cells un-escaped; empty cells ``nan``)."""
    return csv_unescape_frame(pd.read_csv(path))


def _fmt(value: Any, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return markdown_cell(str(value))


def to_markdown(table: pd.DataFrame, digits: int = 4) -> str:
    """A GitHub-flavoured Markdown table (floats to ``digits`` decimals, undefined empty; text
    cells through :func:`~benchchecker_plugin.report._cells.markdown_cell`: no line break, raw HTML
    or link of their own)."""
    cols = [markdown_cell(str(c)) for c in table.columns]
    numeric = [table[c].dtype.kind in "iuf" for c in table.columns]
    lines = ["| " + " | ".join(cols) + " |",
             "|" + "|".join("---:" if n else ":---" for n in numeric) + "|"]
    for row in table.itertuples(index=False, name=None):
        lines.append("| " + " | ".join(_fmt(v, digits) for v in row) + " |")
    return "\n".join(lines) + "\n"


def drop_text(row: Any, key: str = "relative_drop", low: str = "drop_ci_low",
              high: str = "drop_ci_high") -> str:
    """A drop as a reader sees it: ``12.3% [-4.0%, 28.1%]``; ``too few (clean n=4, resolved
    n=2)`` or another reason where there is none; ``12.3% (no interval: ...)`` where its interval
    could not be drawn. Never ``[x, x]``."""
    note = str(row.get("note") or "") if hasattr(row, "get") else ""
    value = row[key]
    if value is None or (isinstance(value, float) and math.isnan(value)):
        if note.startswith(TOO_FEW_CLEAN) or note.startswith("no clean"):
            return note.split(";")[0]
        if key == "relative_drop" and note.startswith("no drop"):
            return note.split(";")[0]
        return ""
    lo, hi = row[low], row[high]
    if isinstance(lo, float) and math.isnan(lo):
        reason = next((n.strip() for n in note.split(";") if n.strip().startswith("no ")), "")
        return f"{pct(value)} ({reason.split(': ', 1)[-1]})" if reason else pct(value)
    return f"{pct(value)} [{pct(lo)}, {pct(hi)}]"


def main_table(table: pd.DataFrame, cutoffs: dict[str, str] | None = None
               ) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """The table readers look at first: one row per submission (its ``all`` row) with submission,
    model, [cutoff,] original %, clean %, clean % standardised to the tier mix, drop [95% CI],
    [its minimum detectable drop, MDE,] clean n and the undecided rate (resolved among the
    undecided instances: a resolution rate, not a share of instances). Returns the frame (numbers, for sorting) and display labels
    for the drop column."""
    rows = table[table["tier"] == "all"].reset_index(drop=True)
    out = pd.DataFrame({"submission": rows["submission"], "model": rows["model"]})
    if cutoffs is not None:
        out["cutoff"] = [cutoffs.get(s, "") for s in rows["submission"]]
    out["original"] = rows["original_rate"]
    out["clean"] = rows["clean_rate"]
    out["clean (tier-std.)"] = rows["clean_rate_std"]
    out["drop [95% CI]"] = rows["relative_drop"]
    if "mde" in rows.columns:
        out["MDE"] = rows["mde"]
    out["clean n"] = rows["n_clean"]
    out["undecided rate"] = rows["undecided_rate"]
    labels = {"drop [95% CI]": [drop_text(r) for _, r in rows.iterrows()]}
    return out, labels


def summary_display(summary: pd.DataFrame, tier: str = "all") -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """The pooled summary's rows of one tier for display: group, submissions, distinct instances,
    distinct clean and resolved clean instances, pooled rates, the drop and clean-vs-contaminated
    with their intervals (or why not)."""
    rows = summary[summary["tier"] == tier].reset_index(drop=True)
    out = pd.DataFrame({
        "group": rows["group"], "submissions": rows["n_submissions"],
        "instances": rows["n_instances"], "clean n": rows["n_clean"],
        "resolved clean n": rows["n_resolved_clean"], "original": rows["original_rate"],
        "clean": rows["clean_rate"], "clean (tier-std.)": rows["clean_rate_std"],
        "undecided rate": rows["undecided_rate"], "drop [95% CI]": rows["relative_drop"],
        "clean vs contaminated [95% CI]": rows["clean_vs_contaminated"]})
    if "mde" in rows.columns:
        out.insert(out.columns.get_loc("drop [95% CI]") + 1, "MDE", rows["mde"])
    labels = {"drop [95% CI]": [drop_text(r) for _, r in rows.iterrows()],
              "clean vs contaminated [95% CI]": [
                  drop_text(r, "clean_vs_contaminated", "cvc_ci_low", "cvc_ci_high")
                  for _, r in rows.iterrows()]}
    return out, labels


def _too_few(table: pd.DataFrame) -> pd.Series:
    if "note" not in table.columns:
        return pd.Series(False, index=table.index)
    return table["note"].fillna("").astype(str).str.startswith(TOO_FEW_CLEAN)


def display_drops(table: pd.DataFrame) -> pd.DataFrame:
    """A copy of a rate table for display: ``relative_drop`` reads ``too few (clean n=4, resolved
    n=2)`` where the tier has too few clean instances (every other cell unchanged)."""
    out = table.copy()
    mask = _too_few(table)
    if mask.any():
        out["relative_drop"] = out["relative_drop"].astype(object)
        out.loc[mask, "relative_drop"] = [str(n).split(";")[0] for n in table.loc[mask, "note"]]
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
