"""The published re-scored leaderboard: ``leaderboard.csv``, ``leaderboard.md``, ``index.html``
and ``README.md`` (what the CSV's columns mean, which flags it rests on)."""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from ..flags import MERGED_METHOD, ContaminationFlag
from ..scoring.rates import timeline
from .html import HtmlPage, write_text_atomic
from .plots import drop_by_tier_svg, timeline_svg
from .tables import display_drops, pct, rate_formats, to_markdown, wide_summary, write_csv

__all__ = ["describe_flags", "write_leaderboard_report"]

_COLUMNS = {
    "submission, model, date": "the submission, the model(s) behind it, its date",
    "tier": "difficulty tier ('all': every instance)",
    "n_instances": "instances of the tier (the denominator of original_rate)",
    "n_clean, n_contaminated, n_undecided": "instances by verdict for the submission's model "
                                            "(undecided: the methods could not decide, or no flag)",
    "original_rate, clean_rate, contaminated_rate": "fraction resolved among all / clean / "
                                                    "contaminated instances of the tier",
    "*_ci_low, *_ci_high": "interval of the rate or drop before it: Wilson score for the rates, "
                           "percentile bootstrap (paired over submissions) for the drop",
    "relative_drop": "(original_rate - clean_rate) / original_rate; empty when undefined or when "
                     "the tier has too few clean instances (see note)",
    "note": "why a drop is empty, e.g. 'too few clean instances (n=4 < 10)'",
}


def describe_flags(flags: Iterable[ContaminationFlag]) -> str:
    """One line naming the methods whose flags a leaderboard shows, with their record counts:
    ``Flags: benchchecker.patch_date (16000 records, 32 models), benchchecker.stage2 (500
    records, any model)``; merged flags also name their policy and input methods."""
    counts: Counter[str] = Counter()
    models: dict[str, set[str]] = defaultdict(set)
    merged_of: set[str] = set()
    policies: set[str] = set()
    for f in flags:
        counts[f.method] += 1
        models[f.method].add(f.model)
        if f.method == MERGED_METHOD:
            policies.add(str(f.evidence.get("policy", "?")))
            merged_of.update(k.split("@")[0] for k in f.evidence.get("methods", {}))
    if not counts:
        return "Flags: none (every instance is undecided)"
    parts = []
    for method in sorted(counts):
        named = sorted(models[method] - {"*"})
        who = (f"{len(named)} model{'s' if len(named) != 1 else ''}" if named else "any model")
        extra = ""
        if method == MERGED_METHOD:
            extra = f"; policy {', '.join(sorted(policies))} of {', '.join(sorted(merged_of))}"
        parts.append(f"{method} ({counts[method]} records, {who}{extra})")
    line = "Flags: " + ", ".join(parts)
    if len(counts) > 1:
        line += "; combined per instance and model with policy any"
    return line


def _method_text(table: pd.DataFrame) -> str:
    ci = float(table.attrs.get("ci", 0.95))
    min_clean = int(table.attrs.get("min_clean", 0))
    text = (f"Rates are fractions of the tier's instances resolved, each with a {ci:.0%} Wilson "
            f"score interval; drop = (original - clean) / original, with a {ci:.0%} percentile "
            "bootstrap interval.")
    if min_clean:
        text += (f" A tier with fewer than {min_clean} clean instances shows 'too few (n=...)' "
                 "instead of a drop.")
    return text


def write_leaderboard_report(table: pd.DataFrame, out_dir: str | os.PathLike[str], *,
                             title: str = "Leaderboard re-scored without contaminated instances",
                             notes: Sequence[str] = (), flags_line: str = "") -> dict[str, Path]:
    """Write the files of a rate table into ``out_dir``; returns ``{kind: path}``.

    ``flags_line`` (e.g. from :func:`describe_flags`) says which methods' flags the rates rest on;
    it heads the Markdown, the HTML page and the README. The HTML page is self-contained: a
    sortable table with one row per submission (original vs clean rate per tier, drop and its
    interval), plots of the drop per tier and over time, and the full long table. ``README.md``
    describes the CSV's columns for readers of ``leaderboard.csv`` alone.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    head = [flags_line, ""] if flags_line else []
    method = _method_text(table)
    paths = {"csv": write_csv(table, out / "leaderboard.csv")}
    md = ([f"# {title}", ""] + head + [method, ""] + [f"- {n}" for n in notes]
          + ["", to_markdown(display_drops(table)), "",
             "## Mean relative drop by submission month (tier: all)", "",
             to_markdown(timeline(table))])
    paths["md"] = write_text_atomic(out / "leaderboard.md", "\n".join(md))
    readme = ([f"# {title}: files", ""] + head
              + ["- `leaderboard.csv`: one row per submission and tier (full precision; empty cell "
                 "= undefined).", "- `leaderboard.md`: the same table in Markdown.",
                 "- `index.html`: a self-contained page with a sortable summary and plots.", "",
                 method, ""] + [f"- {n}" for n in notes]
              + ["", "## Columns of leaderboard.csv", ""]
              + [f"- `{k}`: {v}" for k, v in _COLUMNS.items()] + [""])
    paths["readme"] = write_text_atomic(out / "README.md", "\n".join(readme))

    page = HtmlPage(title)
    if flags_line:
        page.paragraph(flags_line)
    for note in notes:
        page.paragraph(note, note=True)
    page.heading("Submissions")
    page.paragraph(method + " Click a column to sort.")
    summary = wide_summary(table)
    not_rates = {"submission", "model", "date", "n clean", "n contaminated", "n undecided"}
    rate_cols = {c: pct for c in summary.columns if c not in not_rates}
    page.table(summary, formats=rate_cols, table_id="submissions")
    if len(table):
        page.heading("Plots")
        page.figure(drop_by_tier_svg(table), caption="Relative drop per difficulty tier.")
        page.figure(timeline_svg(timeline(table)), caption="Mean relative drop by submission month.")
    page.heading("All rows (leaderboard.csv)")
    page.table(display_drops(table), table_id="long", formats=rate_formats(table))
    paths["html"] = page.write(out / "index.html")
    return paths
