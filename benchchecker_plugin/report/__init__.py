"""Reports: CSV / Markdown tables, inline-SVG plots, and a reusable self-contained HTML page."""

from .cells import csv_escape, csv_unescape, markdown_cell
from .html import HtmlPage
from .leaderboard import describe_flags, write_leaderboard_report
from .plots import drop_by_tier_svg, drop_over_time_svg, figure_to_svg, pyplot
from .tables import (
    display_drops,
    drop_text,
    main_table,
    read_csv,
    summary_display,
    to_markdown,
    wide_summary,
    write_csv,
)

__all__ = [
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
    "pyplot",
    "read_csv",
    "summary_display",
    "to_markdown",
    "wide_summary",
    "write_csv",
    "write_leaderboard_report",
]
