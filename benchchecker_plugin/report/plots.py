"""Plots as inline SVG text (matplotlib, Agg backend; no files, no network)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

__all__ = ["drop_by_tier_svg", "figure_to_svg", "pyplot", "timeline_svg"]


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def figure_to_svg(fig) -> str:
    """A matplotlib figure as inline SVG markup (closed afterwards)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    pyplot().close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and doctype: inline in HTML


def drop_by_tier_svg(table: pd.DataFrame) -> str:
    """Per tier: each submission's relative drop (dots) and the mean (bar), from a rate table."""
    plt = pyplot()
    tiers = list(dict.fromkeys(table["tier"]))
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for k, tier in enumerate(tiers):
        drops = table.loc[table["tier"] == tier, "relative_drop"].astype(float).dropna()
        if len(drops):
            ax.bar(k, drops.mean(), color="#9ecae1", width=0.6)
            jitter = np.linspace(-0.2, 0.2, len(drops)) if len(drops) > 1 else np.zeros(1)
            ax.scatter(k + jitter, drops, s=8, color="#08519c", zorder=3)
    ax.axhline(0, color="#444", lw=0.8)
    ax.set_xticks(range(len(tiers)), [f"{t}\n(n={int(table.loc[table['tier'] == t, 'n_instances'].iloc[0])})"
                                      for t in tiers], fontsize=8)
    ax.set_ylabel("relative drop (original - clean) / original")
    ax.set_title("Relative drop per tier (dots: submissions, bar: mean)", fontsize=10)
    return figure_to_svg(fig)


def timeline_svg(timeline: pd.DataFrame) -> str:
    """Mean relative drop by submission month, from :func:`scoring.timeline`."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.2))
    # a month whose submissions have no defined drop is left off the axis, not drawn empty
    timeline = timeline[timeline["mean_relative_drop"].notna()] if len(timeline) else timeline
    if len(timeline):
        x = np.arange(len(timeline))
        ax.plot(x, timeline["mean_relative_drop"], marker="o", color="#08519c")
        step = max(1, len(x) // 12)
        ax.set_xticks(x[::step], timeline["month"].iloc[::step], rotation=45, fontsize=8)
    ax.axhline(0, color="#444", lw=0.8)
    ax.set_ylabel("mean relative drop")
    ax.set_title("Mean relative drop by submission month (tier: all)", fontsize=10)
    return figure_to_svg(fig)


# names used before they were public (kept for callers such as check/page.py)
_pyplot = pyplot
_to_svg = figure_to_svg
