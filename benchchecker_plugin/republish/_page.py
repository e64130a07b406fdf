"""The page of a bundle: the tables and pages rebuilt from it alone (``leaderboard.csv``,
``summary.csv``, ``sensitivity.csv``, ``leaderboard.md``, ``index.html``, ``README.md``), the
headline first: the conclusion with its power."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..atomic import write_text_atomic
from ..report import drop_text, write_csv, write_leaderboard_report
from ._bundle import Bundle
from ._facts import BuildFacts
from ._groups import ALL, FAMILIES, POOL, bands, groups_of, mde_config, score
from ._paper import PAPER_BENCHMARK, paper_sentence, paper_summary
from ._readme import readme_text
from ._recall import present_before_fix, recall_parts
from ._sensitivity import sensitivity_table
from ._tables import (
    HARD_TIERS,
    MEDIUM_TIERS,
    band_table,
    board_table,
    boards_table,
    cell,
    families_table,
    pick_tier,
    shares_table,
    top10_table,
    years_of,
    years_table,
)
from ._words import (
    SENS_TEXT,
    SNAPSHOTS_FROM,
    coverage_text,
    cutoffs_by_submission,
    eras,
    flags_line,
    groups_text,
    hygiene_text,
    kind_text,
    notes,
)


@dataclass(frozen=True)
class Scored:
    """A bundle scored: the rate table and pooled summary of the submissions at a published
    cutoff, their groups, the bands of the others, the sensitivity table, the MDE sentence."""

    bundle: Bundle
    table: pd.DataFrame
    summary: pd.DataFrame
    groups: dict[str, list[str]]
    bands: dict[str, Any]
    sensitivity: pd.DataFrame
    mde_sentence: str

    @property
    def facts(self) -> BuildFacts:
        return self.bundle.facts

    @property
    def n_scored(self) -> int:
        return int(self.table["submission"].nunique())

    @property
    def paper(self) -> bool:
        """The paper's findings apply (one board of SWE-bench Verified)."""
        return self.facts.benchmark_name == PAPER_BENCHMARK and not self.facts.boards


def score_bundle(bundle: Bundle, *, mde_sims: int | None = None) -> Scored:
    """Every figure of the page from ``bundle``; ``mde_sims`` instead of the bundle's (0: none)."""
    facts = bundle.facts
    pub, band = bundle.published, bundle.banded
    subs = bundle.submissions
    groups = groups_of(subs[subs["submission"].isin(set(pub["submission"]))], facts.size_label)
    cfg = mde_config(facts, mde_sims)   # --mde-sims 0: no minimum detectable drop (a quick try)
    mde_sentence = cfg.sentence() if cfg is not None else "MDE: not computed in this run (--mde-sims 0)."
    table, summary = score(pub, "verdict", groups, facts, mde=cfg)
    full = pub.drop_duplicates(["submission", "instance_id"])
    whole = full.groupby("submission")["resolved"].agg(["size", "mean"])
    table[f"n_instances_{facts.size_label}"] = table["submission"].map(whole["size"])
    table[f"original_rate_{facts.size_label}"] = table["submission"].map(whole["mean"])
    table.attrs.update(ci=0.95, min_clean=int(facts.min_clean),
                       min_resolved_clean=int(facts.min_resolved_clean), mde=mde_sentence)
    return Scored(bundle, table, summary, groups, bands(band, facts) if len(band) else {},
                  sensitivity_table(pub, band, groups, facts), mde_sentence)


def headline(scored: Scored) -> str:
    """The page's first paragraph: the conclusion, its power, what clean means."""
    summary, groups = scored.summary, scored.groups
    keys = [(ALL, f"all {scored.n_scored} scored submissions"),
            *((y, y) for y in years_of(groups)[-2:]), (list(FAMILIES)[0], "Claude 4"), (POOL, POOL)]
    parts, mdes, detected = [], [], []
    for g, label in keys:
        r = cell(summary, g, "all")
        if r is None:
            continue
        parts.append(f"{label} {drop_text(r)}")
        if pd.notna(r.get("mde", float("nan"))):
            mdes.append(f"{100 * float(r['mde']):.0f} points ({label})")
        if pd.notna(r["drop_ci_low"]) and (r["drop_ci_low"] > 0 or r["drop_ci_high"] < 0):
            detected.append(label)
    inst = scored.bundle.instances
    clean = inst[(inst["scored_as"] == "published cutoff") & (inst["verdict"] == "clean")]
    kinds = clean["clean_kind"].value_counts()
    kind = ("clean (submission, instance) pairs by why-clean kind: "
            + ", ".join(f"{k} {v}" for k, v in kinds.items()) if all(kinds.index) else
            "which of these each clean instance is, is not recorded in this edition: see the "
            "changelog" if scored.paper else "which of these each clean instance is, is not recorded")
    removing = ("Removing the instances whose fix was in the repository at the model's training "
                "cutoff")
    conclusion = (f"{removing} moves no pooled resolution rate detectably" if not detected else
                  f"{removing} gives a pooled drop whose interval excludes 0 for {', '.join(detected)}")
    if scored.paper and mdes:
        power = ("This data can detect only large drops: the minimum detectable drop at 80% power "
                 f"is {', '.join(mdes)}, so no drop above those is supported;")
        return (f"{conclusion}: pooled relative drops (95% interval) {'; '.join(parts)}. {power} "
                f"{paper_sentence(summary)} 'Clean' here means Stage II did not find the fix's lines "
                "in the snapshot at the cutoff; at cutoffs after mid-2023 almost every fix was "
                "already merged, so clean instances are mostly fixes rewritten since or never found "
                f"by the detector, not fixes not yet written ({kind}).")
    power = (f"The minimum detectable drop at 80% power is {', '.join(mdes)}: a smaller drop would "
             "likely go unseen." if mdes else "No minimum detectable drop could be estimated (too few clean "
             "instances)." if scored.facts.mde_sims else "The minimum detectable drop was not "
             "computed (--mde-sims 0).")
    sentence = paper_sentence(summary) if scored.paper else ""
    paper = f"{sentence[0].upper()}{sentence[1:]} " if sentence else ""
    return (f"{conclusion}: pooled relative drops (95% interval) {'; '.join(parts)}. {power} {paper}"
            "'Clean' here means Stage II did not find the fix's lines in the snapshot at the "
            f"cutoff ({kind}).")


def coverage_tables(inst: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """One row per instance (covered or not), and coverage by repository and by tier."""
    per_inst = inst.drop_duplicates("instance_id")
    covered_ids = set(inst.loc[(inst["verdict"] != "not covered") | (inst["scored_as"] == "band"),
                               "instance_id"])
    per_inst = per_inst.assign(covered=per_inst["instance_id"].isin(covered_ids))
    cov = per_inst.groupby("repo").agg(instances=("covered", "size"), covered=("covered", "sum"),
                                       source=("snapshot_source", "first")).reset_index()
    cov["snapshots from"] = [SNAPSHOTS_FROM.get(k, k) if c else "not covered"
                             for k, c in zip(cov["source"], cov["covered"])]
    cov = cov.drop(columns="source")
    cov_tier = per_inst.groupby("tier").agg(instances=("covered", "size"),
                                            covered=("covered", "sum")).reset_index()
    return per_inst, cov, cov_tier


def _sections(scored: Scored, parts: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The page's sections after the pooled summary, in order."""
    n = scored.n_scored
    out: list[tuple[str, Any]] = [("Paper vs ours", parts["paper"])] if scored.paper else []
    if scored.facts.boards:
        out.append(("Boards: each and their pool (shared instances are one cluster)", parts["boards"]))
    out += [("Sensitivity", SENS_TEXT), ("Sensitivity of the pooled drops", scored.sensitivity),
            ("By submission year (pooled within tiers)", parts["years"]),
            ("Groups as they are", parts["groups_text"]),
            (f"Top 10 of the {n} scored submissions: {parts['hard'][1]} tier", parts["top10"])]
    if scored.facts.board:
        out.append(("The official board's top 10", parts["board"]))
    out += [("Model families: each submission (all tiers, stratified)", parts["families"]),
            ("What 'clean' means at each cutoff", eras(scored.facts) + " " + parts["kind_text"]),
            ("Verdicts per model: share of covered instances", parts["shares"])]
    recall, early = parts["recall"], parts["early"]
    if recall is not None:
        out += [("Detector check: recall at each instance's own fix snapshot", recall[0]),
                ("Misses at the own fix snapshot", recall[1])]
    if early is not None:
        out += [("Found present before the fix landed", early[0])] + \
            ([("Present before the fix landed: the instances", early[1])] if len(early[1]) else [])
    if len(parts["bands"]):
        out.append(("Submissions without a published cutoff: drops as bands", parts["bands"]))
    return out + [("Training cutoffs and snapshot dates", scored.bundle.cutoffs),
                  ("Coverage by repository", parts["cov"]), ("Coverage by tier", parts["cov_tier"])]


def page_parts(scored: Scored) -> dict[str, Any]:
    """The tables and paragraphs of the page, each once (the HTML and the README share them)."""
    bundle, facts = scored.bundle, scored.facts
    tiers = list(dict.fromkeys(bundle.instances["tier"]))
    hard, medium = pick_tier(tiers, HARD_TIERS), pick_tier(tiers, MEDIUM_TIERS)
    per_inst, cov, cov_tier = coverage_tables(bundle.instances)
    shares = shares_table(bundle.flags, bundle.cutoffs)
    recall = recall_parts(bundle.recall)
    lead = headline(scored)
    parts: dict[str, Any] = {
        "hard": hard, "cov": cov, "cov_tier": cov_tier, "shares": shares,
        "coverage": coverage_text(per_inst, facts), "hygiene": hygiene_text(facts, bundle.cutoffs),
        "kind_text": kind_text(bundle.instances, facts), "groups_text": groups_text(facts, scored.n_scored),
        "top10": top10_table(scored.table, bundle.submissions, scored.groups, facts, hard),
        "board": board_table(facts), "families": families_table(scored.table, scored.groups),
        "years": years_table(scored.summary, scored.groups, medium),
        "boards": boards_table(scored.summary, facts, medium),
        "bands": band_table(scored.bands, facts), "recall": recall,
        "early": present_before_fix(bundle.recall, bundle.flags, bundle.cutoffs),
        "lead": f"{lead} {recall[2]}" if recall is not None and recall[2] else lead}
    if scored.paper:
        parts["paper"] = paper_summary(scored.summary, scored.groups, scored.n_scored, shares,
                                       hard[0], medium[0])
    return parts


def write_pages(scored: Scored, out: Path) -> list[Path]:
    """The page's files into ``out``; returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    bundle, facts = scored.bundle, scored.facts
    parts = page_parts(scored)
    unscored = bundle.unscored
    paths = list(write_leaderboard_report(
        scored.table, out, title=f"{facts.display_title} re-scored without Stage II-contaminated instances",
        notes=notes(facts, parts["coverage"], parts["hygiene"]), flags_line=flags_line(facts),
        summary=scored.summary, excluded=list(zip(unscored["submission"], unscored["reason"])),
        cutoffs=cutoffs_by_submission(bundle.instances, bundle.cutoffs),
        extra=_sections(scored, parts), lead=parts["lead"]).values())
    paths.append(write_csv(scored.sensitivity, out / "sensitivity.csv"))
    paths.append(write_text_atomic(out / "README.md", readme_text(scored, parts)))
    return paths


def render(bundle: Bundle, out: Path, *, mde_sims: int | None = None) -> list[Path]:
    """Score ``bundle`` and write its page into ``out``."""
    return write_pages(score_bundle(bundle, mde_sims=mde_sims), out)

