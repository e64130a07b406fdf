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
   instance at every submission model's cutoff in one grid run (``run_grid``);
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
import platform
import sys
import time
import warnings
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _republish_page import CLAUDE4, paper_tables, write_pages  # noqa: E402

BENCHMARK = "swe-bench-verified"


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data",
                   help="folder holding swebench_verified/, swebench_experiments/, model_cutoffs/")
    p.add_argument("--repos-dir", type=Path, required=True, help="full clones as owner__name/")
    p.add_argument("--fetch", action="store_true", help="clone the missing repositories first")
    p.add_argument("--releases-dir", type=Path, default=None, metavar="DIR",
                   help="release snapshots (owner__name.releases/, 'benchchecker repos fetch "
                        "--from-releases') for the projects not cloned under --repos-dir; a clone is "
                        "preferred where both exist; each flag names its source")
    p.add_argument("--lag-margin", type=float, default=None, metavar="DAYS",
                   help="release snapshots: the lag correction with this margin (patch-presence --lag-margin)")
    p.add_argument("--source", default=None, help="URL template for --fetch (repos fetch --source)")
    p.add_argument("--out", type=Path, default=ROOT / "published" / "swebench-verified")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the drop")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--min-clean", type=int, default=20, help="fewer clean instances: 'too few'")
    p.add_argument("--min-resolved-clean", type=int, default=10,
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


def _stage2(covered: list[Any], args: argparse.Namespace, cutoffs: dict[str, Any]) -> tuple[list[Any], str, set[str]]:
    """Stage II flags of the covered instances at every model's cutoff, one repository at a time
    (smallest first), each flag with what clean rests on (``stage2.why_clean``: ``clean_kind``,
    ``last_found``, ``snapshot``) from the instance's readings at every cutoff of the run
    (``--extra-dates`` included) and at its own fix snapshot (``stage2.own_fix``).

    With ``--stage2-cache DIR`` the flags are kept per (instance, cutoff instant) in
    ``DIR/owner__name.at.jsonl``: pairs found there are read, the missing ones computed
    (``run_grid(pairs=...)``) and appended as soon as the repository is done. With
    ``--cached-only`` nothing is computed: a repository missing any pair is returned as
    unfinished."""
    from dataclasses import replace

    from benchchecker_plugin.flags import write_flags
    from benchchecker_plugin.repos import repo_dir_name
    from benchchecker_plugin.stage2 import PresenceConfig, run_grid, why_clean
    from benchchecker_plugin.stage2.grid import cutoff_when
    from benchchecker_plugin.stage2.own_fix import own_fix_snapshot, pr_dates
    from benchchecker_plugin.stage2.sources import locate

    whens = {m: cutoff_when(m, c) for m, c in cutoffs.items()}
    extra = [cutoff_when(d, d) for d in (args.extra_dates or [])]
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
    for repo, insts in sorted(by_repo.items(), key=lambda kv: len(kv[1])):
        cache = args.stage2_cache / f"{repo_dir_name(repo)}.at.jsonl" if args.stage2_cache else None
        have = _read_cache(cache)
        own = {}
        if not args.no_own_fix:
            path = locate(args.repos_dir, insts[0], source=config.snapshot_source, releases_dir=config.releases_dir)
            own = {i.instance_id: own_fix_snapshot(path, i, dated.get(i.instance_id)) for i in insts}
        want = {(i.instance_id, _at(w)): w for i in insts for w in at_all}
        want |= {(iid, _at(o.when)): o.when for iid, o in own.items() if o.when is not None and not o.missing}
        missing = [k for k in want if k not in have]
        read += len(want) - len(missing)
        if missing and args.cached_only:
            unfinished.add(repo)
            continue
        if missing:
            t0 = time.perf_counter()
            run = run_grid(insts, args.repos_dir, {m: w for (_, m), w in want.items()}, config=config,
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
    return flags, line, unfinished


def _compact(stage2: list[Any], merged: list[Any]) -> pd.DataFrame:
    category = {(f.instance_id, f.model): f.evidence.get("category", "") for f in stage2}
    rows = [{"instance_id": f.instance_id, "model": f.model,
             "contaminated": "" if f.contaminated is None else str(f.contaminated).lower(),
             "score": round(float(f.score), 4), "category": category.get((f.instance_id, f.model), "")}
            for f in merged]
    return pd.DataFrame(rows, columns=["instance_id", "model", "contaminated", "score", "category"])


def _submission_verdicts(merged: list[Any], models: Sequence[str]) -> dict[str, Any]:
    """One verdict per covered instance for a submission built on ``models``, from the merged
    flags (one per instance and model): contaminated if any model's is, clean if every model's
    is, else undecided -- the rule of ``leaderboard.submission_verdicts``, which takes per-method
    flags and cannot be given merged ones (``verdicts_for`` merges again)."""
    from benchchecker_plugin.flags import Verdict

    per = {m: {f.instance_id: f.verdict for f in merged if f.model == m} for m in models}
    out = {}
    for iid in set().union(*per.values()):
        vs = [per[m].get(iid, Verdict.UNDECIDED) for m in models]
        out[iid] = (Verdict.CONTAMINATED if Verdict.CONTAMINATED in vs
                    else Verdict.CLEAN if all(v is Verdict.CLEAN for v in vs) else Verdict.UNDECIDED)
    return out


def summary_groups(scored: Sequence[Any], subs: Sequence[Any]) -> dict[str, list[str]]:
    """The pooled groups of the page: every scored submission, each submission year, the top 10
    by resolved of 500 (those scored), and the Claude-4 family."""
    from benchchecker_plugin.leaderboard import summary_groups as by_year

    groups = by_year(scored)
    names = {s.name for s in scored}
    top = [s.name for s in sorted(subs, key=lambda s: -len(s.resolved))[:10] if s.name in names]
    groups["top 10 (by resolved of 500)"] = top
    groups["Claude 4 family"] = [s.name for s in scored if CLAUDE4.search(s.model or "")]
    return {k: v for k, v in groups.items() if v}


def main(argv: Sequence[str] | None = None) -> int:
    import benchchecker_plugin
    from benchchecker_plugin.cutoffs_file import read_cutoffs
    from benchchecker_plugin.errors import RepositoryError
    from benchchecker_plugin.flags import MergePolicy, merge_flags
    from benchchecker_plugin.instances import load_instances
    from benchchecker_plugin.leaderboard import (
        apply_model_map,
        cap_cutoffs,
        load_submissions,
        load_tiers,
        official_percentages,
        read_model_map,
        screen_submissions,
    )
    from benchchecker_plugin.repos import find_repo
    from benchchecker_plugin.scoring import UndefinedMetricWarning, rate_and_pool, rate_table
    from benchchecker_plugin.stage2.sources import locate

    args = _args(argv)
    started = time.perf_counter()
    data = args.data_dir
    inst_path = data / "swebench_verified" / "swebench_verified_composite.jsonl"
    map_path = data / "model_cutoffs" / "submission_models.csv"
    subs_path = data / "swebench_experiments"
    instances = load_instances(inst_path)
    tiers = load_tiers(inst_path, field="difficulty")
    ids = [i.instance_id for i in instances]
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
    subs = apply_model_map(load_submissions(subs_path), model_map)
    published_cutoffs = dict(table_cutoffs.cutoffs)
    cutoffs, capped = cap_cutoffs(published_cutoffs, subs)
    print(f"{len(covered)}/{len(instances)} instances covered; Stage II at {len(cutoffs)} model "
          f"cutoffs ...", file=sys.stderr)
    stage2, stage2_line, unfinished = _stage2(covered, args, cutoffs)
    if unfinished:
        covered = [i for i in covered if i.repo not in unfinished]
        missing_repos |= unfinished
    if not covered:
        raise SystemExit(f"no instance has Stage II flags: nothing cached in {args.stage2_cache}")
    merged = merge_flags(stage2, policy=MergePolicy.BENCHCHECKER, assume_repo_seen=True)
    errors = sum("error" in f.evidence for f in stage2)

    if args.submissions is not None:
        subs = [s for s in subs if s.name in args.submissions]
    official = official_percentages(data / "swebench_leaderboard" / "leaderboards.json")
    screened = screen_submissions(subs, len(ids), official=official)
    scored, unscored = [], list(screened.excluded)
    for s in screened.scored:
        if s.name not in model_map:
            unscored.append((s, "not in the model map"))
        elif not s.models:
            unscored.append((s, "model undisclosed"))
        elif [m for m in s.models if m not in cutoffs]:
            unknown = ", ".join(m for m in s.models if m not in cutoffs)
            unscored.append((s, f"no published training cutoff for {unknown}"))
        else:
            scored.append(s)
    cov_ids = [i.instance_id for i in covered]
    verdicts = {s.name: _submission_verdicts(merged, s.models) for s in scored}
    resolved = {s.name: s.resolved for s in scored}
    table, summary = rate_and_pool(resolved, ids, verdicts, tiers, groups=summary_groups(scored, subs),
                                   models={s.name: s.model for s in scored},
                                   dates={s.name: s.date for s in scored}, n_boot=args.resamples,
                                   seed=args.seed, min_clean=args.min_clean,
                                   min_resolved_clean=args.min_resolved_clean, covered=cov_ids)
    with warnings.catch_warnings():   # no verdicts here: every submission "has no clean instance"
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        full = rate_table({s.name: s.resolved for s in subs}, ids, {s.name: {} for s in subs}, tiers,
                          models={s.name: s.model for s in subs},
                          dates={s.name: s.date for s in subs}, n_boot=0)
    full = full.rename(columns={"n_instances": "n_instances_500", "original_rate": "original_rate_500"})
    table = table.merge(full[["submission", "tier", "n_instances_500", "original_rate_500"]],
                        on=["submission", "tier"], how="left")
    table.attrs.update(ci=0.95, min_clean=args.min_clean, min_resolved_clean=args.min_resolved_clean)
    unscored_df = full[full["tier"] == "all"].set_index("submission").loc[[s.name for s, _ in unscored]]
    unscored_df = pd.DataFrame({
        "submission": [s.name for s, _ in unscored], "model": [s.model for s, _ in unscored],
        "date": [s.date for s, _ in unscored], "reason": [r for _, r in unscored],
        "original_rate_500": unscored_df["original_rate_500"].tolist()})
    by_repo = pd.DataFrame({"repo": [i.repo for i in instances],
                            "covered": [i in covered for i in instances],
                            "tier": [tiers[i.instance_id] for i in instances]})
    repo_of = {i.instance_id: i.repo for i in instances}
    kinds: dict[str, set[str]] = {}
    for f in stage2:   # where each project's snapshots came from, as its flags record it
        src = f.evidence.get("snapshot_source")
        kinds.setdefault(repo_of.get(f.instance_id, ""), set()).add(
            str(src.get("kind", "git")) if hasattr(src, "get") else "git")
    compact = _compact(stage2, merged)
    info = {
        "command": "python benchmarks/republish_verified.py " + " ".join(
            a if not a.startswith("/") else "<" + Path(a).name + ">" for a in (argv or sys.argv[1:])),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "versions": f"benchchecker {benchchecker_plugin.__version__}, Python {platform.python_version()}, "
                    f"pandas {pd.__version__}",
        "stage2": stage2_line, "errors": errors, "n_flags": len(stage2),
        "n_models": len(cutoffs), "unknown_models": list(table_cutoffs.unknown),
        "n_submissions": len(subs), "restricted": args.repos is not None or args.submissions is not None or bool(unfinished),
        "resamples": args.resamples, "seed": args.seed, "min_clean": args.min_clean,
        "min_resolved_clean": args.min_resolved_clean, "marks": dict(screened.marks),
        "submission_cutoffs": {s.name: [f"{cutoffs[m].last_moment:%Y-%m-%d}" for m in s.models]
                               for s in scored},
        "missing_repos": sorted(missing_repos), "unfinished": sorted(unfinished),
        "sources": {repo: " + ".join(sorted(k)) for repo, k in kinds.items()},
        "left_out_repos": sorted(left_out),
    }
    not_cov = sorted({i.repo.split("/")[1] for i in instances if i not in covered})
    cutoff_df = pd.DataFrame([{"model": m, "published cutoff": published_cutoffs[m].text,
                               "snapshot at": f"{c.last_moment:%Y-%m-%d}", "note": capped.get(m, "")}
                              for m, c in cutoffs.items()])
    paper = paper_tables(table, summary, compact, subs, cutoffs, args.min_clean,
                         f"{len(covered)}/{len(instances)} instances covered"
                         + (f" (none of {', '.join(not_cov)})" if not_cov else ""))
    info["runtime"] = f"{(time.perf_counter() - started) / 60:.1f} min in all"
    paths = write_pages(args.out, table, summary, compact, unscored_df, by_repo, paper, info,
                        cutoff_df)
    print(f"{info['stage2']}; {info['runtime']}; wrote {', '.join(p.name for p in paths)}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    from benchchecker_plugin.warnings_text import warnings_in_words

    with warnings_in_words():   # our warnings as one line in words, as the commands print them
        raise SystemExit(main())
