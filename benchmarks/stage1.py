"""Stage I speed: mining time on a ~50k-line source tree, and probing throughput batched vs one
prompt at a time on a local model.

    python benchmarks/stage1.py                     # tiny GPT-2 built from config (no download)
    python benchmarks/stage1.py --model hf/smollm2-135m --queries 32

Mining: installed packages' source trees (read in place) until 50k lines; each miner timed
separately, then query building end to end. Probing: the same queries, n=1 sample, batch size 1
vs ``--batch-size``; one warm-up call is made first and kept out of the timings (model load,
first-call allocation). Timings are wall-clock on whatever machine runs this (shared machines
give noisy absolute numbers; the ratio is what the goal is about: batched >= 5x).
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

import torch

from benchchecker_plugin.models import GenerationParams
from benchchecker_plugin.stage1 import SourceFile, build_queries, probe, read_sources
from benchchecker_plugin.stage1.mining import (extract_template, find_clones, find_cooccurrences,
                                               find_near_duplicates)

PACKAGES = ("click", "jinja2", "requests", "rich", "tqdm", "jsonschema", "yaml", "packaging",
            "pygments", "urllib3", "attr", "dateutil", "httpx", "fsspec", "aiohttp", "nltk")


def source_tree(n_lines: int) -> list[SourceFile]:
    files: list[SourceFile] = []
    total = 0
    for pkg in PACKAGES:
        spec = importlib.util.find_spec(pkg)
        if spec is None or not spec.submodule_search_locations:
            continue
        for f in read_sources(Path(list(spec.submodule_search_locations)[0])):
            files.append(SourceFile(f"{pkg}/{f.path}", f.text))
            total += f.n_lines
            if total >= n_lines:
                return files
    return files


def tiny_model():  # a random GPT-2 (no download): the probing cost, not its answers, is measured
    from transformers import GPT2Config, GPT2LMHeadModel

    from benchchecker_plugin.membership import LocalCausalLM, train_tokenizer

    torch.manual_seed(0)
    tok = train_tokenizer([f.text for f in source_tree(3000)], 2048)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tok), n_positions=256, n_embd=256, n_layer=4,
                                       n_head=4))
    return LocalCausalLM(model, tok, "local/gpt2-4m-random", batch_size=64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=50_000)
    ap.add_argument("--model", default=None, help="model spec (default: tiny random GPT-2)")
    ap.add_argument("--queries", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    files = source_tree(args.lines)
    n_lines = sum(f.n_lines for f in files)
    print(f"mining {len(files)} files, {n_lines} lines")
    times = {}
    t = time.perf_counter(); clones = find_clones(files); times["clones"] = time.perf_counter() - t
    t = time.perf_counter(); dups = find_near_duplicates(files); times["simhash"] = time.perf_counter() - t
    t = time.perf_counter(); co = find_cooccurrences(files); times["prefixspan"] = time.perf_counter() - t
    t = time.perf_counter()
    for c in clones[:400] + dups[:400] + co[:400]:
        extract_template(c)
    times["templates"] = time.perf_counter() - t
    t = time.perf_counter(); queries = build_queries(files, n_queries=args.queries); times["build_queries (all)"] = time.perf_counter() - t
    for k, v in times.items():
        print(f"  {k:<22} {v:7.2f} s")
    print(f"  clusters: {len(clones)} clones, {len(dups)} near-duplicate, {len(co)} co-occurrence; "
          f"{len(queries)} queries kept; {n_lines / times['build_queries (all)']:.0f} lines/s end to end")

    if args.model:
        from benchchecker_plugin.models import get_model

        model = get_model(args.model, batch_size=args.batch_size)
    else:
        model = tiny_model()
    model.generate([queries[0].query], GenerationParams(max_tokens=16, temperature=1.0))  # warm-up
    rates = {}
    for bs in (1, args.batch_size):
        if hasattr(model, "batch_size"):
            model.batch_size = bs
        t = time.perf_counter()
        probe(model, queries, n_samples=1, batch_size=bs, max_tokens=16)
        rates[bs] = len(queries) / (time.perf_counter() - t)
        print(f"probing batch_size={bs:<3} {rates[bs]:8.2f} items/s")
    ratio = rates[args.batch_size] / rates[1]
    print(f"batched / one-at-a-time: {ratio:.1f}x (goal >= 5x) on {getattr(model, 'spec', '?')}")


if __name__ == "__main__":
    main()
