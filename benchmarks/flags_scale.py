"""Flags at scale (issue 14, item 14), each beside the old path measured in the same run.

1. Reading: records per second of ``read_flags`` (msgspec decodes and checks each chunk against
   the schema's record type; jsonschema only for what it does not accept) beside the old path
   (``json`` + jsonschema on every record), timed on ``--old-n`` records. Goal: 1e6 records read
   and validated in <= 10 s.
2. Leaderboard: ``benchchecker leaderboard`` over ``--subs`` submissions x ``--instances``
   instances x (instances x ``--models``) flags, in a child process (wall time and peak RSS),
   beside the old per-submission merge (every flag re-merged for each submission) timed on
   ``--old-subs`` submissions and scaled per submission. Goal (issue 38): 100 x 1e5 x 1e6 in
   <= 10 s, peak memory <= 1 GB. With ``--baseline DIR`` (a checkout of the code before, e.g.
   ``git worktree add /tmp/before <commit>``) the same job also runs on that code in the same
   run, and the two runs' output files are compared byte for byte (sha256); without it, the
   recorded baseline (issue 38, main at ee81e5e: 45 s, 0.91 GB peak RSS) is printed beside.
   Wall and CPU time (user + system) are both printed, with the load: on a shared machine the
   wall time is the load's as much as the code's.

    python benchmarks/flags_scale.py [--n 1000000] [--old-n 100000]
           [--subs 100 --instances 100000 --models 10 --old-subs 3] [--baseline DIR]
           [--skip-read|--skip-leaderboard]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path


def _write(path: Path, n: int) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({
                "schema_version": 1, "benchmark": "swe-bench-verified",
                "instance_id": f"org__repo-{i}", "model": f"model-{i % 100}",
                "method": "benchchecker.stage2", "contaminated": bool(i % 3),
                "score": (i % 1000) / 1000, "p_value": None,
                "evidence": {"verdict": "present", "similarity": 0.93},
                "created_at": "2026-12-01T00:00:00Z", "tool_version": "0.1.0"}) + "\n")


def _old(path: Path) -> int:
    """The path before: jsonschema validates every record."""
    from benchchecker_plugin.flags import ContaminationFlag
    from benchchecker_plugin.flags._io import _validator

    validator = _validator()
    n = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            data = json.loads(line)
            errors = list(validator.iter_errors(data))
            assert not errors
            ContaminationFlag.from_dict(data)
            n += 1
    return n


TIERS = ("<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours")


def _leaderboard_data(root: Path, subs: int, n_inst: int, n_models: int) -> tuple[Path, Path, Path]:
    """Submissions (experiments layout), a tiers CSV (the instance list) and the flags file:
    Stage II flags for every (instance, model); each submission is one of the models."""
    import random

    rng = random.Random(0)
    ids = [f"org__repo-{i}" for i in range(n_inst)]
    tiers = root / "tiers.csv"
    tiers.write_text("instance_id,difficulty\n" + "".join(f"{iid},{TIERS[i % 4]}\n" for i, iid in enumerate(ids)))
    for k in range(subs):
        folder = root / "subs" / f"2025010{k % 9 + 1}_sub{k:03d}"
        (folder / "results").mkdir(parents=True)
        resolved = [iid for iid in ids if rng.random() < 0.3 + 0.4 * (k / subs)]
        (folder / "results" / "results.json").write_text(json.dumps({"resolved": resolved}))
        (folder / "metadata.yaml").write_text(f"info:\n  name: sub {k}\ntags:\n  model: [model-{k % n_models}]\n")
    flags = root / "flags.jsonl"
    with open(flags, "w", encoding="utf-8") as fh:
        for m in range(n_models):
            for i, iid in enumerate(ids):
                c = rng.random()
                fh.write(json.dumps({
                    "schema_version": 1, "benchmark": "swe-bench-verified", "instance_id": iid,
                    "model": f"model-{m}", "method": "benchchecker.stage2",
                    "contaminated": True if c < 0.3 else False if c < 0.9 else None,
                    "score": round(c, 3), "p_value": None,
                    "evidence": {"category": "present", "snapshot_commit": f"{i:040x}"},
                    "created_at": "2026-12-01T00:00:00Z", "tool_version": "0.1.0"}) + "\n")
    return root / "subs", tiers, flags


def _leaderboard(args: argparse.Namespace) -> None:
    import subprocess
    import sys

    from benchchecker_plugin.flags import merge_flags, read_flags
    from benchchecker_plugin.leaderboard import load_submissions

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        subs_dir, tiers, flags = _leaderboard_data(Path(tmp), args.subs, args.instances, args.models)
        n_flags = args.instances * args.models
        print(f"data: {args.subs} submissions x {args.instances:,} instances x {n_flags:,} flags "
              f"(written in {time.perf_counter() - t:.0f} s)")
        code = ("import resource, sys, time\n"
                "from benchchecker_plugin.cli import main\n"
                "t = time.perf_counter()\n"
                "try:\n    main(sys.argv[1:], standalone_mode=False)\n"
                "finally:\n"
                "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
                "    print('WALL', time.perf_counter() - t, 'RSS', u.ru_maxrss, 'CPU', u.ru_utime + u.ru_stime)\n")

        def run(out: Path, pythonpath: str) -> tuple[float, float, float, dict[str, str]]:
            env = dict(os.environ, PYTHONPATH=pythonpath)   # cwd=tmp: no '' entry shadows it
            proc = subprocess.run([sys.executable, "-c", code, "leaderboard", "--submissions",
                                   str(subs_dir), "--flags", str(flags), "--tiers", str(tiers),
                                   "--benchmark", "swe-bench-verified", "--out", str(out)],
                                  capture_output=True, text=True, check=False, env=env, cwd=tmp)
            last = [ln for ln in proc.stdout.splitlines() if ln.startswith("WALL")]
            if proc.returncode != 0 or not last:
                raise SystemExit(f"leaderboard failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
            _, wall, _, rss, _, cpu = last[-1].split()
            digests = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in sorted(out.iterdir())}
            return float(wall), float(cpu), int(rss) / 2**20, digests

        load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        new_s, new_cpu, peak_gb, new_files = run(Path(tmp) / "out",
                                                 str(Path(__file__).resolve().parents[1]))
        print(f"leaderboard (flags as columns, verdicts per instance list, draws while reading): "
              f"{new_s:.1f} s wall, {new_cpu:.1f} s CPU, peak RSS {peak_gb:.2f} GB "
              f"(goal: <= 10 s, <= 1 GB; {load})")
        if args.baseline is not None:
            old_s, old_cpu, old_gb, old_files = run(Path(tmp) / "out-before",
                                                    str(args.baseline.resolve()))
            print(f"before ({args.baseline}), same run: {old_s:.1f} s wall, {old_cpu:.1f} s CPU, peak "
                  f"RSS {old_gb:.2f} GB -> {old_cpu / new_cpu:.2f}x the CPU time, memory now "
                  f"{peak_gb / old_gb:.0%} of before (load average {os.getloadavg()[0]:.1f} after)")
            same = old_files == new_files
            print(f"output files ({', '.join(new_files)}): "
                  f"{'byte-identical (sha256)' if same else 'DIFFER'}")
            if not same:
                raise SystemExit("the leaderboard's files differ from the baseline's")
        else:
            print("before (recorded, issue 38: main at ee81e5e, 2 CPUs at load ~4): 45 s wall, "
                  "45 s CPU, 0.91 GB peak RSS; give --baseline DIR to measure it in this run and "
                  "compare the files")

        # the old path: for each submission, every flag filtered and the applicable ones merged into
        # new records (merge_flags), as `leaderboard` did before (timed on a few, per submission)
        all_flags = read_flags(flags)
        subs = load_submissions(subs_dir)[: args.old_subs]
        t = time.perf_counter()
        for sub in subs:
            (model,) = sub.models
            relevant = [f for f in all_flags if f.benchmark == "swe-bench-verified" and f.applies_to(model)]
            {m.instance_id: m.verdict for m in merge_flags(relevant) if m.applies_to(model)}
        per_sub = (time.perf_counter() - t) / len(subs)
        print(f"old path (all {n_flags:,} flags filtered and merged per submission): {per_sub:.1f} s per "
              f"submission -> {args.subs} submissions: {per_sub * args.subs:.0f} s in verdicts alone; "
              f"whole leaderboard {per_sub * args.subs / new_s:.1f}x slower than now")


def _read(args: argparse.Namespace) -> None:
    from benchchecker_plugin.flags import read_flags

    with tempfile.TemporaryDirectory() as tmp:
        big, small = Path(tmp) / "big.jsonl", Path(tmp) / "small.jsonl"
        _write(big, args.n)
        _write(small, args.old_n)
        read_flags(small)   # warm-up: schema, regexes
        t = time.perf_counter()
        n_new = len(read_flags(big))
        new_s = time.perf_counter() - t
        t = time.perf_counter()
        n_old = _old(small)
        old_s = time.perf_counter() - t
    new_rate, old_rate = n_new / new_s, n_old / old_s
    print(f"read_flags (msgspec check): {n_new:,} records in {new_s:.1f} s = {new_rate:,.0f}/s "
          f"(goal: 1e6 in <= 10 s)")
    print(f"old path (jsonschema on every record): {n_old:,} records in {old_s:.1f} s = "
          f"{old_rate:,.0f}/s -> 1e6 would take {1e6 / old_rate:.0f} s")
    print(f"speed-up per record: {new_rate / old_rate:.1f}x")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--old-n", type=int, default=100_000)
    p.add_argument("--subs", type=int, default=100)
    p.add_argument("--instances", type=int, default=100_000)
    p.add_argument("--models", type=int, default=10)
    p.add_argument("--old-subs", type=int, default=3)
    p.add_argument("--baseline", type=Path, default=None,
                   help="a checkout of the code before: run the same job on it, compare files")
    p.add_argument("--skip-read", action="store_true")
    p.add_argument("--skip-leaderboard", action="store_true")
    args = p.parse_args()
    if not args.skip_read:
        _read(args)
    if not args.skip_leaderboard:
        _leaderboard(args)


if __name__ == "__main__":
    main()
