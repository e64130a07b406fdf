"""--verify venv on real SWE-bench Verified instances (issue 18): how many of Stage II's undecided
instances the per-version environments settle, per repository, and what it costs.

    python benchmarks/verify_venv.py --instances <swebench_verified_fullfields_subset.jsonl> \\
        --repos-dir <clones> [--env-specs specs.json] [--cutoff 2024-04-30] [--envs-dir DIR] \\
        [--repos sympy/sympy,psf/requests,...]

Stage II runs first without tests; every undecided instance then goes to the venv runner (gold
patch first: an environment where it does not pass is not trusted). Prints, per repository: the
undecided, settled contaminated / clean, left undecided (environment unavailable or not trusted)
with the reasons, and the time per environment build and per instance.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from pathlib import Path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--instances", required=True)
    p.add_argument("--repos-dir", required=True)
    p.add_argument("--env-specs", default=None,
                   help="JSON {repo: {version: spec}}; default: the shipped Verified table")
    p.add_argument("--cutoff", default="2024-04-30")
    p.add_argument("--envs-dir", default=None)
    p.add_argument("--env-constraints", default=None, help="pip constraints for every build (an era's releases)")
    p.add_argument("--repos", default="sympy/sympy,psf/requests,pallets/flask,pylint-dev/pylint,pytest-dev/pytest")
    p.add_argument("--timeout", type=float, default=900)
    args = p.parse_args()

    from benchchecker_plugin.instances import load_swebench
    from benchchecker_plugin.stage2 import PresenceConfig, run_stage2
    from benchchecker_plugin.testrun import EnvUnavailable, VenvRunner, load_env_specs

    wanted = args.repos.split(",")
    insts = [i for i in load_swebench(args.instances) if i.repo in wanted
             and (Path(args.repos_dir) / i.repo.replace("/", "__")).is_dir()]
    t = time.perf_counter()
    plain = list(run_stage2(insts, args.repos_dir, {"*": args.cutoff}, config=PresenceConfig(), reuse_counts=False).flags)
    print(f"Stage II at {args.cutoff}: {len(insts)} instances in {time.perf_counter() - t:.0f} s: "
          f"{Counter(f.evidence.get('category') for f in plain)}")
    undecided = [i for i, f in zip(insts, plain) if f.contaminated is None and "error" not in f.evidence]
    runner = VenvRunner(args.repos_dir, load_env_specs(args.env_specs), envs_dir=args.envs_dir,
                        timeout=args.timeout, constraints=args.env_constraints)
    rows: dict[str, Counter] = defaultdict(Counter)
    reasons: dict[str, Counter] = defaultdict(Counter)
    times: list[float] = []
    for inst in insts:
        rows[inst.repo]["instances"] += 1
    for inst in undecided:
        t = time.perf_counter()
        (flag,) = list(run_stage2([inst], args.repos_dir, {"*": args.cutoff}, config=PresenceConfig(runner=runner), reuse_counts=False).flags)
        times.append(time.perf_counter() - t)
        cat = flag.evidence.get("category")
        rows[inst.repo]["undecided"] += 1
        detail = flag.evidence.get("verification", {}).get("detail", flag.evidence.get("error", ""))
        if cat in ("verified-by-tests", "refuted-by-tests"):
            rows[inst.repo][cat] += 1
        else:
            rows[inst.repo]["left undecided"] += 1
            reasons[inst.repo][detail.split(":")[0] + ": " + detail.split(":", 2)[-1].strip()[:90]] += 1
        print(f"  {inst.instance_id} v{inst.extra.get('version')}: {cat} ({times[-1]:.0f} s) {detail[:120]}",
              flush=True)
    print(f"\n{'repository':22} {'inst':>5} {'undecided':>9} {'contam.':>8} {'clean':>6} {'left':>5}")
    for repo, c in sorted(rows.items()):
        print(f"{repo:22} {c['instances']:5} {c['undecided']:9} {c['verified-by-tests']:8} "
              f"{c['refuted-by-tests']:6} {c['left undecided']:5}")
        for why, n in reasons[repo].items():
            print(f"    {n} x {why}")
    used = []   # the environments of this run's undecided instances (the folder may hold others)
    for inst in undecided:
        try:
            used.append(Path(runner.envs_dir) / runner.env_key(inst))
        except EnvUnavailable:
            continue
    used = sorted(set(used))
    built = [json.loads((d / ".ok").read_text()) | {"env": d.name} for d in used if (d / ".ok").is_file()]
    failed = [(d.name, json.loads((d / ".failed").read_text())["reason"]) for d in used if (d / ".failed").is_file()]
    print(f"\nenvironments built: {len(built)}; could not be built: {len(failed)}")
    for b in built:
        print(f"  {b['env']}: {b['build_s']} s (python {b['python']})")
    for name, why in failed:
        print(f"  {name}: {why[:150]}")
    if times:
        print(f"time per undecided instance (incl. builds, gold run): median {sorted(times)[len(times) // 2]:.0f} s, "
              f"total {sum(times):.0f} s")


if __name__ == "__main__":
    main()
