"""Stage II on one process against a Ray cluster, and the full job projected onto N nodes.

    python benchmarks/scale.py                                  # a synthetic history (built here)
    python benchmarks/scale.py --cases 24 --cutoffs 6 --cpus 2
    python benchmarks/scale.py --repos-dir CLONES --instances verified.jsonl --limit 12

Runs the same multi-cutoff grid twice: ``run_stage2`` in this process (one core), then
``run_stage2`` with a Ray executor on a local Ray cluster of ``--cpus`` CPUs (one task per
repository chunk, each a whole grid over every cutoff, so the snapshot sharing is kept). Prints both wall times,
the ratio, and checks that the flags are identical (timings aside; ``--similarity difflib``, so
no embedding batch effects). Ray's start (``ray.init``) and the workers' first import of the
package are timed apart ("warm-up") and left out of the ratio: a long job pays them once.

The default grid is a synthetic labelled history built from the installed ``rich`` package
(``stage2.synthetic.build_history``) into two repositories; ``--repos-dir`` with ``--instances``
(any format ``load_instances`` reads) uses real clones instead, with ``--cutoffs`` cutoffs
spread over the instances' history.

The measured cost per (instance, model) pair on one core, and the cluster's parallel
efficiency (ratio / CPUs), project the full job (``--pairs``, default 180,000: SWE-bench,
Multi-SWE-bench and SWE-bench Verified x ~45 model cutoffs) onto N nodes of ``--node-cpus``
cores: hours = pairs x cost / (N x cores x efficiency). The cost per pair falls with more
cutoffs per run (snapshots are shared) and grows with repository size: measure on the real
clones before planning a cluster.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


def _strip(flag: Any) -> dict:  # noqa: ANN401
    d = flag.to_dict()
    d.pop("created_at", None)
    d["evidence"].pop("timings_s", None)
    return d


def _synthetic(root: Path, cases: int, n_cutoffs: int) -> tuple[list, dict]:
    import rich

    from benchchecker_plugin.stage2 import build_history

    cutoff = datetime(2024, 1, 1, tzinfo=UTC)
    src = Path(rich.__file__).parent
    instances = []
    for k, name in enumerate(("synthetic__one", "synthetic__two")):
        made = build_history(src, root / name, cutoff=cutoff, n_cases=max(1, cases // 2), seed=k,
                             repo_name=name.replace("__", "/"))
        instances += [c.instance for c in made]
    start = cutoff - timedelta(days=400)
    step = timedelta(days=(400 + 200) // max(1, n_cutoffs))
    cutoffs = {f"model-{j}": (start + step * (j + 1)).isoformat() for j in range(n_cutoffs)}
    return instances, cutoffs


def _real(repos_dir: Path, source: str, limit: int, n_cutoffs: int) -> tuple[list, dict]:
    from benchchecker_plugin.instances import load_instances

    instances = load_instances(source)[:limit]
    dates = sorted(i.created_at for i in instances if getattr(i, "created_at", None))
    lo = datetime.fromisoformat(str(dates[0])) if dates else datetime(2020, 1, 1, tzinfo=UTC)
    cutoffs = {f"model-{j}": (lo + timedelta(days=180 * j)).date().isoformat() for j in range(n_cutoffs)}
    return instances, cutoffs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=12, help="synthetic instances (two repositories)")
    ap.add_argument("--cutoffs", type=int, default=6, help="models (distinct cutoffs)")
    ap.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray cluster")
    ap.add_argument("--instances-per-task", type=int, default=None,
                    help="instances per Ray task (default: one task per repository, or per CPU "
                         "when there are fewer repositories than CPUs)")
    ap.add_argument("--repos-dir", type=Path, default=None, help="real clones (owner__name/), with --instances")
    ap.add_argument("--instances", default=None, help="instances file or dataset for --repos-dir")
    ap.add_argument("--limit", type=int, default=12, help="first N instances of --instances")
    ap.add_argument("--pairs", type=int, default=180_000, help="(instance, model) pairs of the full job")
    ap.add_argument("--node-cpus", default="2,16,64", help="cores per node in the projection (comma list)")
    args = ap.parse_args()

    import ray

    from benchchecker_plugin.execution import LocalExecutor, RayExecutor
    from benchchecker_plugin.stage2 import PresenceConfig, run_stage2

    config = PresenceConfig(similarity="difflib")
    with tempfile.TemporaryDirectory(prefix="bc-scale-") as tmp:
        t0 = time.perf_counter()
        if args.repos_dir is not None:
            if not args.instances:
                ap.error("--repos-dir needs --instances")
            root = args.repos_dir
            instances, cutoffs = _real(root, args.instances, args.limit, args.cutoffs)
        else:
            root = Path(tmp)
            instances, cutoffs = _synthetic(root, args.cases, args.cutoffs)
        pairs = len(instances) * len(cutoffs)
        print(f"grid: {len(instances)} instances x {len(cutoffs)} cutoffs = {pairs} pairs "
              f"({len({i.repo for i in instances})} repositories; built in {time.perf_counter() - t0:.1f} s)")

        t0 = time.perf_counter()
        local = run_stage2(instances, root, cutoffs, config=config, executor=LocalExecutor())
        local_s = time.perf_counter() - t0
        print(f"local, 1 process:      {local_s:8.2f} s  ({local_s / pairs * 1000:.1f} ms/pair; "
              f"{local.snapshots} snapshots)")

        t0 = time.perf_counter()
        ray.init(address="local", num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
        ex = RayExecutor()
        ex.map(_warm, list(range(args.cpus)))  # start the workers, import the package there
        warm_s = time.perf_counter() - t0
        repos = len({i.repo for i in instances})  # one task per repository, unless fewer than CPUs
        per_task = args.instances_per_task or (len(instances) if repos >= args.cpus
                                               else max(1, math.ceil(len(instances) / args.cpus)))
        tasks = sum(math.ceil(n / per_task) for n in Counter(i.repo.lower() for i in instances).values())
        t0 = time.perf_counter()
        on_ray = run_stage2(instances, root, cutoffs, config=config, executor=ex, instances_per_task=per_task)
        ray_s = time.perf_counter() - t0
        ray.shutdown()
        ratio = local_s / ray_s
        print(f"ray, {args.cpus} CPUs:           {ray_s:8.2f} s  ({tasks} tasks; warm-up "
              f"{warm_s:.1f} s not counted; {on_ray.snapshots} snapshots)")
        print(f"ratio local / ray:     {ratio:8.2f}x  (parallel efficiency {ratio / args.cpus:.0%})")
        same = [_strip(f) for f in local.flags] == [_strip(f) for f in on_ray.flags]
        errors = sum(1 for f in local.flags if "error" in f.evidence)
        print(f"flags identical:       {same}  ({len(local.flags)} flags, {errors} with an error)")

    cost = local_s / pairs
    eff = min(1.0, ratio / args.cpus)
    cores = [int(c) for c in args.node_cpus.split(",") if c.strip()]
    print(f"\nprojection: {args.pairs:,} pairs x {cost * 1000:.1f} ms/pair (one core), efficiency {eff:.0%}")
    print("| nodes | " + " | ".join(f"hours, {c}-core nodes" for c in cores) + " |")
    print("|---:|" + "---:|" * len(cores))
    for n in (1, 2, 4, 8, 16, 32, 64):
        print(f"| {n} | " + " | ".join(f"{args.pairs * cost / (n * c * eff) / 3600:.2f}" for c in cores) + " |")
    sys.exit(0 if same else 1)


def _warm(_: int) -> int:
    import benchchecker_plugin.stage2  # noqa: F401  (the workers' first import, outside the timing)

    return os.getpid()


if __name__ == "__main__":
    main()
