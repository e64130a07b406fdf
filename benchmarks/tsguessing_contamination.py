"""Controlled check of TS-Guessing on every seed: contaminate a small model with half of some MMLU
test items (fine-tuned until it reproduces them, verified with teacher forcing), then compare EM /
Rouge-L on the seen half with the unseen half, and the AUC of the flags' score for telling them
apart.

    python benchmarks/tsguessing_contamination.py                   # seeds 0-4, 100 items each
    python benchmarks/tsguessing_contamination.py --seeds 0 --items 40

Each seed is ``benchchecker eval ts-guess --seed S`` (``tsguessing.run_controlled``): items drawn
with the seed among usable multichoice probes of at most 700 characters, halves split at random,
a GPT-2 (2 layers, width 128, byte-level BPE of 4,000 tokens fitted to both halves) trained from
scratch on the seen probes until every seen target is reproduced (checked every 10 steps, at most
400), then asked through the model layer. A draw the model does not memorise is printed as such,
with no AUC. Prints one table row per seed and the seconds each took.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("BENCHCHECKER_PROGRESS", "0")
DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mmlu", type=Path, default=DATA / "mmlu")
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--mode", choices=("multichoice", "question"), default="multichoice")
    args = parser.parse_args()

    import dataclasses

    from benchchecker_plugin.tsguessing import CONTROLLED, run_controlled

    print("| seed | memorised | steps | EM seen | EM unseen | AUC (Rouge-L) | AUC (EM) | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for seed in args.seeds:
        config = dataclasses.replace(CONTROLLED, items=args.items, mode=args.mode).seeded(seed)
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            r, doc = run_controlled(tmp, args.mmlu, config)
        auc = doc["auc"] or {"rouge_l": float("nan"), "exact_match": float("nan")}
        print(f"| {seed} | {r.memorised_share:.0%} | {doc['training']['steps']} | "
              f"{r.em_contaminated:.2f} | {r.em_clean:.2f} | {auc['rouge_l']:.3f} | "
              f"{auc['exact_match']:.3f} | {time.perf_counter() - t0:.0f} |"
              + ("" if r.verified else f"  ({r.headline()})"))


if __name__ == "__main__":
    main()
