"""Stage I speed: mining time on a ~50k-line source tree, and probing throughput batched vs one
prompt at a time on a local model.

    python benchmarks/stage1.py                     # tiny GPT-2 built from config (no download)
    python benchmarks/stage1.py --model hf/smollm2-135m --queries 32

Mining: installed packages' source trees (read in place) until 50k lines; each miner timed
separately, then query building end to end. Probing: the same queries, ``--samples`` samples each
(probe's default, 5) at temperature 1.0, in three configurations measured in the same run:

1. baseline: one prompt per ``generate`` call, one call per sample (a plain loop over generate);
2. batches of ``--batch-size`` prompts, one call per sample, each call re-reading its prompts;
3. the same calls, reusing the prompts' KV cache from the previous sample (``PrefillCache``);
4. ``generate_samples`` decodes all samples of a batch at once from one read of each prompt
   (``--batch-size`` x ``--samples`` rows);
5. the default: 4, and queries that begin with the same tokens read that beginning once
   (shared-prefix caching, :mod:`benchchecker_plugin.models._prefix`); the script prints the share of
   query tokens that are such a shared prefix.

Each model is built and warmed up (one call) before its timing. Per-prompt seeds make the three
produce the same samples in all four; the script checks it. Timings are wall-clock on whatever machine runs
this (shared machines give noisy absolute numbers; the ratio is what the goal is about: >= 5x).
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

import torch

from benchchecker_plugin.models import GenerationParams
from benchchecker_plugin.stage1 import SourceFile, build_queries, probe, read_sources
from benchchecker_plugin.stage1.mining import (
    extract_template,
    find_clones,
    find_cooccurrences,
    find_near_duplicates,
)

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


class PerSeed:
    """A model seen through ``generate`` only: probe then makes one call per sample seed."""

    def __init__(self, model) -> None:
        self.model, self.spec = model, model.spec

    def generate(self, prompts, params):
        return self.model.generate(prompts, params)


def tiny_model(batch_size: int, prefill_mb: int, prefix_mb: int):  # a random GPT-2: cost, not answers
    from benchchecker_plugin.membership import LocalCausalLM
    from benchchecker_plugin.models import tiny_gpt2, train_tokenizer

    tok = train_tokenizer([f.text for f in source_tree(3000)], 2048)
    model = tiny_gpt2(tok, n_positions=256, n_embd=256, n_layer=4, n_head=4, eos_in_config=False, seed=0)
    return LocalCausalLM(model, tok, "local/gpt2-4m-random", batch_size=batch_size,
                         prefill_cache_mb=prefill_mb, prefix_cache_mb=prefix_mb)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=50_000)
    ap.add_argument("--model", default=None, help="model spec (default: tiny random GPT-2)")
    ap.add_argument("--queries", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--samples", type=int, default=5, help="samples per query (probe's default: 5)")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    files = source_tree(args.lines)
    n_lines = sum(f.n_lines for f in files)
    print(f"mining {len(files)} files, {n_lines} lines")
    times: dict[str, float] = {}

    def timed(name, fn, *a, **kw):
        t0 = time.perf_counter()
        result = fn(*a, **kw)
        times[name] = time.perf_counter() - t0
        return result

    clones = timed("clones", find_clones, files)
    dups = timed("simhash", find_near_duplicates, files)
    co = timed("prefixspan", find_cooccurrences, files)
    timed("templates", lambda: [extract_template(c) for c in clones[:400] + dups[:400] + co[:400]])
    queries = timed("build_queries (all)", build_queries, files, n_queries=args.queries)
    for k, v in times.items():
        print(f"  {k:<22} {v:7.2f} s")
    print(f"  clusters: {len(clones)} clones, {len(dups)} near-duplicate, {len(co)} co-occurrence; "
          f"{len(queries)} queries kept; {n_lines / times['build_queries (all)']:.0f} lines/s end to end")

    def make(batch_size: int, prefill_mb: int, samples_api: bool, prefix_mb: int):
        if args.model:
            from benchchecker_plugin.models import get_model

            model = get_model(args.model, batch_size=batch_size, prefill_cache_mb=prefill_mb,
                              prefix_cache_mb=prefix_mb)
        else:
            model = tiny_model(batch_size, prefill_mb, prefix_mb)
        return model if samples_api else PerSeed(model)

    bs = args.batch_size
    configs = [("one prompt per call, one call per sample (baseline)", 1, 0, False, 0),
               (f"batches of {bs}, one call per sample", bs, 0, False, 0),
               (f"batches of {bs}, one call per sample, prefill reuse", bs, 256, False, 0),
               (f"batches of {bs}, all samples in one call", bs, 256, True, 0),
               (f"batches of {bs}, all samples in one call, shared prefixes (default)", bs, 256, True, 256)]
    rates, samples = [], []
    for label, size, mb, api, prefix_mb in configs:
        model = make(size, mb, api, prefix_mb)
        model.generate([queries[0].query], GenerationParams(max_tokens=16, temperature=1.0))  # warm-up
        t = time.perf_counter()
        res = probe(model, queries, n_samples=args.samples, batch_size=size, max_tokens=16)
        rates.append(len(queries) / (time.perf_counter() - t))
        samples.append([r.samples for r in res])
        print(f"probing {label:<68} {rates[-1]:8.2f} queries/s ({rates[-1] / rates[0]:.1f}x)")
    hf = model.model if isinstance(model, PerSeed) else model
    share = hf.shared_prefix_share([q.query for q in queries], GenerationParams())
    print(f"shared-prefix share of the query tokens: {share:.0%}")
    same = all(s == samples[0] for s in samples)
    print(f"{len(queries)} queries x {args.samples} samples at temperature 1.0 on "
          f"{getattr(model, 'spec', '?')}, {args.threads} thread(s); samples identical in all "
          f"configurations: {same}")
    print(f"batched / one-at-a-time: {rates[-1] / rates[0]:.1f}x (goal >= 5x)")


if __name__ == "__main__":
    main()
