"""A small builder for self-contained HTML pages: inline CSS and JS, inline SVG plots, tables
sortable by clicking a column header. No network access is needed to view the page.

Reused by every report of the package (leaderboard, ``benchchecker check``)::

    page = HtmlPage("My report")
    page.heading("Results").paragraph("One row per submission.")
    page.table(df, caption="Rates")          # sortable
    page.figure(svg_text, caption="Drops")   # from report.plots
    page.write("out/index.html")
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..atomic import write_text_atomic

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1360px;
color:#222;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd}
table.bc{border-collapse:collapse;font-size:.85em;margin:.5em 0 1.5em}
table.bc th,table.bc td{border:1px solid #ddd;padding:.25em .5em;text-align:right;white-space:nowrap}
table.bc td.t,table.bc th.t{text-align:left}
table.bc td.t{white-space:normal;min-width:12em;max-width:24em;overflow-wrap:anywhere}
table.bc th{background:#f3f3f3;cursor:pointer;user-select:none;position:sticky;top:0}
table.bc th[aria-sort=ascending]::after{content:" \\25B2"}
table.bc th[aria-sort=descending]::after{content:" \\25BC"}
table.bc tbody tr:nth-child(even){background:#fafafa}
figure{margin:1em 0}figcaption{font-size:.85em;color:#555}
.note{background:#fff8e1;border-left:4px solid #f0b400;padding:.5em 1em}
.scroll{overflow-x:auto;max-width:100%}
p.lead{font-size:1.08em;line-height:1.5;background:#eef5ff;border-left:4px solid #2b6cb0;padding:.6em 1em}
details{margin:.5em 0 1.5em}details>summary{cursor:pointer;font-weight:600}
figure svg{max-width:100%;height:auto}
@media (max-width:600px){body{margin:1em auto;padding:0 .5em}h1{font-size:1.25em}
table.bc{font-size:.78em}table.bc td.t{min-width:6em;max-width:9em}
table.bc th,table.bc td{white-space:normal;padding:.2em .3em}
table.bc .w{display:none}}
"""

_JS = """
document.querySelectorAll('table.bc.sortable').forEach(function(table){
  table.querySelectorAll('thead th').forEach(function(th, col){
    th.addEventListener('click', function(){
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      table.querySelectorAll('thead th').forEach(function(o){o.removeAttribute('aria-sort');});
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function(a, b){
        var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
        var nx = parseFloat(x), ny = parseFloat(y);
        var ex = x === '', ey = y === '';
        if (ex || ey) { return ex === ey ? 0 : (ex ? 1 : -1); }
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function(r){ body.appendChild(r); });
    });
  });
});
"""


def _cell(value: Any, fmt: Callable[[Any], str] | None) -> tuple[str, str, bool]:
    """(display text, sort key, is_text)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "", "", False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (fmt(value) if fmt else f"{value:g}"), repr(float(value)), False
    text = str(value)
    return text, text, True


class HtmlPage:
    """Accumulates sections and renders one self-contained HTML document."""

    def __init__(self, title: str) -> None:
        self.title = title
        self._parts: list[str] = []
        self._tables = 0

    def heading(self, text: str, level: int = 2) -> HtmlPage:
        self._parts.append(f"<h{level}>{html.escape(text)}</h{level}>")
        return self

    def paragraph(self, text: str, *, note: bool = False, lead: bool = False) -> HtmlPage:
        """A paragraph; ``note``: set off as a note; ``lead``: the headline paragraph."""
        cls = ' class="note"' if note else ' class="lead"' if lead else ""
        self._parts.append(f"<p{cls}>{html.escape(text)}</p>")
        return self

    def raw(self, markup: str) -> HtmlPage:
        """Append trusted markup as is."""
        self._parts.append(markup)
        return self

    def table(self, frame: pd.DataFrame, *, caption: str = "", sortable: bool = True,
              formats: Mapping[str, Callable[[Any], str]] | None = None,
              table_id: str | None = None, labels: Mapping[str, Sequence[str]] | None = None,
              collapsed: str | None = None, narrow: Sequence[str] | None = None) -> HtmlPage:
        """A table of ``frame``; numbers sort numerically, empty cells last. ``labels``: display
        text per row for some columns (``12.3% [-4.0%, 28.1%]``), sorted by the frame's value;
        ``collapsed``: the table sits folded under that summary line (long tables); ``narrow``:
        the columns kept on a phone-width screen (the others are hidden there, so the drop is
        seen without sideways scrolling; ``None``: all)."""
        formats = formats or {}
        labels = labels or {}
        self._tables += 1
        tid = table_id or f"table{self._tables}"
        cls = "bc sortable" if sortable else "bc"
        out = [f"<details><summary>{html.escape(collapsed)}</summary>"] if collapsed else []
        out.append(f'<div class="scroll"><table class="{cls}" id="{html.escape(tid)}">')
        if caption:
            out.append(f"<caption>{html.escape(caption)}</caption>")
        kinds = {c: frame[c].dtype.kind in "OSUb" for c in frame.columns}
        wide = {c: narrow is not None and c not in narrow for c in frame.columns}
        out.append("<thead><tr>" + "".join(
            f'<th class="{"t" if kinds[c] else "n"}{" w" if wide[c] else ""}" scope="col">'
            f'{html.escape(str(c))}</th>' for c in frame.columns) + "</tr></thead><tbody>")
        for k, row in enumerate(frame.itertuples(index=False, name=None)):
            cells = []
            for col, value in zip(frame.columns, row):
                text, key, is_text = _cell(value, formats.get(col))
                if col in labels:
                    text, is_text = str(labels[col][k]), False
                names = ("t " if is_text else "") + ("w" if wide[col] else "")
                cls_td = f' class="{names.strip()}"' if names.strip() else ""
                cells.append(f'<td{cls_td} data-v="{html.escape(key)}">{html.escape(text)}</td>')
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table></div>" + ("</details>" if collapsed else ""))
        self._parts.append("\n".join(out))
        return self

    def figure(self, svg: str, *, caption: str = "") -> HtmlPage:
        """An inline SVG figure (see :mod:`._plots`)."""
        cap = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
        self._parts.append(f"<figure>{svg}{cap}</figure>")
        return self

    def render(self) -> str:
        body = "\n".join(self._parts)
        return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                f'<meta name="viewport" content="width=device-width,initial-scale=1">'
                f"<title>{html.escape(self.title)}</title><style>{_CSS}</style></head>\n"
                f"<body><h1>{html.escape(self.title)}</h1>\n{body}\n<script>{_JS}</script>"
                f"</body></html>\n")

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the page atomically (temporary file, then rename)."""
        return write_text_atomic(path, self.render())
