"""The sentences of the page that the bundle's facts fill in: the rule and its assumption, what
clean means at each cutoff, the inputs' screening, the coverage, the statistics."""

from __future__ import annotations

import pandas as pd

from ..flags import ASSUME_REPO_SEEN_REASON
from ..report import CVC_SENTENCE, DROP_SENTENCE
from ._facts import BuildFacts

RULE = ("An instance is contaminated for a model when its repository is in the model's training data "
        "(Stage I) AND the gold patch was present in the repository at the model's training cutoff "
        "(Stage II); clean when either says no; undecided otherwise (Stage II could not locate the "
        "changed code, e.g. rewritten or moved since). A submission built on several models: "
        "contaminated if any model's verdict is, clean only if every model's is.")
ASSUMPTION = (f"Assumption (--assume-repo-seen): Stage I is taken as true for every model, because "
              f"{ASSUME_REPO_SEEN_REASON}; Stage I cannot be run for closed models here. So "
              "'contaminated' here means 'patch present at the cutoff'.")
PRE_PATCH = ("Stage II's categories: 'present' (the fixed lines are in the snapshot: contaminated); "
             "'pre-patch-only' (the snapshot holds the unfixed code where the fix goes, so the fix "
             "is not there: clean -- also when the fix came years before the cutoff and the code was "
             "later rewritten back to something like the old lines); 'file-or-function-gone' and "
             "'refactored-inconclusive' (the changed code cannot be located, or only part of it: "
             "undecided); 'merged-after-cutoff' (not found, and the fix landed after the cutoff: "
             "clean).")
_VERIFIED_WHEN = ("SWE-bench Verified's fixes date from before mid-2023 (the latest pull-request "
                  "creation date among the 130 instances whose full fields are in the data is "
                  "2023-07-24; merge dates are not in the data).")
_SOURCE = {"git": "from git (the first default-branch commit holding the fix)",
           "release": "from releases (the first release holding the fix)"}
SENS_TEXT = ("Each row re-reads the same data one way, one sentence each (column 'what "
             "changes'); drops pooled over all tiers with their 95% intervals.")
SNAPSHOTS_FROM = {"git": "git (first-parent history at the cutoff)",
                  "release": "released sdists (the highest version uploaded by the cutoff)"}


def eras(facts: BuildFacts) -> str:
    """What 'clean' means at each cutoff, from when the fixes landed (``fix_dates``: each
    instance's own fix snapshot) where the run recorded it."""
    fix = facts.fix_dates or {}
    parts = [f"{fix[s]['n']} {_SOURCE[s]}: median {fix[s]['median']}, latest {fix[s]['latest']} "
             f"({fix[s]['latest_instance']})" for s in ("git", "release") if s in fix]
    verified = facts.benchmark_name == "swe-bench-verified"
    when = (f"When each fix landed is read at its own fix snapshot, known for {fix['n_known']} of "
            f"{fix['n']} instances: " + "; ".join(parts) + "." if parts else _VERIFIED_WHEN if verified
            else "When each fix landed is not recorded in this bundle (no own fix snapshot was read).")
    meaning = "what the paper means" if verified else "what it says"
    return ("What 'clean' means depends on the cutoff. " + when + " At a cutoff before an "
            f"instance's fix, 'clean' is {meaning}: the fix was not yet in the "
            "repository. At later cutoffs 'clean' means 'the fixed lines are not in the snapshot at "
            "the cutoff': the code was rewritten since, or the detector never found the fix present "
            "at any snapshot. Such instances test whether a model has seen *this* fix verbatim, not "
            "whether it could have seen the issue. " + PRE_PATCH)


def floor_words(facts: BuildFacts) -> str:
    fix = facts.fix_dates or {}
    latest = max((fix[s]["latest"] for s in ("git", "release") if s in fix), default=None)
    return facts.floor_basis + (f"; the latest fix landed {latest}" if latest
                                else "; merge dates are not in the data")


def not_covered(facts: BuildFacts) -> str:
    """The repositories not covered, each group with its reason (those ``--repos`` left out are
    not "not cloned")."""
    left_out = set(facts.left_out_repos)
    unfinished = set(facts.unfinished)
    uncloned = [r for r in facts.missing_repos if r not in left_out | unfinished]
    parts = [f"{', '.join(uncloned)} (no clone under --repos-dir)" if uncloned else "",
             f"{', '.join(sorted(unfinished))} (Stage II not run)" if unfinished else "",
             f"{', '.join(sorted(left_out))} (left out by --repos)" if left_out else ""]
    return "; ".join(p for p in parts if p) or "none"


def carried_over(facts: BuildFacts) -> bool:
    """The verdicts were read from an earlier bundle (Stage II not rerun)."""
    return facts.stage2.startswith("verdicts read from an earlier bundle")


def kind_text(inst: pd.DataFrame, facts: BuildFacts) -> str:
    """How many clean (submission, instance) pairs each why-clean kind holds, or why none."""
    clean = inst[(inst["scored_as"] == "published cutoff") & (inst["verdict"] == "clean")]
    kinds = clean["clean_kind"].value_counts().to_dict()
    if any(kinds):
        return ("Why each instance is clean (not merged at the cutoff / rewritten since / never "
                "found present) is recorded per (submission, instance) in instances.csv: "
                + ", ".join(f"{k} {v}" for k, v in kinds.items() if k) + ".")
    if carried_over(facts) or facts.benchmark_name == "swe-bench-verified":
        return ("Why each instance is clean (not merged / rewritten since / never found present) is "
                "not recorded in this bundle: its verdicts were carried over from the previous "
                "Stage II run, which did not record it (see CHANGELOG.md).")
    return ("Why each instance is clean (not merged / rewritten since / never found present) is "
            "not recorded in this bundle: the Stage II flags it was made from do not say (a "
            "republication that runs Stage II on clones records it).")


def flags_line(facts: BuildFacts) -> str:
    return (f"Flags: benchchecker.stage2 at each model's cutoff, merged with policy benchchecker "
            f"(Stage I assumed). Stage II: {facts.stage2}"
            + (f"; {facts.errors} of {facts.n_flags} Stage II flags are errors (undecided)."
               if facts.errors != "" else "."))


def coverage_text(per_inst: pd.DataFrame, facts: BuildFacts) -> str:
    n_cov, n_all = int(per_inst["covered"].sum()), len(per_inst)
    by_src = per_inst[per_inst["covered"]].groupby("snapshot_source").size().to_dict()
    return (f"Coverage: {n_cov} of {n_all} instances are covered: "
            f"{by_src.get('git', 0)} read from each project's git history, "
            f"{by_src.get('release', 0)} from its released sdists (no history: the highest "
            f"version uploaded by the cutoff); not covered: {not_covered(facts)}. "
            "Instances not covered are not undecided: they are left out. Every rate, count and "
            "drop is over the covered instances of each tier.")


def restricted_lines(facts: BuildFacts) -> list[str]:
    if facts.unfinished:
        return [f"**Partial: Stage II did not finish in time for {', '.join(facts.unfinished)}; "
                "their instances are counted as not covered here.**"]
    if facts.restricted:
        return ["**A restricted trial run (--repos / --submissions): not the full republication.**"]
    return []


def method_text(facts: BuildFacts, mde_sentence: str) -> str:
    return (f"{DROP_SENTENCE} {CVC_SENTENCE} Rates: 95% Wilson intervals; drops: 95% intervals "
            f"from a cluster bootstrap over instances stratified by tier ({facts.resamples} "
            f"resamples, seed {facts.seed}); a cell with fewer than {facts.min_clean} clean or "
            f"{facts.min_resolved_clean} resolved clean instances (distinct, for pooled cells) "
            f"reads 'too few (clean n, resolved n)'. {mde_sentence}")


def hygiene_text(facts: BuildFacts, cutoff_df: pd.DataFrame) -> str:
    noted = [f"{m}: {n}" for m, n in zip(cutoff_df["model"], cutoff_df["note"]) if n]
    lower = [m for m, k in zip(cutoff_df["model"], cutoff_df["kind"]) if str(k).startswith("derived")]
    of = (f"of the {facts.size} instances" if facts.size_label != "all"
          else "of the board's instances")
    return ("Inputs: a submission whose resolved count differs from the official leaderboard by "
            f"more than 2% {of} is not scored (listed under 'Not scored'); partial "
            "resolved lists are scored and named in the notes. Cutoffs are intervals: a source "
            "whose own words name part of a period is read as that part, and every cutoff is "
            "capped at the date of the model's earliest submission"
            + (f" ({'; '.join(noted)})" if noted else "") + "."
            + (f" Derived from a base model, so a lower bound of the real cutoff: "
               f"{', '.join(lower)}." if lower else ""))


def band_text(facts: BuildFacts) -> str:
    if not facts.bands:
        return ""
    return (f"Submissions without a published cutoff, or whose model is undisclosed "
            f"({len(facts.bands)}), are scored over their plausible interval: from "
            f"{facts.band_floor} ({floor_words(facts)}) to the submission's date, at the first "
            "and last computed snapshot inside it; shown as bands, pooled apart from the "
            "published-cutoff groups, and with them only as a sensitivity.")


def groups_text(facts: BuildFacts, n_scored: int) -> str:
    board = facts.board
    official = "" if not board else (
        f" The official {board.get('name', 'Verified')} board (leaderboards.json) has "
        f"{board['n_entries']} entries; {board['n_absent']} of them have no per-instance results "
        f"here, including {sum(not e['here'] for e in board['top10'])} of its own top 10 (below).")
    return (f"The top 10 here are the top 10 of the {n_scored} scored submissions (of the "
            f"{len(facts.submissions)} with per-instance results), by resolved of "
            f"{facts.size_label}.{official} Model "
            "families are explicit lists: Claude 4 = Sonnet 4 and Opus 4; Claude 4.5 = "
            "Sonnet 4.5 and Opus 4.5, its own row.")


def cutoffs_by_submission(inst: pd.DataFrame, cutoff_df: pd.DataFrame) -> dict[str, str]:
    snap = dict(zip(cutoff_df["model"], cutoff_df["snapshot at"]))
    return {s: "; ".join(snap.get(m, "") for m in str(models).split(";"))
            for s, models in inst.drop_duplicates("submission")[["submission", "models"]]
            .itertuples(index=False)}


def notes(facts: BuildFacts, coverage: str, hygiene: str) -> list[str]:
    text = band_text(facts)
    return (restricted_lines(facts) + [coverage, RULE, ASSUMPTION, hygiene] + ([text] if text else [])
            + [f"{name}: {mark} (scored as it is)." for name, mark in facts.marks.items()])

