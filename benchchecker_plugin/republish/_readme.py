"""The bundle's README: how it was made and rebuilt, the statistics, the rule and its inputs, the
coverage and every table of the page in Markdown, and what each file holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..report import to_markdown
from ._words import ASSUMPTION, RULE, SENS_TEXT, band_text, eras, method_text, restricted_lines

if TYPE_CHECKING:
    from ._page import Scored

POOLING = ("Every figure over several submissions (a year, the top 10, a model family) pools "
           "their counts within difficulty tiers (Mantel-Haenszel over submission x tier "
           "strata): a submission resting on 3 clean instances weighs by its counts, not as one "
           "ratio among equals. Submissions share instances, so intervals resample instances "
           "(a drawn instance brings every submission's result on it) and counts are of "
           "distinct instances.")
FILES = ("The bundle (inputs of every figure): `instances.csv` (one row per instance and "
         "scored submission: repository, tier, models, date, resolved, verdict, the band "
         "verdicts of submissions without a published cutoff, why-clean kind, snapshot "
         "source and id), `flags.csv` (one merged verdict per covered instance and model: "
         "contaminated true / false / empty = undecided, Stage II score and category), "
         "`snapshots.csv` ((repository, model) -> snapshot source and date, commit or sdist "
         "version + sha256 + upload time where the Stage II run recorded them), "
         "`cutoffs.csv`, `unscored.csv`, `build.json` (the run's facts), `CHANGELOG.md`, "
         "`LICENSE-DATA.md`.")
REBUILT = ("Rebuilt from it: `leaderboard.csv` (one row per submission and tier), "
           "`summary.csv` (pooled over groups and tiers, with the distinct instances each "
           "figure rests on and its MDE), `sensitivity.csv`, `leaderboard.md`, `index.html`, "
           "this README.")
REBUILD = ("- Rebuild every table and page from this folder alone: `benchchecker republish "
           "--rebuild {folder} --out DIR` (reads only the bundle files listed below; a test "
           "checks it gives these files).")


def _md(frame: pd.DataFrame) -> str:
    return to_markdown(frame.astype(object).where(frame.notna(), ""))


def _made(scored: Scored) -> list[str]:
    facts = scored.facts
    where = (" (from the project root, with the shared data at ../shared/data)"
             if facts.command.startswith("python benchmarks/") else "")
    folder = "published/swebench-verified" if where else "<this folder>"
    n_bands, n_unscored = len(facts.bands), len(scored.bundle.unscored)
    return ["## How it was made", "", f"- Command: `{facts.command}`{where}.",
            REBUILD.format(folder=folder),
            f"- Date: {facts.date}; {facts.versions}.", f"- Data: {facts.data}.",
            f"- Stage II: {facts.stage2}; {facts.n_models} models with a published cutoff; "
            f"{len(facts.unknown_models)} without one"
            + (f" ({', '.join(facts.unknown_models)})." if facts.unknown_models else "."),
            f"- {facts.n_submissions} submissions; {scored.n_scored} scored at a published cutoff, "
            f"{n_bands} over a plausible interval (bands), {n_unscored} not scored "
            "(`unscored.csv`, with the reason).", ""]


def _checks(parts: Mapping[str, Any]) -> list[str]:
    recall, early = parts["recall"], parts["early"]
    out = []
    if recall is not None:
        out += ["## Detector check: recall at each instance's own fix snapshot", "", recall[0], "",
                _md(recall[1])]
    if early is not None:
        out += ["### Found present before the fix landed", "", early[0], "",
                *([_md(early[1])] if len(early[1]) else [])]
    return out


def _groups(scored: Scored, parts: Mapping[str, Any]) -> list[str]:
    out = ["## Groups as they are", "", parts["groups_text"], "",
           f"### Top 10 of the {scored.n_scored} scored submissions: {parts['hard'][1]} tier", "",
           _md(parts["top10"])]
    if scored.facts.board:
        out += ["### The official board's top 10", "", _md(parts["board"])]
    out += ["### Model families (all tiers, stratified)", "", _md(parts["families"]),
            "### Verdicts per model: share of covered instances", "", _md(parts["shares"])]
    if len(parts["bands"]):
        out += ["### Submissions without a published cutoff: drops as bands", "", _md(parts["bands"])]
    return out + ["### Training cutoffs and snapshot dates", "", _md(scored.bundle.cutoffs)]


def readme_text(scored: Scored, parts: Mapping[str, Any]) -> str:
    """The README of the page, as one text."""
    facts = scored.facts
    paper = ["## Paper vs ours", "", _md(parts["paper"])] if scored.paper else []
    boards = (["## Boards: each and their pool", "", _md(parts["boards"])]
              if facts.boards else [])
    lines = ([f"# {facts.display_title}, republished with BenchChecker Stage II flags", "",
              f"**{parts['lead']}**", ""] + restricted_lines(facts) + _made(scored)
             + ["## Statistics", "", method_text(facts, scored.mde_sentence), "", POOLING, "",
                "## Rule, assumption and inputs", "", RULE, "", ASSUMPTION, "", parts["hygiene"], "",
                band_text(facts), "", eras(facts), "", parts["kind_text"], "", "## Coverage", "",
                parts["coverage"], "", _md(parts["cov"]), _md(parts["cov_tier"])]
             + paper + boards + _checks(parts)
             + ["## Sensitivity", "", SENS_TEXT, "", _md(scored.sensitivity), "### By submission year (pooled within tiers)", "",
                _md(parts["years"])] + _groups(scored, parts)
             + ["## Files", "", FILES, "", REBUILT, ""])
    return "\n".join(lines)
