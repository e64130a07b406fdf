"""The demo's HTML report: one section per step, headline numbers first."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..report import HtmlPage
from ._steps import StepResult


def format_value(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.3f}"
    return "" if value is None else str(value)


def write_demo_report(results: Sequence[StepResult], path: Path) -> Path:
    page = HtmlPage("benchchecker demo")
    page.paragraph("Everything on this page was computed offline on this machine: models trained or "
                   "loaded locally, real source code of installed packages, real benchmark data.",
                   note=True)
    page.table(pd.DataFrame([{"step": r.title, "status": r.status, "seconds": round(r.seconds, 1),
                              "note": r.note} for r in results]), caption="Steps", table_id="steps")
    for r in results:
        page.heading(r.title)
        if r.status != "ok":
            page.paragraph(f"{r.status}: {r.note}", note=True)
            continue
        if r.headline:
            page.table(pd.DataFrame([{"figure": k, "value": format_value(v),
                                      **({"what it measures": r.measures.get(k, "")} if r.measures else {})}
                                     for k, v in r.headline.items()]), sortable=False)
        if r.table is not None and not r.table.empty:
            page.table(r.table.round(4))
        for label, file in r.files.items():
            target, root = Path(file).resolve(), path.parent.resolve()
            rel = target.relative_to(root) if target.is_relative_to(root) else target
            page.raw(f'<p><a href="{rel.as_posix()}">{label}</a></p>')
    return page.write(path)
