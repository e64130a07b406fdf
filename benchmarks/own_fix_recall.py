"""Stage II's recall at each instance's own fix snapshot: a label-free check of the detector.

    python benchmarks/own_fix_recall.py --repos-dir CLONES --releases-dir RELEASES --fetch-releases
    python benchmarks/own_fix_recall.py --bundle published/swebench-verified   # the figure of a bundle

At its own fix snapshot (``stage2.own_fix_snapshot``: the first default-branch commit whose tree
holds the fix; for release snapshots the first release of the instance's line, after the pull
request, where the gold patch un-applies) every instance's gold patch should be found present. The
republication reads every instance there in the same Stage II run as its cutoffs and writes the
table, each miss with its cause, into its bundle (``own_fix_recall.csv``: ``benchchecker
republish --repos-dir ...``). This script does the two things around it: ``--fetch-releases``
fetches the own fix releases missing from ``--releases-dir`` (pip's index) before such a run, and
``--bundle`` prints a bundle's figure and its misses by cause.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    p.add_argument("--repos-dir", type=Path, default=None, help="full clones as owner__name/")
    p.add_argument("--releases-dir", type=Path, default=None, help="release snapshots (owner__name.releases/)")
    p.add_argument("--fetch-releases", action="store_true",
                   help="fetch the own fix releases missing from --releases-dir (pip's index)")
    p.add_argument("--repos", nargs="*", default=None, help="only these repositories")
    p.add_argument("--bundle", type=Path, default=None, help="print the recall of this bundle")
    return p.parse_args(argv)


def fetch_own_fix_releases(args: argparse.Namespace) -> None:
    from benchchecker_plugin.instances import load_instances
    from benchchecker_plugin.repos import ReleaseHistory, fetch_releases, is_release_repo
    from benchchecker_plugin.stage2 import locate, own_fix_snapshot, pr_dates

    instances = load_instances(args.data_dir / "swebench_verified" / "swebench_verified_composite.jsonl")
    if args.repos:
        instances = [i for i in instances if i.repo in args.repos]
    dated = pr_dates(instances)
    need: dict[Path, set[str]] = {}
    for inst in instances:
        path = locate(args.repos_dir, inst, releases_dir=args.releases_dir)
        own = own_fix_snapshot(path, inst, dated.get(inst.instance_id))
        if own.to_fetch and is_release_repo(path):
            need.setdefault(path, set()).update(own.to_fetch)
    for path, versions in need.items():
        hist = ReleaseHistory.open(path)
        have = {r.version for r in hist.fetched}
        t0 = time.perf_counter()
        res = fetch_releases(hist.package, hist.repo, path.parent, versions=have | versions)
        print(f"releases {hist.repo}: {len(res.added)} own fix releases added in "
              f"{(time.perf_counter() - t0) / 60:.1f} min", file=sys.stderr)


def print_recall(bundle: Path) -> None:
    df = pd.read_csv(bundle / "own_fix_recall.csv", dtype=str, keep_default_na=False)
    found = int((df["verdict"] == "present").sum())
    causes = Counter(r.split(":")[0] for r in df["miss_reason"] if r)
    detail = Counter(r.split(" though")[0].split(" (")[0] for r in df["miss_reason"] if r)
    print(f"own fix recall: {found} of {len(df)} instances found present at their own fix snapshot "
          f"({100 * found / len(df):.1f}%); misses: " + "; ".join(f"{k} {v}" for k, v in causes.most_common()))
    for k, v in detail.most_common():
        print(f"  {v:4d}  {k}")


def main(argv: Sequence[str] | None = None) -> int:
    args = _args(argv)
    if args.fetch_releases:
        if args.repos_dir is None:
            raise SystemExit("--fetch-releases needs --repos-dir (and --releases-dir)")
        fetch_own_fix_releases(args)
    if args.bundle is not None:
        print_recall(args.bundle)
    if not args.fetch_releases and args.bundle is None:
        raise SystemExit("give --fetch-releases or --bundle DIR (the table itself is written by "
                         "`benchchecker republish --repos-dir ...`)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
