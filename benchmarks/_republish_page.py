"""The pages of ``republish_verified.py``: the paper-vs-ours tables and the published files.

Every aggregate here is a row of the pooled summary (``scoring.pooled_summary``: Mantel-Haenszel
over submission x tier strata, cluster-bootstrap intervals, distinct-instance minimums) -- never a
mean of per-submission ratios."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from benchchecker_plugin.flags import ASSUME_REPO_SEEN_REASON
from benchchecker_plugin.report import drop_text, pct, to_markdown, write_csv, write_leaderboard_report
from benchchecker_plugin.report._html import write_text_atomic
from benchchecker_plugin.report._leaderboard import CVC_SENTENCE, DROP_SENTENCE

HARD = "1-4 hours"
MEDIUM = "15 min - 1 hour"
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


def eras(info: Mapping[str, Any]) -> str:
    """What 'clean' means at each cutoff, from when the fixes landed (``build.json``'s
    ``fix_dates``: each instance's own fix snapshot) where the run recorded it."""
    fix = info.get("fix_dates") or {}
    parts = [f"{fix[s]['n']} {'from git (the first default-branch commit holding the fix)' if s == 'git' else 'from releases (the first release holding the fix)'}: "
             f"median {fix[s]['median']}, latest {fix[s]['latest']} ({fix[s]['latest_instance']})"
             for s in ("git", "release") if s in fix]
    when = (f"When each fix landed is read at its own fix snapshot, known for {fix['n_known']} of "
            f"{fix['n']} instances: " + "; ".join(parts) + "." if parts else
            "SWE-bench Verified's fixes date from before mid-2023 (the latest pull-request creation "
            "date among the 130 instances whose full fields are in the data is 2023-07-24; merge "
            "dates are not in the data).")
    return ("What 'clean' means depends on the cutoff. " + when + " At a cutoff before an "
            "instance's fix, 'clean' is what the paper means: the fix was not yet in the "
            "repository. At later cutoffs 'clean' means 'the fixed lines are not in the snapshot at "
            "the cutoff': the code was rewritten since, or the detector never found the fix present "
            "at any snapshot. Such instances test whether a model has seen *this* fix verbatim, not "
            "whether it could have seen the issue. " + PRE_PATCH)


def _cell(summary: pd.DataFrame, group: str, tier: str) -> pd.Series | None:
    rows = summary[(summary["group"] == group) & (summary["tier"] == tier)]
    return rows.iloc[0] if len(rows) else None


def _n(row: pd.Series | None) -> str:
    if row is None:
        return ""
    return (f"{int(row['n_submissions'])} submissions, {int(row['n_instances'])} instances, "
            f"clean n={int(row['n_clean'])}, resolved clean n={int(row['n_resolved_clean'])}")


def _sub_row(table: pd.DataFrame, sub: str, tier: str) -> pd.Series | None:
    rows = table[(table["submission"] == sub) & (table["tier"] == tier)]
    return rows.iloc[0] if len(rows) else None


def _pct_pts(x: float) -> str:
    return "" if x is None or pd.isna(x) else f"{100 * float(x):.0f} points"


def verdict_against(row: pd.Series | None, low: float, high: float) -> str:
    """``consistent`` when our 95% interval meets the paper's value (or range) ``[low, high]``,
    ``inconsistent`` when it does not, ``not testable`` when there is no interval (too few clean
    instances, or none could be drawn)."""
    if row is None or pd.isna(row["drop_ci_low"]) or pd.isna(row["drop_ci_high"]):
        return "not testable (no interval: too few clean instances)"
    if row["drop_ci_high"] < low or row["drop_ci_low"] > high:
        return "inconsistent (the paper's value is outside our interval)"
    return "consistent (the paper's value is inside our interval; not detectable at this power)" \
        if row["drop_ci_low"] <= 0 else "consistent (our interval excludes 0 and meets the paper's)"


def _mde(row: pd.Series | None) -> str:
    if row is None or "mde" not in row or pd.isna(row["mde"]):
        return ""
    return _pct_pts(row["mde"])


def paper_tables(table: pd.DataFrame, summary: pd.DataFrame, compact: pd.DataFrame,
                 subs: pd.DataFrame, cutoff_df: pd.DataFrame, build: Mapping[str, Any],
                 groups: Mapping[str, Sequence[str]], bands: Mapping[str, Any]) -> dict[str, Any]:
    """The paper's findings recomputed with the pooled estimator, each with its verdict."""
    from _republish_bundle import FAMILIES, top10_label

    scored = set(table["submission"])
    top_label = top10_label(len(scored))
    c4_label, c45_label = list(FAMILIES)
    top = []
    for name in groups.get(top_label, []):
        r = _sub_row(table, name, HARD)
        meta = subs.set_index("submission").loc[name]
        top.append({"submission": name, "model": meta["models"],
                    "resolved of 500": int(meta["resolved_of_500"]),
                    "1-4 h clean n": int(r["n_clean"]) if r is not None else "",
                    "1-4 h original": pct(r["original_rate"]) if r is not None else "",
                    "1-4 h clean": pct(r["clean_rate"]) if r is not None else "",
                    "1-4 h drop [95% CI]": drop_text(r) if r is not None else ""})
    board = pd.DataFrame([{"rank": k + 1, "entry": e["name"], "resolved": f"{e['resolved %']:.1f}%",
                           "date": e["date"], "per-instance results here": "yes" if e["here"] else
                           "no", "scored here": "yes" if e["scored"] else "no"}
                          for k, e in enumerate(build["board"]["top10"])])
    fam_rows = []
    for label, members in ((c4_label, groups.get(c4_label, [])), (c45_label, groups.get(c45_label, []))):
        for name in members:
            r = _sub_row(table, name, "all")
            if r is not None:
                fam_rows.append({"family": label.split(" (")[0], "submission": name,
                                 "model": r["model"], "clean n": int(r["n_clean"]),
                                 "original": pct(r["original_rate"]), "clean": pct(r["clean_rate"]),
                                 "drop [95% CI]": drop_text(r), "MDE": _mde(r)})
    years = []
    for group in [g for g in groups if re.fullmatch(r"\d{4}", str(g))]:
        a, m = _cell(summary, group, "all"), _cell(summary, group, MEDIUM)
        assert a is not None
        years.append({"year": group, "submissions": int(a["n_submissions"]),
                      "clean n": int(a["n_clean"]), "resolved clean n": int(a["n_resolved_clean"]),
                      "original": pct(a["original_rate"]), "clean": pct(a["clean_rate"]),
                      "clean (tier-std.)": pct(a["clean_rate_std"]),
                      "undecided rate": pct(a["undecided_rate"]), "drop [95% CI]": drop_text(a),
                      "MDE": _mde(a),
                      "clean vs contaminated [95% CI]": drop_text(a, "clean_vs_contaminated",
                                                                  "cvc_ci_low", "cvc_ci_high"),
                      "15-60 min: clean n": int(m["n_clean"]) if m is not None else "",
                      "15-60 min: drop [95% CI]": drop_text(m) if m is not None else "",
                      "15-60 min: MDE": _mde(m)})
    year_df = pd.DataFrame(years)
    shares = []
    snap = dict(zip(cutoff_df["model"], cutoff_df["snapshot at"]))
    for model, part in compact.groupby("model", sort=False):
        n = len(part)
        c = int((part["contaminated"] == "true").sum())
        k = int((part["contaminated"] == "false").sum())
        shares.append({"model": model, "snapshot at": snap.get(str(model), ""), "covered": n,
                       "contaminated share": pct(c / n) if n else "",
                       "clean share": pct(k / n) if n else "",
                       "undecided share": pct((n - c - k) / n) if n else ""})
    share_df = pd.DataFrame(shares).sort_values(["snapshot at", "model"]).reset_index(drop=True)
    rows = []
    th, c4 = _cell(summary, top_label, HARD), _cell(summary, c4_label, "all")
    rows.append({"finding": "relative drop on 1-4 h tasks, top-10 submissions",
                 "paper": "> 20% for every one",
                 "ours": f"{top_label}, 1-4 h pooled: {drop_text(th) if th is not None else '-'} "
                         f"({_n(th)})", "MDE": _mde(th),
                 "verdict": verdict_against(th, 0.20, 10.0),
                 "note": "not the paper's top 10: none of the board's top 10 has per-instance "
                         "results here (see 'Groups as they are')"})
    rows.append({"finding": "overall drop, Claude 4 submissions", "paper": "8-11%",
                 "ours": f"{c4_label}: {drop_text(c4) if c4 is not None else '-'} ({_n(c4)})",
                 "MDE": _mde(c4), "verdict": verdict_against(c4, 0.08, 0.11),
                 "note": "Claude 4.5 is its own row ('Model families')"})
    paper_year = {"2023": (0.425, 0.425, "42.5%", 0.558, "55.8%"), "2025": (0.052, 0.052, "5.2%", 0.0, "~0")}
    for y in [g for g in groups if re.fullmatch(r"\d{4}", str(g))]:
        a, m = _cell(summary, y, "all"), _cell(summary, y, MEDIUM)
        if y in paper_year:
            lo, hi, text, med, med_text = paper_year[y]
            rows.append({"finding": f"drop, {y} submissions", "paper": text,
                         "ours": f"{drop_text(a)} ({_n(a)})", "MDE": _mde(a),
                         "verdict": verdict_against(a, lo, hi), "note": ""})
            rows.append({"finding": f"drop on 15-60 min tasks, {y} submissions", "paper": med_text,
                         "ours": drop_text(m) if m is not None else "-", "MDE": _mde(m),
                         "verdict": verdict_against(m, med, med), "note": ""})
        else:
            rows.append({"finding": f"drop, {y} submissions", "paper": "(no figure for this year)",
                         "ours": f"{drop_text(a)} ({_n(a)})", "MDE": _mde(a),
                         "verdict": "not testable (no paper figure)", "note": ""})
    cont = share_df["contaminated share"].str.rstrip("%").astype(float)
    rows.append({"finding": "share of instances flagged per model", "paper": "(per model, in the "
                 "paper's figures)", "ours": f"contaminated share {cont.min():.0f}-{cont.max():.0f}% "
                 "per model", "MDE": "", "verdict": "not testable (no figure to compare)", "note": ""})
    band_df = _band_table(bands, build)
    return {"summary": pd.DataFrame(rows), "top10": pd.DataFrame(top), "board": board,
            "families": pd.DataFrame(fam_rows), "years": year_df, "shares": share_df,
            "bands": band_df}


def _band_table(bands: Mapping[str, Any], build: Mapping[str, Any]) -> pd.DataFrame:
    if not bands:
        return pd.DataFrame()
    (t0, s0), (t1, s1) = bands["verdict_band_start"], bands["verdict_band_end"]
    rows = []
    for name, b in build["bands"].items():
        r0, r1 = _sub_row(t0, name, "all"), _sub_row(t1, name, "all")
        if r0 is None or r1 is None:
            continue
        rows.append({"submission": name, "model": b["models"], "band": f"{b['start']} .. {b['end']}",
                     "clean n (start / end)": f"{int(r0['n_clean'])} / {int(r1['n_clean'])}",
                     "drop at start [95% CI]": drop_text(r0), "drop at end [95% CI]": drop_text(r1)})
    g0, g1 = _cell(s0, "without a published cutoff", "all"), _cell(s1, "without a published cutoff", "all")
    rows.append({"submission": "pooled (these submissions)", "model": "", "band": "",
                 "clean n (start / end)": f"{int(g0['n_clean'])} / {int(g1['n_clean'])}" if g0 is not None and g1 is not None else "",
                 "drop at start [95% CI]": drop_text(g0) if g0 is not None else "",
                 "drop at end [95% CI]": drop_text(g1) if g1 is not None else ""})
    return pd.DataFrame(rows)


SENS_GROUPS = ("all submissions", "2024", "2025")
# why-clean kinds (stage2.why_clean.CleanKind values) and what each says of the fix
CLEAN_KINDS = {"rewritten-since": "found present at an earlier snapshot after its merge and is "
                                  "absent at the cutoff (rewritten since)",
               "never-found": "never found present at any snapshot after its merge",
               "not-merged": "not yet merged at the cutoff"}


def sensitivity_table(pub: pd.DataFrame, band: pd.DataFrame, groups: Mapping[str, Sequence[str]],
                      build: Mapping[str, Any], score: Any) -> pd.DataFrame:
    """The pooled drops (all submissions, 2024, 2025; all tiers) under other readings of the
    same data, each with the sentence saying what changed."""
    want = {g: list(groups[g]) for g in SENS_GROUPS if g in groups}

    def cells(frame: pd.DataFrame, covered: set[str] | None = None,
              extra: Mapping[str, Sequence[str]] | None = None) -> dict[str, str]:
        _, summ = score(frame, "verdict", dict(extra or want), build, covered=covered)
        out = {}
        for g in (extra or want):
            r = _cell(summ, g, "all")
            out[g] = f"{drop_text(r)} (clean n={int(r['n_clean'])})" if r is not None else ""
        return out

    rows = [{"reading": "as published", "what changes": "the verdicts as published", **cells(pub)}]
    for word in ("clean", "contaminated"):
        alt = pub.assign(verdict=pub["verdict"].replace({"undecided": word}))
        rows.append({"reading": f"undecided as {word}",
                     "what changes": f"every undecided instance is counted {word}"
                     + ("" if word == "clean" else " (the drop compares clean with all instances, "
                        "so it cannot move; only clean vs contaminated would)"), **cells(alt)})
    is_clean = pub["verdict"] == "clean"
    for kind, meaning in CLEAN_KINDS.items():
        n_kind = int((is_clean & (pub["clean_kind"] == kind)).sum())
        if n_kind and n_kind < int(is_clean.sum()):
            alt = pub.assign(verdict=pub["verdict"].where(~is_clean | (pub["clean_kind"] == kind),
                                                          "undecided"))
            rows.append({"reading": f"clean = {kind} only ({n_kind} of {int(is_clean.sum())} clean "
                                    "pairs)",
                         "what changes": f"only the clean instances whose fix was {meaning} count "
                                         "as clean; the other clean ones are set aside (undecided)",
                         **cells(alt)})
    ids_by = {k: set(pub.loc[pub["snapshot_source"] == k, "instance_id"]) for k in ("git", "release")}
    for k, label in (("git", "git-read projects only"), ("release", "sdist-read projects only")):
        repos = sorted(set(pub.loc[pub["snapshot_source"] == k, "repo"]))
        if ids_by[k]:
            rows.append({"reading": f"{label} (split post hoc)",
                         "what changes": f"only the {len(repos)} projects read from "
                                         f"{'git history' if k == 'git' else 'release sdists'} "
                                         f"({', '.join(r.split('/')[1] for r in repos)}); chosen "
                                         "after looking at the data: a lead, not a finding",
                         **cells(pub, covered=ids_by[k])})
    loo: dict[str, list[tuple[float, str]]] = {g: [] for g in want}
    for repo in sorted(set(pub["repo"])):
        keep = set(pub.loc[pub["repo"] != repo, "instance_id"])
        _, summ = score(pub, "verdict", want, build, covered=keep)
        for g in want:
            r = _cell(summ, g, "all")
            if r is not None and pd.notna(r["relative_drop"]):
                loo[g].append((float(r["relative_drop"]), repo.split("/")[1]))
    rows.append({"reading": "leave one repository out (range)",
                 "what changes": "each of the repositories left out in turn: the lowest and highest "
                                 "pooled drop, and which repository's absence gives it",
                 **{g: (f"{pct(min(v)[0])} (without {min(v)[1]}) .. {pct(max(v)[0])} "
                        f"(without {max(v)[1]})" if v else "") for g, v in loo.items()}})
    if len(band):
        names = list(dict.fromkeys(band["submission"]))
        for end, word in (("verdict_band_start", "start"), ("verdict_band_end", "end")):
            both = pd.concat([pub, band.assign(verdict=band[end], scored_as="published cutoff")])
            merged = {g: want[g] + [n for n in names if g == "all submissions"
                                    or _year(band, n) == g] for g in want}
            rows.append({"reading": f"with the {len(names)} submissions without a published cutoff, "
                                    f"at their interval's {word}",
                         "what changes": "the submissions without a published cutoff (or with the "
                                         f"model undisclosed) join their groups, scored at the "
                                         f"{word} of their plausible interval",
                         **cells(both, extra=merged)})
    return pd.DataFrame(rows)


def _year(band: pd.DataFrame, name: str) -> str:
    return str(band.loc[band["submission"] == name, "date"].iloc[0])[:4]


_PAPER_SMALL = (("2025", "5.2% for 2025", 0.052, 0.052), (None, "8-11% for Claude 4", 0.08, 0.11))


def _paper_sentence(summary: pd.DataFrame, c4: str) -> str:
    """Where the paper's smaller drops fall against our intervals, read from them
    (:func:`verdict_against`), never assumed."""
    inside, outside, untestable = [], [], []
    for group, text, low, high in _PAPER_SMALL:
        verdict = verdict_against(_cell(summary, group or c4, "all"), low, high)
        (inside if verdict.startswith("consistent") else outside if verdict.startswith("inconsistent")
         else untestable).append(text)
    out = []
    if inside:
        out.append(f"the paper's {' and '.join(inside)} lie{'s' if len(inside) == 1 else ''} inside our "
                   "intervals: not detectable at this power, neither confirmed nor refuted")
    if outside:
        out.append(f"the paper's {' and '.join(outside)} lie{'s' if len(outside) == 1 else ''} outside "
                   "our intervals: inconsistent with this data")
    if untestable:
        out.append(f"the paper's {' and '.join(untestable)} cannot be tested here (no interval)")
    return "; ".join(out) + "."


def headline(summary: pd.DataFrame, groups: Mapping[str, Sequence[str]], n_scored: int,
             inst: pd.DataFrame) -> str:
    """The page's first paragraph: the conclusion, its power, what clean means."""
    from _republish_bundle import FAMILIES

    c4 = list(FAMILIES)[0]
    keys = [("all submissions", f"all {n_scored} scored submissions"), ("2024", "2024"),
            ("2025", "2025"), (c4, "Claude 4")]
    parts, mdes, detected = [], [], []
    for g, label in keys:
        r = _cell(summary, g, "all")
        if r is None:
            continue
        parts.append(f"{label} {drop_text(r)}")
        if pd.notna(r.get("mde", float("nan"))):
            mdes.append(f"{100 * float(r['mde']):.0f} points ({label})")
        if pd.notna(r["drop_ci_low"]) and (r["drop_ci_low"] > 0 or r["drop_ci_high"] < 0):
            detected.append(label)
    clean = inst[(inst["scored_as"] == "published cutoff") & (inst["verdict"] == "clean")]
    kinds = clean["clean_kind"].value_counts()
    kind_text = ("clean (submission, instance) pairs by why-clean kind: "
                 + ", ".join(f"{k} {v}" for k, v in kinds.items()) if all(kinds.index) else
                 "which of these each clean instance is, is not recorded in this edition: see the "
                 "changelog")
    conclusion = ("Removing the instances whose fix was in the repository at the model's training "
                  "cutoff moves no pooled resolution rate detectably" if not detected else
                  "Removing the instances whose fix was in the repository at the model's training "
                  f"cutoff gives a pooled drop whose interval excludes 0 for {', '.join(detected)}")
    return (f"{conclusion}: pooled relative drops (95% interval) {'; '.join(parts)}. "
            "This data can detect only large drops: the minimum detectable drop at 80% power is "
            f"{', '.join(mdes)}, so no drop above those is supported; {_paper_sentence(summary, c4)} "
            "'Clean' here means Stage II did not find the fix's lines in the snapshot at "
            "the cutoff; at cutoffs after mid-2023 almost every fix was already merged, so clean "
            "instances are mostly fixes rewritten since or never found by the detector, not fixes "
            f"not yet written ({kind_text}).")


def _floor_words(info: Mapping[str, Any]) -> str:
    fix = info.get("fix_dates") or {}
    latest = max((fix[s]["latest"] for s in ("git", "release") if s in fix), default=None)
    said = ("the latest pull-request creation date among the 130 instances with full fields, a "
            "stated bound")
    return said + (f"; the latest fix landed {latest}" if latest else "; merge dates are not in the data")


def _md(frame: pd.DataFrame) -> str:
    return to_markdown(frame.astype(object).where(frame.notna(), ""))


def _not_covered(info: dict[str, Any]) -> str:
    """The repositories not covered, each group with its reason (issue 29: the ones --repos left
    out read as "not covered (their repository was cloned)")."""
    left_out = set(info.get("left_out_repos", ()))
    unfinished = set(info.get("unfinished", ()))
    uncloned = [r for r in info["missing_repos"] if r not in left_out | unfinished]
    parts = [f"{', '.join(uncloned)} (no clone under --repos-dir)" if uncloned else "",
             f"{', '.join(sorted(unfinished))} (Stage II not run)" if unfinished else "",
             f"{', '.join(sorted(left_out))} (left out by --repos)" if left_out else ""]
    return "; ".join(p for p in parts if p) or "none"


def write_pages(out: Path, table: pd.DataFrame, summary: pd.DataFrame, compact: pd.DataFrame,
                unscored: pd.DataFrame, inst: pd.DataFrame, paper: dict[str, Any],
                info: Mapping[str, Any], cutoff_df: pd.DataFrame, sens: pd.DataFrame,
                snapshots: pd.DataFrame, mde_sentence: str) -> list[Path]:
    from _republish_bundle import groups_of
    from _republish_recall import present_before_fix, recall_parts

    out.mkdir(parents=True, exist_ok=True)
    per_inst = inst.drop_duplicates("instance_id")
    covered_ids = set(inst.loc[(inst["verdict"] != "not covered") | (inst["scored_as"] == "band"),
                               "instance_id"])
    per_inst = per_inst.assign(covered=per_inst["instance_id"].isin(covered_ids))
    cov = per_inst.groupby("repo").agg(instances=("covered", "size"), covered=("covered", "sum"),
                                       source=("snapshot_source", "first")).reset_index()
    described = {"git": "git (first-parent history at the cutoff)",
                 "release": "released sdists (the highest version uploaded by the cutoff)"}
    cov["snapshots from"] = [described.get(k, k) if c else "not covered"
                             for k, c in zip(cov["source"], cov["covered"])]
    cov = cov.drop(columns="source")
    cov_tier = per_inst.groupby("tier").agg(instances=("covered", "size"),
                                            covered=("covered", "sum")).reset_index()
    n_cov, n_all = int(per_inst["covered"].sum()), len(per_inst)
    by_src = per_inst[per_inst["covered"]].groupby("snapshot_source").size().to_dict()
    flags_line = (f"Flags: benchchecker.stage2 at each model's cutoff, merged with policy benchchecker "
                  f"(Stage I assumed). Stage II: {info['stage2']}"
                  + (f"; {info['errors']} of {info['n_flags']} Stage II flags are errors (undecided)."
                     if info["errors"] != "" else "."))
    coverage = (f"Coverage: {n_cov} of {n_all} instances are covered: "
                f"{by_src.get('git', 0)} read from each project's git history, "
                f"{by_src.get('release', 0)} from its released sdists (no history: the highest "
                f"version uploaded by the cutoff); not covered: {_not_covered(dict(info))}. "
                "Instances not covered are not undecided: they are left out. Every rate, count and "
                "drop is over the covered instances of each tier.")
    restricted = []
    if info["unfinished"]:
        restricted.append(f"**Partial: Stage II did not finish in time for {', '.join(info['unfinished'])}; "
                          "their instances are counted as not covered here.**")
    elif info["restricted"]:
        restricted.append("**A restricted trial run (--repos / --submissions): not the full republication.**")
    noted = [f"{m}: {n}" for m, n in zip(cutoff_df["model"], cutoff_df["note"]) if n]
    lower = [m for m, k in zip(cutoff_df["model"], cutoff_df["kind"]) if k.startswith("derived")]
    method = (f"{DROP_SENTENCE} {CVC_SENTENCE} Rates: 95% Wilson intervals; drops: 95% intervals "
              f"from a cluster bootstrap over instances stratified by tier ({info['resamples']} "
              f"resamples, seed {info['seed']}); a cell with fewer than {info['min_clean']} clean or "
              f"{info['min_resolved_clean']} resolved clean instances (distinct, for pooled cells) "
              f"reads 'too few (clean n, resolved n)'. {mde_sentence}")
    hygiene = ("Inputs: a submission whose resolved count differs from the official leaderboard by "
               "more than 2% of the 500 instances is not scored (listed under 'Not scored'); partial "
               "resolved lists are scored and named in the notes. Cutoffs are intervals: a source "
               "whose own words name part of a period is read as that part, and every cutoff is "
               "capped at the date of the model's earliest submission"
               + (f" ({'; '.join(noted)})" if noted else "") + "."
               + (f" Derived from a base model, so a lower bound of the real cutoff: "
                  f"{', '.join(lower)}." if lower else ""))
    bands = info.get("bands", {})
    band_text = (f"Submissions without a published cutoff, or whose model is undisclosed "
                 f"({len(bands)}), are scored over their plausible interval: from "
                 f"{info['band_floor']} ({_floor_words(info)}) to the submission's date, at the first "
                 "and last computed snapshot inside it; shown as bands, pooled apart from the "
                 "published-cutoff groups, and with them only as a sensitivity.") if bands else ""
    clean = inst[(inst["scored_as"] == "published cutoff") & (inst["verdict"] == "clean")]
    kinds = clean["clean_kind"].value_counts().to_dict()
    kind_text = ("Why each instance is clean (not merged at the cutoff / rewritten since / never "
                 "found present) is recorded per (submission, instance) in instances.csv: "
                 + ", ".join(f"{k} {v}" for k, v in kinds.items() if k) + "."
                 if any(kinds) and any(k for k in kinds) else
                 "Why each instance is clean (not merged / rewritten since / never found present) is "
                 "not recorded in this bundle: its verdicts were carried over from the previous "
                 "Stage II run, which did not record it (see CHANGELOG.md).")
    notes = restricted + [coverage, RULE, ASSUMPTION, hygiene] + ([band_text] if band_text else []) \
        + [f"{name}: {mark} (scored as it is)." for name, mark in info["marks"].items()]
    excluded = list(zip(unscored["submission"], unscored["reason"]))
    cutoffs_by_sub = {}
    snap = dict(zip(cutoff_df["model"], cutoff_df["snapshot at"]))
    for s, models in inst.drop_duplicates("submission")[["submission", "models"]].itertuples(index=False):
        cutoffs_by_sub[s] = "; ".join(snap.get(m, "") for m in str(models).split(";"))
    board = info["board"]
    n_scored = table["submission"].nunique()
    groups_text = (f"The top 10 here are the top 10 of the {n_scored} scored submissions (of the "
                   f"{len(info['submissions'])} with per-instance results), by resolved of 500. The "
                   f"official Verified board (leaderboards.json) has {board['n_entries']} entries; "
                   f"{board['n_absent']} of them have no per-instance results here, including "
                   f"{sum(not e['here'] for e in board['top10'])} of its own top 10 (below). Model "
                   "families are explicit lists: Claude 4 = Sonnet 4 and Opus 4; Claude 4.5 = "
                   "Sonnet 4.5 and Opus 4.5, its own row.")
    sens_text = ("Each row re-reads the same data one way, one sentence each (column 'what "
                 "changes'); drops pooled over all tiers with their 95% intervals.")
    lead = headline(summary, groups_of(pd.DataFrame(info["submissions"]).loc[
        lambda d: d["submission"].isin(set(table["submission"]))]), n_scored, inst)
    extra: list[tuple[str, Any]] = [
        ("Paper vs ours", paper["summary"]),
        ("Sensitivity", sens_text), ("Sensitivity of the pooled drops", sens),
        ("By submission year (pooled within tiers)", paper["years"]),
        ("Groups as they are", groups_text),
        (f"Top 10 of the {n_scored} scored submissions: 1-4 h tier", paper["top10"]),
        ("The official board's top 10", paper["board"]),
        ("Model families: each submission (all tiers, stratified)", paper["families"]),
        ("What 'clean' means at each cutoff", eras(info) + " " + kind_text),
        ("Verdicts per model: share of covered instances", paper["shares"]),
    ]
    recall = recall_parts(out)
    early = present_before_fix(out)
    if recall is not None and recall[2]:
        lead = f"{lead} {recall[2]}"
    if recall is not None:
        extra += [("Detector check: recall at each instance's own fix snapshot", recall[0]),
                  ("Misses at the own fix snapshot", recall[1])]
    if early is not None:
        extra += [("Found present before the fix landed", early[0])] + \
            ([("Present before the fix landed: the instances", early[1])] if len(early[1]) else [])
    if len(paper["bands"]):
        extra.append(("Submissions without a published cutoff: drops as bands", paper["bands"]))
    extra += [("Training cutoffs and snapshot dates", cutoff_df),
              ("Coverage by repository", cov), ("Coverage by tier", cov_tier)]
    paths = list(write_leaderboard_report(
        table, out, title="SWE-bench Verified re-scored without Stage II-contaminated instances",
        notes=notes, flags_line=flags_line, summary=summary, excluded=excluded,
        cutoffs=cutoffs_by_sub, extra=extra, lead=lead).values())
    paths.append(write_csv(sens, out / "sensitivity.csv"))
    readme = (["# SWE-bench Verified, republished with BenchChecker Stage II flags", "",
               f"**{lead}**", ""] + restricted
              + ["## How it was made", "", f"- Command: `{info['command']}` (from the project root, "
                 "with the shared data at ../shared/data).",
                 "- Rebuild every table and page from this folder alone: `python "
                 "benchmarks/republish_verified.py --rebuild published/swebench-verified --out "
                 "DIR` (reads only the bundle files listed below; a test checks it gives these "
                 "files).",
                 f"- Date: {info['date']}; {info['versions']}.", f"- Data: {info['data']}.",
                 f"- Stage II: {info['stage2']}; {info['n_models']} models with a published cutoff; "
                 f"{len(info['unknown_models'])} without one ({', '.join(info['unknown_models'])}).",
                 f"- {info['n_submissions']} submissions; {n_scored} scored at a published cutoff, "
                 f"{len(bands)} over a plausible interval (bands), {len(unscored)} not scored "
                 "(`unscored.csv`, with the reason).", "",
                 "## Statistics", "", method, "",
                 "Every figure over several submissions (a year, the top 10, a model family) pools "
                 "their counts within difficulty tiers (Mantel-Haenszel over submission x tier "
                 "strata): a submission resting on 3 clean instances weighs by its counts, not as one "
                 "ratio among equals. Submissions share instances, so intervals resample instances "
                 "(a drawn instance brings every submission's result on it) and counts are of "
                 "distinct instances.", "",
                 "## Rule, assumption and inputs", "", RULE, "", ASSUMPTION, "", hygiene, "",
                 band_text, "", eras(info), "", kind_text, "", "## Coverage", "", coverage, "", _md(cov),
                 _md(cov_tier), "## Paper vs ours", "", _md(paper["summary"]),
                 *(["## Detector check: recall at each instance's own fix snapshot", "",
                    recall[0], "", _md(recall[1])] if recall is not None else []),
                 *(["### Found present before the fix landed", "", early[0], "",
                    *([_md(early[1])] if len(early[1]) else [])] if early is not None else []),
                 "## Sensitivity", "", sens_text, "", _md(sens),
                 "### By submission year (pooled within tiers)", "", _md(paper["years"]),
                 "## Groups as they are", "", groups_text, "",
                 f"### Top 10 of the {n_scored} scored submissions: 1-4 h tier", "",
                 _md(paper["top10"]), "### The official board's top 10", "", _md(paper["board"]),
                 "### Model families (all tiers, stratified)", "", _md(paper["families"]),
                 "### Verdicts per model: share of covered instances", "", _md(paper["shares"]),
                 *(["### Submissions without a published cutoff: drops as bands", "",
                    _md(paper["bands"])] if len(paper["bands"]) else []),
                 "### Training cutoffs and snapshot dates", "", _md(cutoff_df),
                 "## Files", "",
                 "The bundle (inputs of every figure): `instances.csv` (one row per instance and "
                 "scored submission: repository, tier, models, date, resolved, verdict, the band "
                 "verdicts of submissions without a published cutoff, why-clean kind, snapshot "
                 "source and id), `flags.csv` (one merged verdict per covered instance and model: "
                 "contaminated true / false / empty = undecided, Stage II score and category), "
                 "`snapshots.csv` ((repository, model) -> snapshot source and date, commit or sdist "
                 "version + sha256 + upload time where the Stage II run recorded them), "
                 "`cutoffs.csv`, `unscored.csv`, `build.json` (the run's facts), `CHANGELOG.md`, "
                 "`LICENSE-DATA.md`.", "",
                 "Rebuilt from it: `leaderboard.csv` (one row per submission and tier), "
                 "`summary.csv` (pooled over groups and tiers, with the distinct instances each "
                 "figure rests on and its MDE), `sensitivity.csv`, `leaderboard.md`, `index.html`, "
                 "this README.", ""])
    paths.append(write_text_atomic(out / "README.md", "\n".join(readme)))
    return paths
