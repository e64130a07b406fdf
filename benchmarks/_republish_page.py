"""The pages of ``republish_verified.py``: the paper-vs-ours tables and the published files."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from benchchecker_plugin.flags import ASSUME_REPO_SEEN_REASON
from benchchecker_plugin.report import (
    HtmlPage,
    display_drops,
    drop_by_tier_svg,
    timeline_svg,
    to_markdown,
    wide_summary,
    write_csv,
)
from benchchecker_plugin.report.html import write_text_atomic
from benchchecker_plugin.report.tables import pct, rate_formats
from benchchecker_plugin.scoring import timeline

HARD = "1-4 hours"
MEDIUM = "15 min - 1 hour"
_CLAUDE4 = re.compile(r"claude-(4|sonnet-4|opus-4)", re.I)
RULE = ("An instance is contaminated for a model when its repository is in the model's training data "
        "(Stage I) AND the gold patch was present in the repository at the model's training cutoff "
        "(Stage II); clean when either says no; undecided otherwise (Stage II could not locate the "
        "changed code, e.g. rewritten or moved since). A submission built on several models: "
        "contaminated if any model's verdict is, clean only if every model's is.")
ASSUMPTION = (f"Assumption (--assume-repo-seen): Stage I is taken as true for every model, because "
              f"{ASSUME_REPO_SEEN_REASON}; Stage I cannot be run for closed models here. So "
              "'contaminated' here means 'patch present at the cutoff'.")


def _drop_text(row: pd.Series) -> str:
    if str(row.get("note") or "").startswith("too few"):
        return f"too few (n={int(row['n_clean'])})"
    if row["n_clean"] == 0:
        return "no clean instance"
    if isinstance(row["relative_drop"], float) and math.isnan(row["relative_drop"]):
        return "undefined (original 0)"
    return (f"{pct(row['relative_drop'])} [{pct(row['drop_ci_low'])}, {pct(row['drop_ci_high'])}]")


def paper_tables(table: pd.DataFrame, compact: pd.DataFrame, subs: Sequence[Any],
                 cutoffs: Mapping[str, Any], min_clean: int, coverage: str) -> dict[str, pd.DataFrame]:
    """The four findings of the paper, recomputed on our flags, plus a one-line summary each."""
    rate500 = {r.submission: r.original_rate_500 for r in table[table["tier"] == "all"].itertuples()}
    allrows = table[table["tier"] == "all"].set_index("submission")
    hard = table[table["tier"] == HARD].set_index("submission")
    scored = set(allrows.index)
    # 1. top-10 submissions (500-instance original rate), drop on 1-4 h tasks
    ranked = sorted(subs, key=lambda s: -len(s.resolved))[:10]
    top = []
    for s in ranked:
        if s.name not in scored:
            top.append({"submission": s.name, "model": s.model, "resolved of 500": len(s.resolved),
                        "1-4 h covered": "", "1-4 h clean": "", "1-4 h original": "",
                        "1-4 h clean rate": "", "1-4 h drop [95% CI]": "not scored (model or cutoff unknown)"})
            continue
        if s.name not in hard.index:
            top.append({"submission": s.name, "model": s.model, "resolved of 500": len(s.resolved),
                        "1-4 h covered": 0, "1-4 h clean": 0, "1-4 h original": "",
                        "1-4 h clean rate": "", "1-4 h drop [95% CI]": "no covered 1-4 h instance"})
            continue
        r = hard.loc[s.name]
        top.append({"submission": s.name, "model": s.model, "resolved of 500": len(s.resolved),
                    "1-4 h covered": int(r["n_instances"]), "1-4 h clean": int(r["n_clean"]),
                    "1-4 h original": pct(r["original_rate"]), "1-4 h clean rate": pct(r["clean_rate"]),
                    "1-4 h drop [95% CI]": _drop_text(r)})
    top_df = pd.DataFrame(top)
    # 2. Claude-4 submissions, overall drop
    c4 = [s for s in subs if _CLAUDE4.search(s.model or "") and s.name in scored]
    c4_df = pd.DataFrame([{"submission": s.name, "model": s.model,
                           "covered": int(allrows.loc[s.name, "n_instances"]),
                           "clean": int(allrows.loc[s.name, "n_clean"]),
                           "original (covered)": pct(allrows.loc[s.name, "original_rate"]),
                           "original (500)": pct(rate500[s.name]),
                           "clean rate": pct(allrows.loc[s.name, "clean_rate"]),
                           "drop [95% CI]": _drop_text(allrows.loc[s.name])} for s in c4])
    # 3. discrepancy by submission year
    years = []
    for year in sorted({str(d)[:4] for d in allrows["date"] if str(d)[:4].isdigit()}):
        row: dict[str, Any] = {"year": year}
        for tier, label in (("all", "all tiers"), (MEDIUM, "15 min - 1 h")):
            part = table[(table["tier"] == tier) & (table["date"].astype(str).str[:4] == year)]
            ok = part["relative_drop"].dropna()
            row[f"{label}: submissions"] = len(part)
            row[f"{label}: with a drop"] = len(ok)
            row[f"{label}: mean drop"] = pct(ok.mean()) if len(ok) else "none (too few clean)"
        years.append(row)
    year_df = pd.DataFrame(years)
    # 4. share of covered instances flagged per model
    shares = []
    for model, cut in cutoffs.items():
        part = compact[compact["model"] == model]
        n = len(part)
        c = (part["contaminated"] == "true").sum()
        k = (part["contaminated"] == "false").sum()
        shares.append({"model": model, "cutoff": getattr(cut, "text", str(cut)), "covered": n,
                       "contaminated": pct(c / n) if n else "", "clean": pct(k / n) if n else "",
                       "undecided": pct((n - c - k) / n) if n else ""})
    share_df = pd.DataFrame(shares).sort_values(["cutoff", "model"]).reset_index(drop=True)
    summary = _summary(top_df, c4_df, year_df, share_df, min_clean, coverage)
    return {"summary": summary, "top10": top_df, "claude4": c4_df, "years": year_df, "shares": share_df}


def _summary(top: pd.DataFrame, c4: pd.DataFrame, years: pd.DataFrame, shares: pd.DataFrame,
             min_clean: int, coverage: str) -> pd.DataFrame:
    drops = top["1-4 h drop [95% CI]"]
    shown = drops[~drops.str.startswith(("too few", "not scored", "no c", "undefined"))]
    too_few = drops.str.startswith(("too few", "no clean")).sum()
    ours_top = (f"{len(shown)} of {len(top)} have a drop ({'; '.join(shown) or '-'}); {too_few} too few "
                f"clean 1-4 h instances (< {min_clean}); {drops.str.startswith('no covered').sum()} "
                f"no covered 1-4 h instance; {drops.str.startswith('not scored').sum()} not scored "
                "(model or cutoff unknown)")
    c4d = c4["drop [95% CI]"].tolist() if len(c4) else []
    ours_c4 = "; ".join(f"{s}: {d}" for s, d in zip(c4.get("submission", []), c4d)) or "no scored submission"
    ours_year = "; ".join(f"{r['year']}: {r['all tiers: mean drop']} (15-60 min: {r['15 min - 1 h: mean drop']})"
                          for _, r in years.iterrows())
    cont = shares["contaminated"].str.rstrip("%").astype(float)
    und = shares["undecided"].str.rstrip("%").astype(float)
    ours_share = (f"contaminated {cont.min():.0f}-{cont.max():.0f}% of covered instances per model, "
                  f"undecided {und.min():.0f}-{und.max():.0f}%")
    why_cov = f"{coverage}; "
    return pd.DataFrame([
        {"finding": "relative drop on 1-4 h tasks, top-10 submissions", "paper": "> 20% for every one",
         "ours": ours_top, "why ours differs": why_cov + "few 1-4 h instances are covered, most are "
         "undecided, so the clean tier is below the minimum and shows 'too few'"},
        {"finding": "overall drop, Claude-4 submissions", "paper": "8-11%", "ours": ours_c4,
         "why ours differs": why_cov + "at a 2025 cutoff almost every covered fix is present or undecided: "
         "the clean subset is small"},
        {"finding": "discrepancy by submission year", "paper": "42.5% (2023) -> 5.2% (2025); 15-60 min: 55.8% -> ~0",
         "ours": ours_year, "why ours differs": why_cov + "Stage I assumed true; undecided instances are "
         "left out of clean and contaminated; the mean is over submissions with a drop"},
        {"finding": "share of instances flagged per model", "paper": "(per model, in the paper's figures)",
         "ours": ours_share, "why ours differs": "Stage II only, on covered instances; undecided = changed "
         "code rewritten, moved or removed since, not settled by tests here"},
    ])


def _md(frame: pd.DataFrame) -> str:
    return to_markdown(frame.astype(object).where(frame.notna(), ""))


def write_pages(out: Path, table: pd.DataFrame, compact: pd.DataFrame, unscored: pd.DataFrame,
                by_repo: pd.DataFrame, paper: dict[str, pd.DataFrame], info: dict[str, Any]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    n_cov = int(by_repo["covered"].sum())
    n_all = len(by_repo)
    cov = by_repo.groupby("repo").agg(instances=("covered", "size"), covered=("covered", "sum")).reset_index()
    cov_tier = by_repo.groupby("tier").agg(instances=("covered", "size"), covered=("covered", "sum")).reset_index()
    flags_line = (f"Flags: benchchecker.stage2 at each model's cutoff, merged with policy benchchecker "
                  f"(Stage I assumed). Stage II: {info['stage2']}; {info['errors']} of {info['n_flags']} "
                  "Stage II flags are errors (undecided).")
    coverage = (f"Coverage: {n_cov} of {n_all} instances are covered (their repository was cloned); "
                f"not covered: {', '.join(info['missing_repos']) or 'none'}. Instances not covered are "
                "not undecided: they are left out. Every rate, count and drop is over the covered "
                "instances of each tier; original_rate_500 is the rate over all 500 instances.")
    restricted = []
    if info["unfinished"]:
        restricted.append(f"**Partial: Stage II did not finish in time for {', '.join(info['unfinished'])}; "
                          "their instances are counted as not covered here.**")
    elif info["restricted"]:
        restricted.append("**A restricted trial run (--repos / --submissions): not the full republication.**")
    method = (f"Rates: fraction resolved, 95% Wilson intervals; drop = (original - clean) / original on the "
              f"covered instances, 95% percentile bootstrap interval ({info['resamples']} resamples, "
              f"seed {info['seed']}); a tier with fewer than {info['min_clean']} clean instances shows "
              "'too few (n=...)' instead of a drop.")
    notes = restricted + [flags_line, coverage, RULE, ASSUMPTION, method]
    paths = [write_csv(table, out / "leaderboard.csv"), write_csv(compact, out / "flags.csv"),
             write_csv(unscored, out / "unscored.csv")]
    summary = wide_summary(table)
    summary.insert(3, "original (500)", table[table["tier"] == "all"]["original_rate_500"].to_numpy())
    md = (["# SWE-bench Verified re-scored without Stage II-contaminated instances", ""]
          + [f"- {n}" for n in notes] + ["", "## Paper vs ours", "", _md(paper["summary"]),
          "## Submissions (tier 'all' and per tier)", "", _md(display_drops(table)),
          "## Not scored: model or cutoff unknown", "", _md(unscored)])
    paths.append(write_text_atomic(out / "leaderboard.md", "\n".join(md)))
    readme = (["# SWE-bench Verified, republished with BenchChecker Stage II flags", ""] + restricted
              + ["## How it was made", "", f"- Command: `{info['command']}` (from the project root, "
                 "with the shared data at ../shared/data and full clones in the --repos-dir).",
                 f"- Date: {info['date']}; {info['versions']}.",
                 f"- Stage II: {info['stage2']}; {info['n_models']} models with a published cutoff; "
                 f"{len(info['unknown_models'])} without one ({', '.join(info['unknown_models'])}).",
                 f"- Runtime: {info['runtime']} (a 2-core machine).",
                 f"- {info['n_submissions']} submissions; {len(unscored)} not scored (model or cutoff "
                 "unknown, listed in `unscored.csv` with the reason).", "",
                 "## Rule and assumption", "", RULE, "", ASSUMPTION, "", "## Coverage", "", coverage, "",
                 _md(cov), _md(cov_tier), "## Paper vs ours", "", _md(paper["summary"]),
                 "### Top-10 submissions (by resolved of 500): 1-4 h tier", "", _md(paper["top10"]),
                 "### Claude-4 submissions: all tiers", "", _md(paper["claude4"]),
                 "### Mean relative drop by submission year", "", _md(paper["years"]),
                 "### Share of covered instances per verdict, per model", "", _md(paper["shares"]),
                 "## Files", "",
                 "- `leaderboard.csv`: one row per (submission, tier); columns as `benchchecker leaderboard` "
                 "writes them (over the covered instances) plus `n_instances_500`, `original_rate_500`.",
                 "- `leaderboard.md`, `index.html`: the same, readable; the page also has plots.",
                 "- `flags.csv`: one merged verdict per (covered instance, model): contaminated "
                 "(true / false / empty = undecided), score (Stage II's least matched-line similarity), "
                 "category (Stage II's).",
                 "- `unscored.csv`: submissions whose model or cutoff is unknown, with the reason.",
                 "", method, ""])
    paths.append(write_text_atomic(out / "README.md", "\n".join(readme)))
    page = HtmlPage("SWE-bench Verified re-scored without Stage II-contaminated instances")
    for n in notes:
        page.paragraph(n.strip("*"), note=n in restricted)
    page.heading("Paper vs ours")
    page.table(paper["summary"], sortable=False)
    for key, title in (("top10", "Top-10 submissions: 1-4 h tier"), ("claude4", "Claude-4 submissions"),
                       ("years", "Mean relative drop by submission year"),
                       ("shares", "Verdicts per model (covered instances)")):
        page.heading(title, level=3)
        page.table(paper[key].astype(object).where(paper[key].notna(), ""))
    page.heading("Coverage")
    page.table(cov)
    page.table(cov_tier)
    page.heading("Submissions")
    rate_cols = {c: pct for c in summary.columns
                 if c not in {"submission", "model", "date", "n clean", "n contaminated", "n undecided"}}
    page.table(summary, formats=rate_cols, table_id="submissions")
    page.heading("Not scored: model or cutoff unknown")
    page.table(unscored, formats={"original_rate_500": pct})
    if len(table):
        page.heading("Plots")
        page.figure(drop_by_tier_svg(table), caption="Relative drop per difficulty tier.")
        page.figure(timeline_svg(timeline(table)), caption="Mean relative drop by submission month.")
    page.heading("All rows (leaderboard.csv)")
    page.table(display_drops(table), table_id="long", formats=rate_formats(table))
    paths.append(page.write(out / "index.html"))
    return paths
