"""Reports: CSV / Markdown tables, inline-SVG plots, and a reusable self-contained HTML page."""

from .html import HtmlPage
from .leaderboard import describe_flags, write_leaderboard_report
from .plots import drop_by_tier_svg, drop_over_time_svg, figure_to_svg, pyplot
from .tables import (
    display_drops,
    drop_text,
    main_table,
    summary_display,
    to_markdown,
    wide_summary,
    write_csv,
)

__all__ = [
    "HtmlPage",
    "describe_flags",
    "display_drops",
    "drop_by_tier_svg",
    "drop_over_time_svg",
    "drop_text",
    "figure_to_svg",
    "main_table",
    "pyplot",
    "summary_display",
    "to_markdown",
    "wide_summary",
    "write_csv",
    "write_leaderboard_report",
]
