"""Greedy generation of N prompts: batched (left padding) vs one prompt at a time, same local model.

    python benchmarks/generation.py                 # SmolLM2-135M, 16 prompts, 16 new tokens
    python benchmarks/generation.py --n 32 --batch-size 16 --threads 2 --device cuda

Baseline: the same ``hf/`` model generating the same prompts one at a time, measured in the same
run. Model loading and a warm-up call are kept out of both timings. The outputs of the two runs
are compared (they must be equal under greedy decoding) and the script says so.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

TOPICS = ["The history of", "A recipe for", "def parse_", "The main result of the paper is", "In 1905,",
          "import torch\n", "The capital of", "Q: What is the boiling point of water?\nA:"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="hf/smollm2-135m")
    parser.add_argument("--n", type=int, default=16, help="number of prompts")
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()

    import torch

    from benchchecker_plugin.models import GenerationParams, get_model

    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    model = get_model(args.model, batch_size=args.batch_size, device=args.device)
    load_s = time.perf_counter() - t0
    prompts = [f"{TOPICS[i % len(TOPICS)]} {'item ' * (i % 5)}{i}".rstrip() for i in range(args.n)]
    params = GenerationParams(max_tokens=args.max_tokens)
    model.generate(prompts[:2], params)  # warm-up (kept out of the timings)

    t0 = time.perf_counter()
    batched = model.generate(prompts, params)
    batched_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    single = [model.generate([p], params)[0] for p in prompts]
    single_s = time.perf_counter() - t0

    same = sum(a.text == b.text for a, b in zip(batched, single))
    print(f"model {args.model} on {args.device}, {args.threads} thread(s); load {load_s:.1f} s (not timed)")
    print(f"{args.n} prompts x {args.max_tokens} new tokens, greedy; warm-up excluded")
    print(f"one at a time (baseline): {single_s:7.2f} s  {args.n / single_s:7.2f} items/s")
    print(f"batched (batch {args.batch_size:>3}):     {batched_s:7.2f} s  {args.n / batched_s:7.2f} items/s")
    print(f"speed-up batched / one-at-a-time: {single_s / batched_s:.2f}x")
    print(f"identical outputs: {same}/{args.n}")


if __name__ == "__main__":
    main()
