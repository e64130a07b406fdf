"""Stage II's recall at each instance's own fix snapshot: a label-free check of the detector.

    python benchmarks/own_fix_recall.py --repos-dir CLONES --releases-dir RELEASES --stage2-cache DIR
    python benchmarks/own_fix_recall.py ... --fetch-releases   # first fetch the own fix releases

At its own fix snapshot (``stage2.own_fix``: the first default-branch commit whose tree holds the
fix; for release snapshots the first release of the instance's line, after the pull request,
where the gold patch un-applies) every instance's gold patch should be found present. The share
found is a recall figure that needs no labels; each miss is listed with its cause:

- ``no own fix snapshot``: no commit names the pull request, no release after it, no PR date;
- ``gold patch not in the snapshot``: the gold patch does not un-apply there (``git apply -R
  --check``): the merged fix differs from SWE-bench's gold patch, or the release does not hold it
  (merged after that release);
- ``detector: <category>``: the fixed lines are verbatim in the snapshot and Stage II said
  otherwise -- a miss of the detector itself.

Flags are read from and added to the republish cache (``--stage2-cache DIR``, the
``owner__name.at.jsonl`` files of ``republish_verified.py``), so both scripts share one
computation. Writes ``--out`` (default ``published/swebench-verified/own_fix_recall.csv``:
instance_id, repo, source, snapshot, snapshot_date, verdict, miss_reason, basis) and prints a
one-line summary and the misses by cause.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from republish_verified import _at, _read_cache  # noqa: E402


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    p.add_argument("--repos-dir", type=Path, required=True, help="full clones as owner__name/")
    p.add_argument("--releases-dir", type=Path, default=None, help="release snapshots (owner__name.releases/)")
    p.add_argument("--stage2-cache", type=Path, required=True, metavar="DIR",
                   help="the republish Stage II cache: read, and the own fix flags added")
    p.add_argument("--fetch-releases", action="store_true",
                   help="fetch the own fix releases missing from --releases-dir first (pip's index)")
    p.add_argument("--repos", nargs="*", default=None, help="only these repositories")
    p.add_argument("--out", type=Path, default=ROOT / "published" / "swebench-verified" / "own_fix_recall.csv")
    return p.parse_args(argv)


def _fetch(owns: dict[str, Any], paths: dict[str, Path], args: argparse.Namespace) -> None:
    from benchchecker_plugin.repos import ReleaseHistory, fetch_releases, is_release_repo

    need: dict[Path, set[str]] = {}
    for iid, o in owns.items():
        if o.to_fetch and is_release_repo(paths[iid]):
            need.setdefault(paths[iid], set()).update(o.to_fetch)
    for path, versions in need.items():
        hist = ReleaseHistory.open(path)
        have = {r.version for r in hist.fetched}
        t0 = time.perf_counter()
        res = fetch_releases(hist.package, hist.repo, path.parent, versions=have | versions)
        print(f"releases {hist.repo}: {len(res.added)} own fix releases added in "
              f"{(time.perf_counter() - t0) / 60:.1f} min", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    from benchchecker_plugin.flags import write_flags
    from benchchecker_plugin.instances import load_instances
    from benchchecker_plugin.repos import repo_dir_name, unapplies
    from benchchecker_plugin.stage2 import PresenceConfig, run_stage2
    from benchchecker_plugin.stage2._own_fix import own_fix_snapshot, pr_dates
    from benchchecker_plugin.stage2._sources import locate

    args = _args(argv)
    started = time.perf_counter()
    instances = load_instances(args.data_dir / "swebench_verified" / "swebench_verified_composite.jsonl")
    if args.repos:
        instances = [i for i in instances if i.repo in args.repos]
    dated = pr_dates(instances)
    paths = {i.instance_id: locate(args.repos_dir, i, releases_dir=args.releases_dir) for i in instances}
    owns = {i.instance_id: own_fix_snapshot(paths[i.instance_id], i, dated.get(i.instance_id)) for i in instances}
    if args.fetch_releases:
        _fetch(owns, paths, args)
        owns = {i.instance_id: own_fix_snapshot(paths[i.instance_id], i, dated.get(i.instance_id))
                for i in instances}
    config = PresenceConfig(releases_dir=args.releases_dir, snapshot_source="auto" if args.releases_dir else "git")
    rows = []
    by_repo: dict[str, list[Any]] = {}
    for inst in instances:
        by_repo.setdefault(inst.repo, []).append(inst)
    for repo, insts in sorted(by_repo.items(), key=lambda kv: len(kv[1])):
        cache = args.stage2_cache / f"{repo_dir_name(repo)}.at.jsonl"
        have = _read_cache(cache)
        want = {(i.instance_id, _at(o.when)): o.when for i in insts
                if (o := owns[i.instance_id]).when is not None and not o.missing}
        missing = [k for k in want if k not in have]
        if missing:
            t0 = time.perf_counter()
            run = run_stage2(insts, args.repos_dir, {m: w for (_, m), w in want.items()}, config=config, pairs=missing)
            have.update({(f.instance_id, f.model): f for f in run.flags})
            args.stage2_cache.mkdir(parents=True, exist_ok=True)
            write_flags(cache, sorted(have.values(), key=lambda f: (f.instance_id, f.model)))
            print(f"own fix {repo}: {len(missing)} computed in {(time.perf_counter() - t0) / 60:.1f} min",
                  file=sys.stderr)
        for inst in insts:
            o = owns[inst.instance_id]
            row = {"instance_id": inst.instance_id, "repo": repo, "source": o.source, "snapshot": o.snapshot,
                   "snapshot_date": o.when.isoformat() if o.when else "", "verdict": "", "miss_reason": "",
                   "basis": o.basis}
            flag = have.get((inst.instance_id, _at(o.when))) if o.when is not None and not o.missing else None
            if flag is None:
                row.update(verdict="not run", miss_reason=f"no own fix snapshot: {o.missing}")
                rows.append(row)
                continue
            ev = flag.evidence
            row["verdict"] = "present" if flag.contaminated is True else str(ev.get("category", ""))
            commit = str(ev.get("snapshot_commit", ""))
            if flag.contaminated is True:
                pass
            elif "error" in ev:
                row["miss_reason"] = f"detector: error ({str(ev['error'])[:120]})"
            elif commit and not unapplies(paths[inst.instance_id], commit, inst.patch):
                where = f"release {o.snapshot}" if o.source == "release" else "the own fix commit"
                row["miss_reason"] = (f"gold patch not in the snapshot: it does not un-apply at {where} "
                                      "(merged fix differs from the gold patch, or not in that release)")
            else:
                row["miss_reason"] = f"detector: {row['verdict']} though the gold patch un-applies there"
            if o.source == "git" and commit and commit != o.snapshot:
                anc = subprocess.run(["git", "-C", str(paths[inst.instance_id]), "merge-base", "--is-ancestor",
                                      o.snapshot, commit], capture_output=True, check=False).returncode == 0
                row["basis"] += f"; read at {commit[:12]}" + ("" if anc else " (not a descendant)")
            rows.append(row)
    df = pd.DataFrame(rows).sort_values("instance_id")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    found = int((df["verdict"] == "present").sum())
    causes = Counter(r.split(":")[0] for r in df["miss_reason"] if r)
    detail = Counter(r.split(" though")[0].split(" (")[0] for r in df["miss_reason"] if r)
    print(f"own fix recall: {found} of {len(df)} instances found present at their own fix snapshot "
          f"({100 * found / len(df):.1f}%); misses: "
          + "; ".join(f"{k} {v}" for k, v in causes.most_common()) + f" ({(time.perf_counter() - started) / 60:.1f} min)")
    for k, v in detail.most_common():
        print(f"  {v:4d}  {k}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
