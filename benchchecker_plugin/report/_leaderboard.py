"""The published re-scored leaderboard: ``leaderboard.csv`` (one row per submission and tier),
``summary.csv`` (pooled over groups of submissions), ``leaderboard.md``, ``index.html`` and
``README.md`` (what the columns mean, which flags it rests on).

The page is read as leaderboards are: the main table first (submission, model, original %,
clean %, drop with its interval, clean n), sortable; then the pooled summary; plots with their
n and intervals, outliers clipped and marked, a real time axis; long tables folded."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from ..atomic import atomic_file_set, write_text_atomic
from ..flags import MERGED_METHOD, ContaminationFlag, tally_flags
from ._cells import markdown_text
from ._html import HtmlPage
from ._plots import drop_by_tier_svg, drop_over_time_svg
from ._tables import (
    display_drops,
    main_table,
    pct,
    rate_formats,
    summary_display,
    to_markdown,
    write_csv,
)

#: the files :func:`write_leaderboard_report` writes into its folder
LEADERBOARD_FILES = ("README.md", "index.html", "leaderboard.csv", "leaderboard.md", "summary.csv")

DROP_SENTENCE = ("Drop: how much lower the clean resolution rate is than the original one, "
                 "1 - clean / original, compared within each difficulty tier and pooled "
                 "(Mantel-Haenszel), so a clean set of easier tasks does not read as a negative drop.")
CVC_SENTENCE = ("Clean vs contaminated: how much lower the clean rate is than the contaminated "
                "one, 1 - clean / contaminated, within tiers the same way; undecided instances "
                "(no verdict) are in neither and have their own rate.")

_COLUMNS = {
    "submission, model, date": "the submission, the model(s) behind it, its date",
    "tier": "difficulty tier ('all': every instance)",
    "n_instances": "instances of the tier (the denominator of original_rate)",
    "n_clean, n_resolved_clean, n_contaminated, n_undecided": "instances by verdict for the "
        "submission's model (undecided: the methods could not decide, or no flag)",
    "original_rate, clean_rate, contaminated_rate, undecided_rate": "fraction resolved among all "
        "/ clean / contaminated / undecided instances of the tier",
    "clean_rate_std": "clean rate standardised to the tier mix of all instances",
    "*_ci_low, *_ci_high": "interval of the value before it: Wilson score for the rates, "
                           "cluster bootstrap over instances (stratified by tier) for the drops",
    "relative_drop": "1 - clean / original; on the 'all' row stratified by tier (Mantel-Haenszel); "
                     "empty when undefined or too few (see note)",
    "clean_vs_contaminated (cvc_*)": "1 - clean / contaminated, the same way",
    "note": "why a value is empty, e.g. 'too few (clean n=4, resolved n=2)', or why an interval "
            "could not be drawn",
}


def describe_flags(flags: Iterable[ContaminationFlag]) -> str:
    """One line naming the methods whose flags a leaderboard shows, with their record counts:
    ``Flags: benchchecker.patch_date (16000 records, 32 models), benchchecker.stage2 (500
    records, any model)``; merged flags also name their policy and input methods. ``flags``:
    records, or a :class:`~benchchecker_plugin.flags.FlagColumns` (counted without reading them)."""
    tally = tally_flags(flags)
    counts, models = tally.counts, tally.models
    policies, merged_of = tally.policies, tally.merged_of
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
    min_res = int(table.attrs.get("min_resolved_clean", 0))
    text = (f"{DROP_SENTENCE} {CVC_SENTENCE} Rates have {ci:.0%} Wilson score intervals; drops "
            f"{ci:.0%} intervals from a cluster bootstrap over instances (a drawn instance brings "
            "every submission's result on it).")
    if min_clean or min_res:
        text += (f" A cell with fewer than {min_clean} clean or {min_res} resolved clean instances "
                 "reads 'too few (clean n, resolved n)' instead of a drop.")
    return text


def write_leaderboard_report(table: pd.DataFrame, out_dir: str | os.PathLike[str], *,
                             title: str = "Leaderboard re-scored without contaminated instances",
                             notes: Sequence[str] = (), flags_line: str = "",
                             summary: pd.DataFrame | None = None,
                             excluded: Sequence[tuple[str, str]] = (),
                             cutoffs: dict[str, str] | None = None,
                             extra: Sequence[tuple[str, pd.DataFrame | str]] = (),
                             lead: str = "") -> dict[str, Path]:
    """Write the files of a rate table (and its pooled ``summary``) into ``out_dir``, all
    together (:func:`~benchchecker_plugin.atomic.atomic_file_set`: a run killed while writing
    leaves the previous set whole); returns ``{kind: path}``.

    ``flags_line`` (e.g. from :func:`describe_flags`) says which methods' flags the rates rest on;
    it heads the Markdown, the HTML page and the README. ``excluded``: ``(submission, reason)`` of
    the submissions not scored; ``cutoffs``: ``{submission: cutoff}`` for the main table;
    ``extra``: ``(heading, table or paragraph)`` sections after the pooled summary; ``lead``: the
    headline paragraph (the conclusion and its power), first on every page.
    """
    with atomic_file_set(out_dir, tag="leaderboard") as stage:
        staged = _write_files(stage, table, title=title, notes=notes, flags_line=flags_line,
                              summary=summary, excluded=excluded, cutoffs=cutoffs, extra=extra,
                              lead=lead)
    return {kind: Path(out_dir) / path.name for kind, path in staged.items()}


def _write_files(out: Path, table: pd.DataFrame, *, title: str, notes: Sequence[str],
                 flags_line: str, summary: pd.DataFrame | None,
                 excluded: Sequence[tuple[str, str]], cutoffs: dict[str, str] | None,
                 extra: Sequence[tuple[str, pd.DataFrame | str]], lead: str = "") -> dict[str, Path]:
    # names in the notes and the flags line come from files (a submission folder's name, a flags
    # file's methods): escaped; ``lead`` and ``extra`` paragraphs are the caller's own Markdown
    head = ([f"**{lead}**", ""] if lead else []) + ([markdown_text(flags_line), ""] if flags_line else [])
    md_notes = [f"- {markdown_text(n)}" for n in notes]
    md_title = markdown_text(title)
    method = _method_text(table)
    paths = {"csv": write_csv(table, out / "leaderboard.csv")}
    if summary is not None:
        paths["summary"] = write_csv(summary, out / "summary.csv")
    main, labels = main_table(table, cutoffs)
    main_md = main.copy()
    for col in main_md.columns:
        if col in labels:
            main_md[col] = labels[col]
        elif main_md[col].dtype.kind == "f" and col != "clean n":
            main_md[col] = [pct(v) for v in main_md[col]]
    md = [f"# {md_title}", ""] + head + [method, ""] + md_notes + [
        "", "## Submissions", "", to_markdown(main_md)]
    if summary is not None and len(summary):
        pooled, plabels = summary_display(summary)
        for col in pooled.columns:
            if col in plabels:
                pooled[col] = plabels[col]
            elif pooled[col].dtype.kind == "f":
                pooled[col] = [pct(v) for v in pooled[col]]
        md += ["## Pooled over submissions (tier-stratified; not a mean of ratios)", "",
               to_markdown(pooled)]
    for heading, body in extra:
        md += [f"## {heading}", "", to_markdown(body) if isinstance(body, pd.DataFrame) else body, ""]
    if excluded:
        md += ["## Not scored", "", to_markdown(pd.DataFrame(list(excluded),
                                                             columns=["submission", "reason"]))]
    paths["md"] = write_text_atomic(out / "leaderboard.md", "\n".join(md))
    readme = ([f"# {md_title}: files", ""] + head
              + ["- `leaderboard.csv`: one row per submission and tier (full precision; empty cell "
                 "= undefined).", "- `summary.csv`: pooled over groups of submissions (all, each "
                 "year) and tiers, with the distinct instances each figure rests on.",
                 "- `leaderboard.md`: the main tables in Markdown.",
                 "- `index.html`: a self-contained page: sortable main table, pooled summary, plots.",
                 "", method, ""] + md_notes
              + ["", "## Columns of leaderboard.csv", ""]
              + [f"- `{k}`: {v}" for k, v in _COLUMNS.items()] + [""])
    paths["readme"] = write_text_atomic(out / "README.md", "\n".join(readme))
    paths["html"] = _page(title, table, summary, excluded, main, labels, notes, flags_line,
                          method, extra, lead).write(out / "index.html")
    return paths


def _page(title: str, table: pd.DataFrame, summary: pd.DataFrame | None,
          excluded: Sequence[tuple[str, str]], main: pd.DataFrame, labels: dict[str, list[str]],
          notes: Sequence[str], flags_line: str, method: str,
          extra: Sequence[tuple[str, pd.DataFrame | str]] = (), lead: str = "") -> HtmlPage:
    page = HtmlPage(title)
    if lead:
        page.paragraph(lead, lead=True)
    if flags_line:
        page.paragraph(flags_line)
    page.paragraph(method)
    page.heading("Submissions")
    page.paragraph("One row per submission, all tiers. Click a column to sort.")
    fmt = {c: pct for c in main.columns if main[c].dtype.kind == "f" and c != "clean n"}
    page.table(main, formats=fmt, labels=labels, table_id="submissions",
               narrow=["submission", "original", "clean", "drop [95% CI]", "MDE"])
    if summary is not None and len(summary):
        page.heading("Pooled over submissions")
        page.paragraph("Each figure pools the counts of its submissions, tier by tier "
                       "(Mantel-Haenszel): not a mean of per-submission ratios. Instances are "
                       "shared across submissions; n counts distinct instances.")
        pooled, plabels = summary_display(summary)
        page.table(pooled, formats={c: pct for c in pooled.columns if pooled[c].dtype.kind == "f"},
                   labels=plabels, table_id="pooled",
                   narrow=["group", "clean n", "drop [95% CI]", "MDE"])
        tiers = [t for t in dict.fromkeys(summary["tier"]) if t != "all"]
        for tier in tiers:
            part, plab = summary_display(summary, tier)
            page.table(part, formats={c: pct for c in part.columns if part[c].dtype.kind == "f"},
                       labels=plab, collapsed=f"Pooled, tier {tier}")
    for heading, body in extra:
        page.heading(heading)
        if isinstance(body, pd.DataFrame):
            page.table(body, sortable=False)
        else:
            for para in body.split("\n\n"):
                page.paragraph(para)
    page.heading("Plots")
    group = str(summary["group"].iloc[0]) if summary is not None and len(summary) else ""
    by_tier = drop_by_tier_svg(summary, group) if group else None
    if by_tier:
        page.figure(by_tier, caption=f"Pooled drop per tier ({group}), with 95% intervals and the "
                                     "distinct clean / resolved clean instances behind each bar.")
    else:
        page.paragraph("No per-tier plot: no tier has enough clean instances for a drop.")
    over = drop_over_time_svg(table, summary)
    if over:
        page.figure(over, caption="Each submission's drop by its date, with 95% intervals; "
                                  "the axis is scaled to the data, outliers beyond it clipped to its "
                                  "edge and marked (triangles); pooled per-year drops as bands.")
    else:
        page.paragraph("No time plot: no dated submission has a drop.")
    if excluded:
        page.heading("Not scored")
        page.table(pd.DataFrame(list(excluded), columns=["submission", "reason"]))
    if notes:
        page.heading("Notes")
        for note in notes:
            page.paragraph(note, note=True)
    page.heading("All rows")
    page.table(display_drops(table), table_id="long", formats=rate_formats(table),
               collapsed=f"Every submission and tier ({len(table)} rows, leaderboard.csv)")
    return page
