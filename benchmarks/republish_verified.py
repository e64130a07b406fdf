"""Republish the SWE-bench Verified leaderboard without the instances Stage II flags, beside the
paper's findings.

    python benchmarks/republish_verified.py --repos-dir CLONES            # what is cloned there
    python benchmarks/republish_verified.py --repos-dir CLONES --fetch    # clone the missing first
    python benchmarks/republish_verified.py --repos-dir CLONES --releases-dir RELEASES  # + release snapshots

What it does, in order (library calls, no subprocess):

1. reads the 500 instances (``swebench_verified/swebench_verified_composite.jsonl``, with their
   difficulty tiers), the submissions (``swebench_experiments/``) and the model of each
   submission with its training cutoff (``model_cutoffs/submission_models.csv``), all under
   ``--data-dir`` (default ``../shared/data`` next to the project);
2. with ``--fetch``, clones the instances' repositories into ``--repos-dir`` (``benchchecker repos
   fetch``; ``--source`` is its URL template). An instance whose repository is not cloned there is
   **not covered**: it gets no flag and is left out of every rate (it is *not* undecided);
3. runs Stage II (was the gold patch in the repository at the cutoff?) for every covered
   instance at every submission model's cutoff in one run (``run_stage2``);
4. merges with policy ``benchchecker``: contaminated = Stage I (repository in the training data)
   AND Stage II (patch present). Stage I cannot be run for closed models here, so it is *assumed*
   true (``--assume-repo-seen``: these repositories are among the most-starred on GitHub);
5. screens the inputs (``leaderboard.hygiene``): a submission whose resolved count differs from
   the official ``leaderboards.json`` by more than 2% of the instances is not scored; partial
   resolved lists are marked; a cutoff stated as a period (claude-2's "Early 2023") is capped at
   the date of the earliest submission built on the model, before Stage II runs;
6. re-scores every submission on the covered instances of each tier (original, clean,
   contaminated and undecided rates with Wilson intervals; the drop 1 - clean / original and clean
   vs contaminated, stratified by tier, with cluster-bootstrap intervals; "too few" below
   ``--min-clean`` clean or ``--min-resolved-clean`` resolved clean instances), and pools them
   over groups (every submission, each year, the top 10, the Claude-4 family: Mantel-Haenszel
   over submission x tier strata, never a mean of ratios), and writes to ``--out`` (default
   ``published/swebench-verified``): ``leaderboard.csv``, ``summary.csv``, ``leaderboard.md``,
   ``index.html``, ``flags.csv`` (compact: instance_id, model, contaminated, score, category),
   ``cutoffs.csv`` (each model's published cutoff and the snapshot date used), ``unscored.csv``
   (submissions not scored, with the reason) and ``README.md`` (command, date, versions, coverage,
   the assumption, the rule and the paper-vs-ours table).

``--stage2-cache DIR`` keeps the full Stage II flags per (instance, cutoff) (JSON Lines, large: keep
it outside the published folder): what is there is read, what is missing computed and added, so
a new cutoff costs only its own pairs. Every flag says what clean rests on (``clean_kind``,
``last_found``, ``snapshot``: ``stage2.why_clean``), from the readings at every cutoff of the run
and at the instance's own fix snapshot. ``--repos`` / ``--submissions`` restrict
the run (for a quick try; the pages then say so).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import warnings
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from benchchecker_plugin.rescore_options import RescoreOptions

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


BENCHMARK = "swe-bench-verified"


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data",
                   help="folder holding swebench_verified/, swebench_experiments/, model_cutoffs/")
    p.add_argument("--repos-dir", type=Path, default=None, help="full clones as owner__name/")
    p.add_argument("--fetch", action="store_true", help="clone the missing repositories first")
    p.add_argument("--releases-dir", type=Path, default=None, metavar="DIR",
                   help="release snapshots (owner__name.releases/, 'benchchecker repos fetch "
                        "--from-releases') for the projects not cloned under --repos-dir; a clone is "
                        "preferred where both exist; each flag names its source")
    p.add_argument("--lag-margin", type=float, default=None, metavar="DAYS",
                   help="release snapshots: the lag correction with this margin (patch-presence --lag-margin)")
    p.add_argument("--source", default=None, help="URL template for --fetch (repos fetch --source)")
    p.add_argument("--out", type=Path, default=ROOT / "published" / "swebench-verified")
    p.add_argument("--resamples", type=int, default=RescoreOptions.n_boot,
                   help="bootstrap resamples of the drop")
    p.add_argument("--seed", type=int, default=RescoreOptions.seed)
    p.add_argument("--min-clean", type=int, default=RescoreOptions.min_clean,
                   help="fewer clean instances: 'too few'")
    p.add_argument("--min-resolved-clean", type=int, default=RescoreOptions.min_resolved_clean,
                   help="fewer resolved clean instances: 'too few'")
    p.add_argument("--stage2-cache", type=Path, default=None, metavar="DIR",
                   help="full Stage II flags per (instance, cutoff) in DIR/owner__name.at.jsonl: "
                        "the pairs there are read, the missing ones computed and added (keep "
                        "outside --out)")
    p.add_argument("--cached-only", action="store_true",
                   help="compute nothing: publish the repositories found in --stage2-cache; the "
                        "others are 'not covered (Stage II not run)', and the pages say so")
    p.add_argument("--extra-dates", nargs="*", default=None, metavar="YYYY-MM-DD",
                   help="also run Stage II at these cutoffs (kept in --stage2-cache; the ends of a "
                        "cutoff interval, say), and use them for what clean rests on")
    p.add_argument("--no-own-fix", action="store_true",
                   help="do not read each instance at its own fix snapshot (clean_kind then rests "
                        "on the model cutoffs alone)")
    p.add_argument("--repos", nargs="*", default=None, help="only these repositories (owner/name)")
    p.add_argument("--submissions", nargs="*", default=None, help="only these submissions")
    p.add_argument("--from-flags", type=Path, default=None, metavar="DIR",
                   help="take the verdicts from an earlier bundle (DIR/flags.csv, DIR/cutoffs.csv) "
                        "instead of running Stage II; every snapshot date needed must be there")
    p.add_argument("--release-repos", nargs="*", default=[], metavar="OWNER/NAME",
                   help="with --from-flags: the repositories whose snapshots were release sdists")
    p.add_argument("--rebuild", type=Path, default=None, metavar="DIR",
                   help="rebuild every table and page into --out from the bundle in DIR alone "
                        "(instances.csv, flags.csv, cutoffs.csv, unscored.csv, snapshots.csv, "
                        "build.json); nothing else is read")
    p.add_argument("--mde-sims", type=int, default=100,
                   help="simulated worlds per minimum detectable drop (0: none)")
    p.add_argument("--mde-resamples", type=int, default=200,
                   help="bootstrap resamples in each simulated world")
    p.add_argument("--band-floor", default="2023-07-24", metavar="YYYY-MM-DD",
                   help="the earliest plausible cutoff of a model without a published one (default: "
                        "the latest pull-request date among the instances with full fields)")
    return p.parse_args(argv)


def _chosen(instances: list[Any], repos: Sequence[str] | None) -> list[Any]:
    """The instances of the ``--repos`` repositories (all without it); a name that is no
    repository of the instances is an error naming the known ones."""
    if repos is None:
        return list(instances)
    known = {i.repo for i in instances}
    unknown = sorted(set(repos) - known)
    if unknown:
        raise SystemExit(f"--repos: {', '.join(unknown)}: not a repository of these instances "
                         f"(known: {', '.join(sorted(known))})")
    return [i for i in instances if i.repo in repos]


def _at(when: datetime) -> str:
    """The cache's name of a cutoff instant: a flag is kept per (instance, cutoff), not per model,
    so a model moved to another cutoff (claude-2 read as 'Early 2023') is computed again, and
    models at one instant share it."""
    return f"at:{when.isoformat()}"


def _read_cache(cache: Path | None) -> dict[tuple[str, str], Any]:
    from benchchecker_plugin.flags import read_flags

    if cache is None or not cache.exists():
        return {}
    return {(f.instance_id, f.model): f for f in read_flags(cache) if f.model.startswith("at:")}


def _fix_dates(own: dict[str, Any]) -> dict[str, Any]:
    """When the fixes landed, from each instance's own fix snapshot (git: the first default-branch
    commit holding the fix; releases: the first release holding it): the latest, per source, and
    how many are known -- the page's "when were the fixes written" rests on this, not on pull
    request creation dates."""
    out: dict[str, Any] = {"n_known": 0, "n": len(own)}
    for source in ("git", "release"):
        dated = sorted((o.when, iid) for iid, o in own.items()
                       if o.when is not None and not o.missing and o.source == source)
        if dated:
            out[source] = {"n": len(dated), "latest": f"{dated[-1][0]:%Y-%m-%d}", "latest_instance": dated[-1][1],
                           "median": f"{dated[len(dated) // 2][0]:%Y-%m-%d}"}
            out["n_known"] += len(dated)
    return out


def _stage2(covered: list[Any], args: argparse.Namespace, cutoffs: dict[str, Any]
            ) -> tuple[list[Any], str, set[str], dict[str, Any]]:
    """Stage II flags of the covered instances at every model's cutoff, one repository at a time
    (smallest first), each flag with what clean rests on (``stage2.why_clean``: ``clean_kind``,
    ``last_found``, ``snapshot``) from the instance's readings at every cutoff of the run
    (``--extra-dates`` included) and at its own fix snapshot (``stage2.own_fix``).

    With ``--stage2-cache DIR`` the flags are kept per (instance, cutoff instant) in
    ``DIR/owner__name.at.jsonl``: pairs found there are read, the missing ones computed
    (``run_stage2(pairs=...)``) and appended as soon as the repository is done. With
    ``--cached-only`` nothing is computed: a repository missing any pair is returned as
    unfinished."""
    from dataclasses import replace

    from benchchecker_plugin.cutoff import parse_cutoff
    from benchchecker_plugin.flags import write_flags
    from benchchecker_plugin.repos import repo_dir_name
    from benchchecker_plugin.stage2 import PresenceConfig, run_stage2, why_clean
    from benchchecker_plugin.stage2._own_fix import own_fix_snapshot, pr_dates
    from benchchecker_plugin.stage2._sources import locate

    whens = {m: parse_cutoff(c) for m, c in cutoffs.items()}
    extra = [parse_cutoff(d) for d in (args.extra_dates or [])]
    at_all = sorted(set(whens.values()) | set(extra))
    dated = pr_dates(covered)
    by_repo: dict[str, list[Any]] = {}
    for inst in covered:
        by_repo.setdefault(inst.repo, []).append(inst)
    config = PresenceConfig(releases_dir=args.releases_dir, lag_margin_days=args.lag_margin,
                            snapshot_source="auto" if args.releases_dir else "git")
    flags: list[Any] = []
    unfinished: set[str] = set()
    computed, read, took, snapshots = 0, 0, 0.0, 0
    own_all: dict[str, Any] = {}
    for repo, insts in sorted(by_repo.items(), key=lambda kv: len(kv[1])):
        cache = args.stage2_cache / f"{repo_dir_name(repo)}.at.jsonl" if args.stage2_cache else None
        have = _read_cache(cache)
        own = {}
        if not args.no_own_fix:
            path = locate(args.repos_dir, insts[0], source=config.snapshot_source, releases_dir=config.releases_dir)
            own = {i.instance_id: own_fix_snapshot(path, i, dated.get(i.instance_id)) for i in insts}
            own_all.update(own)
        want = {(i.instance_id, _at(w)): w for i in insts for w in at_all}
        want |= {(iid, _at(o.when)): o.when for iid, o in own.items() if o.when is not None and not o.missing}
        missing = [k for k in want if k not in have]
        read += len(want) - len(missing)
        if missing and args.cached_only:
            unfinished.add(repo)
            continue
        if missing:
            t0 = time.perf_counter()
            run = run_stage2(insts, args.repos_dir, {m: w for (_, m), w in want.items()}, config=config,
                           pairs=missing)
            took += time.perf_counter() - t0
            snapshots += run.snapshots
            computed += len(missing)
            have.update({(f.instance_id, f.model): f for f in run.flags})
            print(f"stage II {repo}: {len(missing)} (instance, cutoff) pairs in "
                  f"{(time.perf_counter() - t0) / 60:.1f} min", file=sys.stderr)
            if cache is not None:
                args.stage2_cache.mkdir(parents=True, exist_ok=True)
                write_flags(cache, sorted(have.values(), key=lambda f: (f.instance_id, f.model)))
        for inst in insts:
            iid = inst.instance_id
            o = own.get(iid)
            own_flag = have.get((iid, _at(o.when))) if o is not None and o.when is not None else None
            readings = [have[(iid, _at(w))] for w in at_all]
            explained = {f.model: f for f in why_clean(readings, own_fix=own_flag,
                                                       cutoffs={_at(w): w for w in at_all})}
            for m, w in whens.items():
                flags.append(replace(explained[_at(w)], model=m))
    line = (f"{len(covered)} instances x {len(at_all)} cutoffs ({len(whens)} models"
            + (f", {len(extra)} extra dates" if extra else "") + (", and each at its own fix snapshot"
            if not args.no_own_fix else "") + f"); {computed} (instance, cutoff) pairs computed in this run "
            f"({took / 60:.1f} min, {snapshots} distinct snapshots), {read} read from the Stage II cache")
    return flags, line, unfinished, _fix_dates(own_all)


def _compact(stage2: list[Any], merged: list[Any]) -> pd.DataFrame:
    category = {(f.instance_id, f.model): f.evidence.get("category", "") for f in stage2}
    rows = [{"instance_id": f.instance_id, "model": f.model,
             "contaminated": "" if f.contaminated is None else str(f.contaminated).lower(),
             "score": round(float(f.score), 4), "category": category.get((f.instance_id, f.model), "")}
            for f in merged]
    return pd.DataFrame(rows, columns=["instance_id", "model", "contaminated", "score", "category"])


def _cutoffs(table_cutoffs: Any, quotes: pd.DataFrame, subs: Sequence[Any]
             ) -> tuple[dict[str, Any], pd.DataFrame]:
    """Each model's cutoff as an interval: the published value, narrowed to the period its source's
    own words name ("Early 2023" is January-April 2023, not 2023), capped at the model's first
    submission; a cutoff derived from a base model is labelled a lower bound."""
    from benchchecker_plugin.cutoff import period_in_words
    from benchchecker_plugin.leaderboard import cap_cutoffs

    quote = dict(zip(quotes["model"], quotes["quote"].fillna("")))
    conf = dict(zip(quotes["model"], quotes["confidence"].fillna("")))
    read: dict[str, Any] = {}
    notes: dict[str, list[str]] = {}
    for m, period in table_cutoffs.cutoffs.items():
        words = period_in_words(quote.get(m, ""))
        if words is not None and words.end < period.end:
            notes.setdefault(m, []).append(f"the source's words name {words.text} (quote column), "
                                           f"inside the published '{period.text}'")
            period = words
        read[m] = period
    capped, cap_notes = cap_cutoffs(read, subs)
    for m, n in cap_notes.items():
        notes.setdefault(m, []).append(n)
    rows = []
    for m, c in capped.items():
        kind = ("derived: a lower bound" if conf.get(m, "").startswith("derived")
                else "published")
        rows.append({"model": m, "published cutoff": table_cutoffs.cutoffs[m].text,
                     "interval read": f"{read[m].start:%Y-%m-%d}..{read[m].last_moment:%Y-%m-%d}",
                     "kind": kind, "snapshot at": f"{c.last_moment:%Y-%m-%d}",
                     "note": "; ".join(notes.get(m, []))})
    return capped, pd.DataFrame(rows)


def _verdicts_by_date(args: argparse.Namespace, covered: list[Any], cutoffs: dict[str, Any],
                      moved: set[str]) -> tuple[dict[str, dict[str, str]], pd.DataFrame, dict[str, Any]]:
    """``{snapshot date: {instance: verdict word}}``, the compact per-model flags and the run's
    Stage II facts: from Stage II (``_stage2``) or from an earlier bundle (``--from-flags``)."""
    from dataclasses import replace

    from _republish_bundle import verdict_word

    from benchchecker_plugin.flags import MergePolicy, merge_flags

    dates = {m: f"{c.last_moment:%Y-%m-%d}" for m, c in cutoffs.items()}
    if args.from_flags is not None:
        old = pd.read_csv(args.from_flags / "flags.csv", dtype={"contaminated": str},
                          keep_default_na=False)
        old_cut = pd.read_csv(args.from_flags / "cutoffs.csv", dtype=str, keep_default_na=False)
        old_date = dict(zip(old_cut["model"], old_cut["snapshot at"]))
        word = {"true": "contaminated", "false": "clean", "": "undecided"}
        at: dict[str, dict[str, str]] = {}
        rows: dict[str, pd.DataFrame] = {}
        for m, part in old.groupby("model", sort=False):
            d = old_date.get(str(m))
            if d and d not in at:
                at[d] = {i: word[v] for i, v in zip(part["instance_id"], part["contaminated"])}
                rows[d] = part
        facts = {"stage2": f"verdicts read from an earlier bundle's flags.csv ({len(at)} snapshot "
                           "dates; Stage II not rerun)", "errors": "", "n_flags": len(old),
                 "evidence": {}, "unfinished": []}
        missing = sorted({d for d in dates.values() if d not in at})
        if missing:
            raise SystemExit(f"--from-flags: no flags at the snapshot dates {', '.join(missing)} "
                             "(run Stage II for them)")
        compact = pd.concat([rows[dates[m]].assign(model=m) for m in cutoffs], ignore_index=True)
        return at, compact, facts
    # a model whose cutoff moved (claude-2: "Early 2023") shares a snapshot date with another
    # model: it takes that model's flags, never its own cached ones (computed at the old date)
    first_at: dict[str, str] = {}
    for m in sorted(cutoffs, key=lambda m: m in moved):
        first_at.setdefault(dates[m], m)
    run_for = {m: c for m, c in cutoffs.items() if first_at[dates[m]] == m}
    stage2, line, unfinished, fix_dates = _stage2(covered, args, run_for)
    merged = merge_flags(stage2, policy=MergePolicy.BENCHCHECKER, assume_repo_seen=True)
    at = {}
    for f in merged:
        at.setdefault(dates[f.model], {})[f.instance_id] = verdict_word(f.verdict)
    stage2 = stage2 + [replace(f, model=m) for m in cutoffs if m not in run_for
                       for f in stage2 if f.model == first_at[dates[m]]]
    merged = merged + [replace(f, model=m) for m in cutoffs if m not in run_for
                       for f in merged if f.model == first_at[dates[m]]]
    evidence = {(f.instance_id, f.model): f.evidence for f in stage2}
    facts = {"stage2": line, "errors": sum("error" in e for e in evidence.values()),
             "n_flags": len(stage2), "evidence": evidence, "unfinished": sorted(unfinished),
             "fix_dates": fix_dates}
    return at, _compact(stage2, merged), facts


def _band_dates(sub: Any, dates: Sequence[str], floor: str) -> tuple[str, str] | None:
    """The computed snapshot dates at the ends of a submission's plausible cutoff interval: the
    first at or after ``floor``, the last at or before the submission's date."""
    inside = [d for d in sorted(dates) if floor <= d <= (sub.date or "9999")]
    return (inside[0], inside[-1]) if inside else None


def _snapshot_id(snap: Any) -> str:
    """The snapshot a verdict was read at, short (instances.csv has one per instance and
    submission): ``git:<commit, 12 hex>`` or ``release:<version>``; snapshots.csv gives the full
    commit, or the sdist's sha256 and upload time, per (repository, model)."""
    if not snap:
        return ""
    if snap.get("source") == "release":
        return f"release:{snap.get('version', '')}"
    return f"git:{str(snap.get('commit', ''))[:12]}"


def _board(data: Path, subs: Sequence[Any], scored: set[str]) -> dict[str, Any]:
    """The official Verified board: its top 10 and which of them have per-instance results here;
    how many of its entries are absent from the submissions read."""
    boards = json.loads((data / "swebench_leaderboard" / "leaderboards.json").read_text())
    board = next(b for b in boards["leaderboards"] if b["name"] == "Verified")["results"]
    have = {s.name for s in subs}
    top = sorted(board, key=lambda r: -float(r["resolved"]))[:10]
    return {"n_entries": len(board), "n_absent": sum(r["folder"] not in have for r in board),
            "top10": [{"name": r["name"], "folder": r["folder"], "resolved %": float(r["resolved"]),
                       "date": r.get("date", ""), "here": r["folder"] in have,
                       "scored": r["folder"] in scored} for r in top]}


def main(argv: Sequence[str] | None = None) -> int:
    from _republish_bundle import INSTANCE_COLUMNS, rebuild, repo_of, submission_verdict, write_inputs

    import benchchecker_plugin
    from benchchecker_plugin.cutoffs_file import read_cutoffs
    from benchchecker_plugin.errors import RepositoryError
    from benchchecker_plugin.instances import load_instances
    from benchchecker_plugin.leaderboard import (
        apply_model_map,
        load_submissions,
        load_tiers,
        official_percentages,
        read_model_map,
        screen_submissions,
    )
    from benchchecker_plugin.repos import find_repo
    from benchchecker_plugin.stage2._sources import locate

    args = _args(argv)
    if args.rebuild is not None:
        paths = rebuild(args.rebuild, args.out)
        print(f"rebuilt {', '.join(p.name for p in paths)} from {args.rebuild}", file=sys.stderr)
        return 0
    if args.repos_dir is None and args.from_flags is None:
        raise SystemExit("--repos-dir is required (or --from-flags / --rebuild)")
    started = time.perf_counter()
    data = args.data_dir
    inst_path = data / "swebench_verified" / "swebench_verified_composite.jsonl"
    map_path = data / "model_cutoffs" / "submission_models.csv"
    instances = load_instances(inst_path)
    tiers = load_tiers(inst_path, field="difficulty")
    chosen = _chosen(instances, args.repos)
    if args.fetch:   # only the repositories --repos chose (issue 29: it cloned all 12)
        from benchchecker_plugin.repos import DEFAULT_SOURCE, fetch_repos

        commits: dict[str, set[str]] = {}
        for inst in chosen:
            commits.setdefault(inst.repo, set()).add(inst.base_commit)
        for res in fetch_repos([i.repo for i in chosen], args.repos_dir,
                               source=args.source or DEFAULT_SOURCE, commits=commits):
            print(f"fetch {res.repo}: {res.status.value} {res.detail}", file=sys.stderr)
    covered, missing_repos, left_out = [], set(), {i.repo for i in instances} - {i.repo for i in chosen}
    for inst in chosen:
        if args.from_flags is not None:
            covered.append(inst)
            continue
        try:
            if args.releases_dir is None:
                find_repo(args.repos_dir, inst)
            else:
                locate(args.repos_dir, inst, releases_dir=args.releases_dir)
            covered.append(inst)
        except RepositoryError:
            missing_repos.add(inst.repo)
    if not covered:
        raise SystemExit(f"no instance is covered: no clone under {args.repos_dir}")
    table_cutoffs = read_cutoffs(map_path)
    model_map = read_model_map(map_path)
    subs = apply_model_map(load_submissions(data / "swebench_experiments"), model_map)
    quotes = pd.read_csv(data / "model_cutoffs" / "model_cutoffs.csv", dtype=str)
    cutoffs, cutoff_df = _cutoffs(table_cutoffs, quotes, subs)
    print(f"{len(covered)}/{len(instances)} instances covered; verdicts at {len(cutoffs)} model "
          f"cutoffs ...", file=sys.stderr)
    moved = {m for m, n in zip(cutoff_df["model"], cutoff_df["note"]) if "quote column" in n}
    at, compact, facts = _verdicts_by_date(args, covered, cutoffs, moved)
    if facts["unfinished"]:
        covered = [i for i in covered if i.repo not in facts["unfinished"]]
        missing_repos |= set(facts["unfinished"])
    date_of = {m: f"{c.last_moment:%Y-%m-%d}" for m, c in cutoffs.items()}
    if args.submissions is not None:
        subs = [s for s in subs if s.name in args.submissions]
    official = official_percentages(data / "swebench_leaderboard" / "leaderboards.json")
    screened = screen_submissions(subs, len(instances), official=official)
    scored, banded, unscored = [], {}, list(screened.excluded)
    for s in screened.scored:
        if s.name not in model_map:
            unscored.append((s, "not in the model map"))
        elif s.models and not [m for m in s.models if m not in cutoffs]:
            scored.append(s)
        elif (ends := _band_dates(s, list(at), args.band_floor)) is not None:
            banded[s.name] = (s, ends)
        else:
            why = "model undisclosed" if not s.models else "no published training cutoff for " + \
                ", ".join(m for m in s.models if m not in cutoffs)
            unscored.append((s, why + "; no computed snapshot inside its plausible interval"))
    sources = {r: "release" for r in args.release_repos} if args.from_flags is not None else {}
    for (iid, _m), ev in facts["evidence"].items():
        src = ev.get("snapshot_source")
        repo = repo_of(iid)
        sources.setdefault(repo, str(src.get("kind", "git")) if hasattr(src, "get") else "git")
    cov_ids = {i.instance_id for i in covered}
    rows = []
    for s in scored + [b[0] for b in banded.values()]:
        band = banded.get(s.name)
        for inst in instances:
            iid = inst.instance_id
            cov = iid in cov_ids
            if band is None:
                v = submission_verdict([at[date_of[m]].get(iid, "undecided") for m in s.models]) \
                    if cov else "not covered"
                ends = ("", "")
                ev = facts["evidence"].get((iid, s.models[0]), {})
            else:
                v = ""
                ends = tuple(at[d].get(iid, "undecided") if cov else "not covered" for d in band[1])
                ev = {}
            snap = ev.get("snapshot", "")
            rows.append({"instance_id": iid, "repo": inst.repo, "tier": tiers[iid],
                         "submission": s.name, "models": ";".join(s.models), "date": s.date,
                         "scored_as": "band" if band else "published cutoff",
                         "resolved": int(iid in s.resolved), "verdict": v,
                         "verdict_band_start": ends[0], "verdict_band_end": ends[1],
                         "clean_kind": ev.get("clean_kind", "") if v == "clean" else "",
                         "snapshot_source": sources.get(inst.repo, "git"),
                         "snapshot": _snapshot_id(snap)})
    inst_df = pd.DataFrame(rows, columns=list(INSTANCE_COLUMNS))
    snap_rows = {}
    for (iid, m), ev in facts["evidence"].items():
        snap = ev.get("snapshot") or {}
        repo = repo_of(iid)
        snap_rows.setdefault((repo, m), {"repo": repo, "model": m, "snapshot at": date_of.get(m, ""),
                                         "source": snap.get("source", sources.get(repo, "git")),
                                         "commit": snap.get("commit", ""),
                                         "version": snap.get("version", ""),
                                         "sha256": snap.get("sha256", ""),
                                         "uploaded": snap.get("uploaded", "")})
    if not snap_rows:   # --from-flags: the sources are known, the snapshot ids are not
        for repo in sorted({i.repo for i in instances}):
            for m in cutoffs:
                snap_rows[(repo, m)] = {"repo": repo, "model": m, "snapshot at": date_of[m],
                                        "source": sources.get(repo, "git"), "commit": "",
                                        "version": "", "sha256": "", "uploaded": ""}
    snap_df = pd.DataFrame(list(snap_rows.values())).sort_values(["repo", "snapshot at", "model"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        unscored_df = pd.DataFrame({
            "submission": [s.name for s, _ in unscored], "model": [s.model for s, _ in unscored],
            "date": [s.date for s, _ in unscored], "reason": [r for _, r in unscored],
            "original_rate_500": [len(s.resolved) / len(instances) for s, _ in unscored]})
    build = {
        "command": "python benchmarks/republish_verified.py " + " ".join(
            a if not a.startswith("/") else "<" + Path(a).name + ">" for a in (argv or sys.argv[1:])),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "versions": f"benchchecker {benchchecker_plugin.__version__}, Python "
                    f"{platform.python_version()}, pandas {pd.__version__}",
        "data": "SWE-bench Verified (princeton-nlp, 500 instances), swebench_experiments "
                "(SWE-bench/experiments), leaderboards.json of 2025-12-10, model_cutoffs/ (this "
                "project's table)",
        "stage2": facts["stage2"], "errors": facts["errors"], "n_flags": facts["n_flags"],
        "n_models": len(cutoffs), "unknown_models": list(table_cutoffs.unknown),
        "n_submissions": len(subs), "restricted": args.repos is not None
        or args.submissions is not None or bool(facts["unfinished"]),
        "resamples": args.resamples, "seed": args.seed, "min_clean": args.min_clean,
        "min_resolved_clean": args.min_resolved_clean, "mde_sims": args.mde_sims,
        "mde_resamples": args.mde_resamples, "marks": dict(screened.marks),
        "missing_repos": sorted(missing_repos), "unfinished": facts["unfinished"],
        "left_out_repos": sorted(left_out), "band_floor": args.band_floor,
        **({"fix_dates": facts["fix_dates"]} if facts.get("fix_dates") else {}),
        "bands": {n: {"start": e[0], "end": e[1], "models": b.model or "undisclosed"}
                  for n, (b, e) in banded.items()},
        "submissions": [{"submission": s.name, "models": s.model, "date": s.date,
                         "resolved_of_500": len(s.resolved)} for s in subs],
        "board": _board(data, subs, {s.name for s in scored}),
    }
    write_inputs(args.out, {"instances.csv": inst_df, "flags.csv": compact,
                            "cutoffs.csv": cutoff_df, "unscored.csv": unscored_df,
                            "snapshots.csv": snap_df}, build)
    paths = rebuild(args.out, args.out)
    print(f"{facts['stage2']}; {(time.perf_counter() - started) / 60:.1f} min in all; wrote "
          f"{', '.join(p.name for p in paths)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    from benchchecker_plugin.warnings_text import warnings_in_words

    with warnings_in_words():   # our warnings as one line in words, as the commands print them
        raise SystemExit(main())
