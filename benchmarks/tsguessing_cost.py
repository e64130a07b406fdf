"""Cost per TS-Guessing probe, MMLU vs TruthfulQA multichoice (issue 13, item 14).

A user measured TruthfulQA at ~5x MMLU's CPU time per probe (7 vs 1.3 CPU-s). This prints, for
the same model, batch size and number of probes on each benchmark: prompt and reply lengths in
tokens, how many replies run to the token limit, and CPU / wall seconds per probe (generation
only; loading and masking are timed apart). Run it on an idle machine:

    python benchmarks/tsguessing_cost.py [--probes 32] [--batch-size 16] [--model hf/smollm2-135m]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--probes", type=int, default=32)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--model", default="hf/smollm2-135m")
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()

    import torch

    from benchchecker_plugin.models import get_model
    from benchchecker_plugin.tsguessing import DEFAULT_PARAMS, load_items, prepare_probes

    torch.set_num_threads(args.threads)
    model = get_model(args.model, batch_size=args.batch_size)
    tok = model.tokenizer
    rows = []
    for bench, path in (("mmlu", DATA / "mmlu"), ("truthfulqa", DATA / "truthfulqa" / "TruthfulQA.csv")):
        t0 = time.process_time()
        items = load_items(bench, path)
        prep = prepare_probes(items, "multichoice")
        probes = prep.probes[:args.probes]
        prep_s = time.process_time() - t0
        cpu, wall = time.process_time(), time.perf_counter()
        outs = model.generate([q.prompt for q in probes], DEFAULT_PARAMS)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        plen = [len(tok(q.prompt)["input_ids"]) for q in probes]
        glen = [len(tok(o.text)["input_ids"]) for o in outs]
        rows.append((bench, len(items), len(prep.probes), prep_s, sum(plen) / len(plen),
                     sum(glen) / len(glen), sum(g >= DEFAULT_PARAMS.max_tokens - 1 for g in glen),
                     cpu / len(probes), wall / len(probes)))
    print(f"{args.model}, batch {args.batch_size}, {args.probes} probes each, {args.threads} thread(s)")
    print("benchmark | items | probes | load+mask CPU-s | prompt tokens | reply tokens | "
          "replies at limit | CPU-s/probe | wall-s/probe")
    for r in rows:
        print(f"{r[0]} | {r[1]} | {r[2]} | {r[3]:.1f} | {r[4]:.0f} | {r[5]:.1f} | {r[6]} | "
              f"{r[7]:.2f} | {r[8]:.2f}")
    print(f"ratio truthfulqa / mmlu, CPU per probe: {rows[1][7] / rows[0][7]:.2f}")


if __name__ == "__main__":
    main()
