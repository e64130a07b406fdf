"""Flags at scale (issue 14, item 14), each beside the old path measured in the same run.

1. Reading: records per second of ``read_flags`` (msgspec decodes and checks each chunk against
   the schema's record type; jsonschema only for what it does not accept) beside the old path
   (``json`` + jsonschema on every record), timed on ``--old-n`` records. Goal: 1e6 records read
   and validated in <= 10 s.
2. Leaderboard: ``benchchecker leaderboard`` over ``--subs`` submissions x ``--instances``
   instances x (instances x ``--models``) flags, in a child process (wall time, CPU time and
   peak RSS). Goal: 100 x 1e5 x 1e6 in <= 10 s, peak memory <= 1 GB. Beside it, in the same
   run, the same job with today's bootstrap draws before the split ones (one generator's
   multinomial draws in order, in one thread: ``_sequential_draws.py``, a copy kept here for
   this comparison); the two leaderboards' rates must be equal, and how far the intervals moved
   (other random numbers) is printed. With ``--baseline DIR`` (a checkout of the code before
   the split draws, e.g. ``git worktree add /tmp/before <commit>``) the job also runs on that
   code and its files must equal those of today's draws byte for byte (the copy is faithful).
   Last, the per-submission merge of before issue 38 (every flag re-merged for each
   submission), timed on ``--old-subs`` submissions and scaled. Wall and CPU time (user +
   system) are both printed, with the load: on a shared machine the wall time is the load's as
   much as the code's.

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

from benchchecker_plugin.scoring import draw_threads


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
    """The path before: jsonschema validates every record (``validate_record``)."""
    from benchchecker_plugin.flags import ContaminationFlag, validate_record

    n = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            data = json.loads(line)
            validate_record(data)
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


_CHILD = ("import resource, sys, time\n"
          "if sys.argv[1] == 'sequential':\n"
          "    sys.path.insert(0, sys.argv[2])\n"
          "    import _sequential_draws\n"
          "    _sequential_draws.install()\n"
          "from benchchecker_plugin.cli import main\n"
          "t = time.perf_counter()\n"
          "try:\n    main(sys.argv[3:], standalone_mode=False)\n"
          "finally:\n"
          "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
          "    print('WALL', time.perf_counter() - t, 'RSS', u.ru_maxrss, 'CPU', u.ru_utime + u.ru_stime)\n")


def _run_leaderboard(tmp: Path, data: tuple[Path, Path, Path], out: Path, pythonpath: str,
                     draws: str = "split") -> tuple[float, float, float, dict[str, str]]:
    """``benchchecker leaderboard`` in a child process: wall s, CPU s, peak RSS GB, sha256 of
    each file written. ``draws="sequential"``: with the draws of before (``_sequential_draws``)."""
    import subprocess
    import sys

    subs_dir, tiers, flags = data
    env = dict(os.environ, PYTHONPATH=pythonpath)   # cwd=tmp: no '' entry shadows it
    proc = subprocess.run([sys.executable, "-c", _CHILD, draws, str(Path(__file__).resolve().parent),
                           "leaderboard", "--submissions", str(subs_dir), "--flags", str(flags),
                           "--tiers", str(tiers), "--benchmark", "swe-bench-verified", "--out", str(out)],
                          capture_output=True, text=True, check=False, env=env, cwd=tmp)
    last = [ln for ln in proc.stdout.splitlines() if ln.startswith("WALL")]
    if proc.returncode != 0 or not last:
        raise SystemExit(f"leaderboard failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    _, wall, _, rss, _, cpu = last[-1].split()
    digests = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in sorted(out.iterdir())}
    return float(wall), float(cpu), int(rss) / 2**20, digests


def _interval_shift(new: Path, old: Path) -> str:
    """How the two runs' leaderboards differ: the rates (no bootstrap) must be equal; the drop
    intervals move with the random numbers."""
    import pandas as pd

    a, b = pd.read_csv(new / "leaderboard.csv"), pd.read_csv(old / "leaderboard.csv")
    rates = [c for c in a.columns if c.endswith("_rate") or c.startswith("n_")]
    if not a[rates].equals(b[rates]):
        raise SystemExit("the rates differ between the two draws: only the intervals may")
    shift = max(float((a[c] - b[c]).abs().max()) for c in ("drop_ci_low", "drop_ci_high"))
    return (f"rates identical; drop interval ends moved by at most {100 * shift:.2f} points "
            "(other random numbers, the same distribution)")


def _leaderboard(args: argparse.Namespace) -> None:
    here = str(Path(__file__).resolve().parents[1])
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        data = _leaderboard_data(Path(tmp), args.subs, args.instances, args.models)
        n_flags = args.instances * args.models
        print(f"data: {args.subs} submissions x {args.instances:,} instances x {n_flags:,} flags "
              f"(written in {time.perf_counter() - t:.0f} s)")
        load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        new_s, new_cpu, peak_gb, new_files = _run_leaderboard(Path(tmp), data, Path(tmp) / "out", here)
        print(f"leaderboard (split draws on {draw_threads()} thread(s)): {new_s:.1f} s wall, "
              f"{new_cpu:.1f} s CPU, peak RSS {peak_gb:.2f} GB (goal: <= 10 s, <= 1 GB; {load})")
        old_s, old_cpu, old_gb, old_files = _run_leaderboard(Path(tmp), data, Path(tmp) / "out-seq",
                                                             here, "sequential")
        print(f"today's draws (one generator in order, benchmarks/_sequential_draws.py), same run: "
              f"{old_s:.1f} s wall, {old_cpu:.1f} s CPU, peak RSS {old_gb:.2f} GB -> now "
              f"{old_s / new_s:.2f}x faster in wall time, {old_cpu / new_cpu:.2f}x in CPU "
              f"(load average {os.getloadavg()[0]:.1f} after)")
        print(_interval_shift(Path(tmp) / "out", Path(tmp) / "out-seq"))
        if args.baseline is not None:
            base_s, base_cpu, base_gb, base_files = _run_leaderboard(
                Path(tmp), data, Path(tmp) / "out-before", str(args.baseline.resolve()))
            print(f"before ({args.baseline}), same run: {base_s:.1f} s wall, {base_cpu:.1f} s CPU, "
                  f"peak RSS {base_gb:.2f} GB; its files "
                  f"{'equal' if base_files == old_files else 'DIFFER FROM'} those of today's draws "
                  "above (byte for byte)")
            if base_files != old_files:
                raise SystemExit("_sequential_draws.py does not draw what the code before drew")
        _old_merge(args, data, new_s, n_flags)


def _old_merge(args: argparse.Namespace, data: tuple[Path, Path, Path], new_s: float, n_flags: int) -> None:
    """The path before issue 38: for each submission, every flag filtered and the applicable ones
    merged into new records (merge_flags), timed on a few submissions, per submission."""
    from benchchecker_plugin.flags import merge_flags, read_flags
    from benchchecker_plugin.leaderboard import load_submissions

    subs_dir, _, flags = data
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
