"""Reports: CSV / Markdown tables, inline-SVG plots, and a reusable self-contained HTML page."""

from ._cells import csv_escape, csv_unescape, markdown_cell, markdown_text
from ._html import HtmlPage
from ._leaderboard import CVC_SENTENCE, DROP_SENTENCE, describe_flags, write_leaderboard_report
from ._plots import drop_by_tier_svg, drop_over_time_svg, figure_to_svg, pyplot
from ._tables import (
    display_drops,
    drop_text,
    main_table,
    pct,
    read_csv,
    summary_display,
    to_markdown,
    wide_summary,
    write_csv,
)

__all__ = [
    "CVC_SENTENCE",
    "DROP_SENTENCE",
    "HtmlPage",
    "csv_escape",
    "csv_unescape",
    "describe_flags",
    "display_drops",
    "drop_by_tier_svg",
    "drop_over_time_svg",
    "drop_text",
    "figure_to_svg",
    "main_table",
    "markdown_cell",
    "markdown_text",
    "pct",
    "pyplot",
    "read_csv",
    "summary_display",
    "to_markdown",
    "wide_summary",
    "write_csv",
    "write_leaderboard_report",
]
