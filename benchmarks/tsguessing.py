"""TS-Guessing speed: (1) preparing all 14,042 MMLU items (filter + mask + prompt), goal <= 10 s;
(2) items/s one prompt at a time, batched, and batched with shared-prefix caching on the same local
model, in one run; goal >= 3x one at a time with identical greedy answers.

    python benchmarks/tsguessing.py                       # SmolLM2-135M, 32 MMLU probes, batch 16
    python benchmarks/tsguessing.py --n 64 --batch-size 32 --threads 2 --device cuda
    python benchmarks/tsguessing.py --skip-generation     # preparation timing only

(1) is timed from reading the CSVs to the last prompt, in an already-imported process (imports
and the first call of each code path are kept out: one warm-up pass over 200 items runs first).
(2) Baseline: the same ``hf/`` model asked one probe per ``generate`` call (as the peer
implementation does), measured in the same run; model loading and a warm-up call are kept out of
both timings. Both runs use the TS-Guessing decoding (greedy, no stop string, 32 new tokens at
most); the script says whether their answers agree. It then times the prompt read alone (one new
token) both ways: where reading the prompt is compute-bound (a CPU), batching does not make it
cheaper, and one-at-a-time time / batched prompt-read time bounds the speed-up any batching gets.
Shared-prefix caching (:mod:`benchchecker_plugin.models._prefix`) reads the part of the prompts they
share once; the script prints that share of the prompt tokens and the bound with it.
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


def _timed(model, probes, params, batch_size):
    from benchchecker_plugin.tsguessing import run_probes

    t0 = time.perf_counter()
    flags = run_probes(model, probes, params=params, batch_size=batch_size)
    return time.perf_counter() - t0, [f.evidence.get("answer") for f in flags]


def generation_timing(args: argparse.Namespace, mmlu: Path) -> None:
    import torch

    from benchchecker_plugin.models import get_model
    from benchchecker_plugin.tsguessing import DEFAULT_PARAMS, generation_params, load_mmlu, prepare_probes

    torch.set_num_threads(args.threads)
    probes = prepare_probes(load_mmlu(mmlu), "multichoice").probes[: args.n]
    params = DEFAULT_PARAMS
    # No prompt KV reuse: every timed call must read its prompts (the prompt-read timing below
    # asks the same prompts again).
    batched = get_model(args.model, batch_size=args.batch_size, device=args.device, prefill_cache_mb=0,
                        prefix_cache_mb=0)
    single = get_model(args.model, batch_size=1, device=args.device, prefill_cache_mb=0, prefix_cache_mb=0)
    _timed(batched, probes[:2], params, 2)  # warm-up
    _timed(single, probes[:1], params, 1)

    shared = get_model(args.model, batch_size=args.batch_size, device=args.device, prefill_cache_mb=0)
    _timed(shared, probes[:2], params, 2)
    t_one, one = _timed(single, probes, params, 1)
    t_many, many = _timed(batched, probes, params, args.batch_size)
    shared.prefixes.clear()  # the timed run reads its shared prefixes itself
    t_shared, answers = _timed(shared, probes, params, args.batch_size)
    fraction = _shared_fraction(shared, probes, params)
    print(f"{args.model} on {args.device}, {len(probes)} probes, {args.threads} thread(s), "
          f"greedy, at most {params.max_tokens} new tokens:")
    print(f"  one prompt at a time : {len(probes) / t_one:7.2f} items/s ({t_one:.1f} s)")
    print(f"  batched ({args.batch_size:3d})        : {len(probes) / t_many:7.2f} items/s ({t_many:.1f} s), "
          f"{t_one / t_many:.2f}x; answers {'identical' if one == many else 'DIFFER'}")
    ratio = t_one / t_shared
    print(f"  batched + shared prefix: {len(probes) / t_shared:5.2f} items/s ({t_shared:.1f} s), "
          f"{ratio:.2f}x (goal >= 3x: {'met' if ratio >= 3 else 'NOT met'}); answers "
          f"{'identical' if answers == one else 'DIFFER'}; {fraction:.0%} of the prompt tokens are "
          "a prefix shared with other probes")
    # Where the time goes: reading the prompt (one new token) vs the whole reply. Batching cannot
    # make the prompt read cheaper where it is compute-bound (a CPU), which caps the speed-up;
    # sharing the prefix reads fewer prompt tokens.
    first = generation_params(1)
    p_one, _ = _timed(single, probes, first, 1)
    p_many, _ = _timed(batched, probes, first, args.batch_size)
    shared.prefixes.clear()
    p_shared, _ = _timed(shared, probes, first, args.batch_size)
    print(f"  prompt read only (1 new token): one at a time {p_one:.1f} s, batched {p_many:.1f} s "
          f"({p_one / p_many:.2f}x), batched + shared prefix {p_shared:.1f} s ({p_one / p_shared:.2f}x)")
    print(f"  bounds on this device: batching {t_one / p_many:.2f}x (one-at-a-time / batched prompt "
          f"read), with shared prefixes {t_one / p_shared:.2f}x")


def _shared_fraction(model, probes, params) -> float:  # type: ignore[no-untyped-def]
    return float(model.shared_prefix_share([p.prompt for p in probes], params))


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
