"""Plots as inline SVG text (matplotlib, Agg backend; no files, no network)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

CLIP = 1.0   # drops beyond +-100% are drawn at the edge and marked (a drop has no lower bound)


def data_limit(*values: np.ndarray, floor: float = 0.2) -> float:
    """The half-height of a drop axis scaled to the data: the 95th percentile of the absolute
    finite values, rounded up to the next 10 points plus a margin, between ``floor`` and
    :data:`CLIP`; values beyond it are drawn at the edge and marked."""
    flat = np.concatenate([np.abs(np.asarray(v, float).ravel()) for v in values]) if values else np.zeros(0)
    flat = flat[np.isfinite(flat)]
    if not flat.size:
        return CLIP
    q = float(np.quantile(flat, 0.95))
    return float(min(CLIP, max(floor, np.ceil(q * 10.0) / 10.0 + 0.05)))


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def figure_to_svg(fig) -> str:
    """A matplotlib figure as inline SVG markup (closed afterwards)."""
    buf = io.StringIO()
    import matplotlib

    # the same figure, the same SVG: fixed ids and no date (only for our own figures; the
    # user's matplotlib settings are left as they are)
    with matplotlib.rc_context({"svg.hashsalt": "benchchecker"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    pyplot().close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and doctype: inline in HTML


def drop_by_tier_svg(summary: pd.DataFrame, group: str) -> str | None:
    """The pooled drop of one summary ``group`` per tier (Mantel–Haenszel over its submissions)
    with its 95% interval, each tier labelled with the distinct clean / resolved clean instances
    it rests on; a tier with too few says so in place of a bar. ``None`` when no tier has a drop
    (the caller says so in words instead of an empty frame)."""
    rows = summary[summary["group"] == group].reset_index(drop=True)
    if not len(rows) or rows["relative_drop"].notna().sum() == 0:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    lim = data_limit(rows["relative_drop"].to_numpy(float), rows["drop_ci_low"].to_numpy(float),
                     rows["drop_ci_high"].to_numpy(float))
    for k, r in rows.iterrows():
        if np.isfinite(r["relative_drop"]):
            est = float(np.clip(r["relative_drop"], -lim, lim))
            ax.bar(k, est, color="#9ecae1", width=0.6)
            if np.isfinite(r["drop_ci_low"]):
                lo, hi = (float(np.clip(r[c], -lim, lim)) for c in ("drop_ci_low", "drop_ci_high"))
                ax.errorbar(k, est, yerr=[[est - lo], [hi - est]], color="#08519c", capsize=4)
                for v, edge in ((r["drop_ci_low"], -lim), (r["drop_ci_high"], lim)):
                    if abs(v) > lim:
                        ax.scatter([k], [edge], marker="v" if edge < 0 else "^", s=30,
                                   color="#a50f15", zorder=3)
        else:
            ax.text(k, 0.02 * lim, "too few", ha="center", va="bottom", fontsize=8, color="#a50f15")
    ax.axhline(0, color="#444", lw=0.8)
    ax.set_ylim(-lim * 1.05, lim * 1.05)
    ax.set_xticks(range(len(rows)), [f"{r['tier']}\nclean n={int(r['n_clean'])}, resolved "
                                      f"{int(r['n_resolved_clean'])}" for _, r in rows.iterrows()],
                  fontsize=7)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_ylabel("drop 1 - clean / original")
    ax.set_title(f"Pooled drop per tier, {group} (95% cluster-bootstrap intervals)", fontsize=10)
    return figure_to_svg(fig)


def drop_over_time_svg(table: pd.DataFrame, summary: pd.DataFrame | None = None) -> str | None:
    """Each submission's drop (tier ``all``, stratified) with its 95% interval against its date
    on a real time axis scaled to the data (:func:`data_limit`); drops beyond it are drawn at the
    edge as triangles and counted in the legend. Pooled per-year
    drops of ``summary`` (groups named by a year) are horizontal segments with their interval as
    a band, labelled (at the top, one row per year, alternating) with their submissions and
    distinct clean instances; the axis spans the dated submissions only (no empty year). ``None`` when no
    submission has both a date and a drop."""
    import matplotlib.dates as mdates

    rows = table[(table["tier"] == "all") & table["relative_drop"].notna()
                 & (table["date"].astype(str).str.len() >= 10)].copy()
    if not len(rows):
        return None
    rows["when"] = pd.to_datetime(rows["date"].astype(str).str[:10], errors="coerce")
    rows = rows[rows["when"].notna()]
    if not len(rows):
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 3.8))
    est = rows["relative_drop"].to_numpy(float)
    years = pd.DataFrame()
    if summary is not None:
        years = summary[(summary["tier"] == "all")
                        & summary["group"].astype(str).str.fullmatch(r"\d{4}")
                        & summary["relative_drop"].notna()]
    lim = data_limit(est, years["drop_ci_low"].to_numpy(float) if len(years) else np.zeros(0),
                     years["drop_ci_high"].to_numpy(float) if len(years) else np.zeros(0))
    shown = np.clip(est, -lim, lim)
    clipped = shown != est
    lo = np.clip(rows["drop_ci_low"].to_numpy(float), -lim, lim)
    hi = np.clip(rows["drop_ci_high"].to_numpy(float), -lim, lim)
    has = np.isfinite(lo) & np.isfinite(hi)
    when = rows["when"].to_numpy()
    ax.errorbar(when[has], shown[has], yerr=[shown[has] - lo[has], hi[has] - shown[has]], fmt="none",
                ecolor="#bdbdbd", lw=0.8, zorder=1)
    ax.scatter(when[~clipped], shown[~clipped], s=12, color="#08519c", zorder=3, label="submission")
    for side, marker in ((est < -lim, "v"), (est > lim, "^")):
        if side.any():
            ax.scatter(when[side], shown[side], s=30, marker=marker, color="#a50f15", zorder=3,
                       label=f"{'below' if marker == 'v' else 'above'} {'-' if marker == 'v' else '+'}"
                             f"{lim:.0%} (clipped: {int(side.sum())})")
    # the axis spans the dated submissions with a drop: a year without one is not drawn
    left, right = rows["when"].min(), rows["when"].max()
    for k, (_, r) in enumerate(years.iterrows()):
        start = max(pd.Timestamp(f"{r['group']}-01-01"), left)
        end = min(pd.Timestamp(f"{r['group']}-12-31"), right)
        if start > end:
            continue
        if np.isfinite(r["drop_ci_low"]):
            ax.fill_between([start, end], max(r["drop_ci_low"], -lim), min(r["drop_ci_high"], lim),
                            color="#fdae6b", alpha=0.3, lw=0)
        ax.plot([start, end], [float(np.clip(r["relative_drop"], -lim, lim))] * 2, color="#e6550d", lw=2)
        # one label per year, at the top of the axes in its own band (no overprint)
        ax.text(start + (end - start) / 2, 0.97 - 0.07 * (k % 2),
                f"{r['group']}: {int(r['n_submissions'])} subs, clean n={int(r['n_clean'])}",
                transform=ax.get_xaxis_transform(), ha="center", va="top", fontsize=7,
                color="#a63603")
    ax.axhline(0, color="#444", lw=0.8)
    ax.set_ylim(-lim * 1.1, lim * 1.25)
    ax.set_xlim(left - pd.Timedelta(days=20), right + pd.Timedelta(days=20))
    ax.xaxis.set_major_locator(mdates.AutoDateLocator())
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%Y-%m"))
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.set_ylabel("drop 1 - clean / original")
    ax.set_title("Drop by submission date (dots: submissions; bands: pooled per year)", fontsize=10)
    ax.legend(fontsize=7, loc="lower left")
    fig.autofmt_xdate()
    return figure_to_svg(fig)


# names used before they were public (kept for callers such as check/_page.py)
_pyplot = pyplot
_to_svg = figure_to_svg
