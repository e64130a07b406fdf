"""Rate tables as CSV (full precision, empty cell for undefined) and Markdown."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pandas as pd

from .html import write_text_atomic

__all__ = ["to_markdown", "wide_summary", "write_csv"]


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


def wide_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per submission: its ``all`` row, then original / clean / drop for every tier."""
    first = table.drop_duplicates("submission")[["submission", "model", "date"]]
    out = first.set_index("submission")
    for tier in dict.fromkeys(table["tier"]):
        part = table[table["tier"] == tier].set_index("submission")
        prefix = "" if tier == "all" else f"{tier}: "
        cols = {"original_rate": f"{prefix}original", "clean_rate": f"{prefix}clean",
                "relative_drop": f"{prefix}drop"}
        if tier == "all":
            cols.update({"drop_ci_low": "drop CI low", "drop_ci_high": "drop CI high",
                         "n_clean": "n clean", "n_contaminated": "n contaminated",
                         "n_undecided": "n undecided"})
        out = out.join(part[list(cols)].rename(columns=cols))
    return out.reset_index()
