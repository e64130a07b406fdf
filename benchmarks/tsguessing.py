"""TS-Guessing speed: (1) preparing all 14,042 MMLU items (filter + mask + prompt), goal <= 10 s;
(2) items/s batched vs one prompt at a time on the same local model, goal >= 5x.

    python benchmarks/tsguessing.py                       # SmolLM2-135M, 32 MMLU probes, batch 16
    python benchmarks/tsguessing.py --n 64 --batch-size 32 --threads 2 --device cuda
    python benchmarks/tsguessing.py --skip-generation     # preparation timing only

(1) is timed from reading the CSVs to the last prompt, in an already-imported process (imports
and the first call of each code path are kept out: one warm-up pass over 200 items runs first).
(2) Baseline: the same ``hf/`` model asked one probe per ``generate`` call (as the peer
implementation does), measured in the same run; model loading and a warm-up call are kept out of
both timings. Both runs use greedy decoding, 24 new tokens at most, stop at newline; the script
says whether their flags agree.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("BENCHCHECKER_PROGRESS", "0")
DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def prepare_timing(mmlu: Path) -> None:
    from benchchecker_plugin.tsguessing import load_mmlu, prepare_probes

    prepare_probes(load_mmlu(mmlu)[:200], "multichoice")  # warm-up (lazy imports, caches)
    prepare_probes(load_mmlu(mmlu)[:200], "question")
    for mode in ("multichoice", "question"):
        t0, cpu0 = time.perf_counter(), time.process_time()
        items = load_mmlu(mmlu)
        prep = prepare_probes(items, mode)
        dt, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        # CPU time next to wall time: on a loaded machine the gap is time spent waiting for a core
        print(f"prepare {mode:11s}: {len(items)} items -> {len(prep.probes)} probes "
              f"({sum(prep.dropped.values())} dropped) in {dt:.2f} s (CPU {cpu:.2f} s) "
              f"(goal <= 10 s: {'met' if dt <= 10 else 'NOT met'})")


def generation_timing(args: argparse.Namespace, mmlu: Path) -> None:
    import torch

    from benchchecker_plugin.models import get_model
    from benchchecker_plugin.tsguessing import generation_params, load_mmlu, prepare_probes, run_probes

    torch.set_num_threads(args.threads)
    probes = prepare_probes(load_mmlu(mmlu), "multichoice").probes[: args.n]
    params = generation_params(24)
    batched = get_model(args.model, batch_size=args.batch_size, device=args.device)
    single = get_model(args.model, batch_size=1, device=args.device)
    run_probes(batched, probes[:2], params=params, batch_size=2)  # warm-up
    run_probes(single, probes[:1], params=params, batch_size=1)

    t0 = time.perf_counter()
    one = run_probes(single, probes, params=params, batch_size=1)
    t_one = time.perf_counter() - t0
    t0 = time.perf_counter()
    many = run_probes(batched, probes, params=params, batch_size=args.batch_size)
    t_many = time.perf_counter() - t0
    same = [f.evidence.get("answer") for f in one] == [f.evidence.get("answer") for f in many]
    print(f"{args.model} on {args.device}, {len(probes)} probes, {args.threads} thread(s):")
    print(f"  one prompt at a time : {len(probes) / t_one:7.2f} items/s ({t_one:.1f} s)")
    print(f"  batched ({args.batch_size:3d})        : {len(probes) / t_many:7.2f} items/s ({t_many:.1f} s)")
    ratio = t_one / t_many
    print(f"  speed-up             : {ratio:7.2f}x (goal >= 5x: {'met' if ratio >= 5 else 'NOT met'}); "
          f"answers {'identical' if same else 'DIFFER'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="hf/smollm2-135m")
    parser.add_argument("--mmlu", type=Path, default=DATA / "mmlu")
    parser.add_argument("--n", type=int, default=32, help="probes to generate for")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--skip-generation", action="store_true")
    args = parser.parse_args()
    prepare_timing(args.mmlu)
    if not args.skip_generation:
        generation_timing(args, args.mmlu)


if __name__ == "__main__":
    main()
