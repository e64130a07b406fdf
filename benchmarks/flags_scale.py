"""Reading flags at scale (issue 14, item 14): records per second of ``read_flags`` (the fast
check, jsonschema only for records it does not accept) beside the old path (jsonschema on every
record), in the same run.

    python benchmarks/flags_scale.py [--n 1000000] [--old-n 100000]

The old path is timed on ``--old-n`` records (it is ~100x slower) and its rate compared per
record. Goal: 1e6 records read and validated in <= 10 s.
"""

from __future__ import annotations

import argparse
import json
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
    from benchchecker_plugin.flags.io import _validator

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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--old-n", type=int, default=100_000)
    args = p.parse_args()

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
    print(f"read_flags (fast check): {n_new:,} records in {new_s:.1f} s = {new_rate:,.0f}/s "
          f"(goal: 1e6 in <= 10 s)")
    print(f"old path (jsonschema on every record): {n_old:,} records in {old_s:.1f} s = "
          f"{old_rate:,.0f}/s -> 1e6 would take {1e6 / old_rate:.0f} s")
    print(f"speed-up per record: {new_rate / old_rate:.1f}x")


if __name__ == "__main__":
    main()
