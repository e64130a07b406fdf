"""Overlap scan speed: MB/s per CPU-second from JSONL and from text in memory, against a pure-Python
13-gram matcher of lm-eval's Janitor algorithm measured in the same run; peak RSS.

Corpus: real text, Python's standard library sources (and /usr/share/doc text files), one
document per file, written once to a JSONL under --work. Benchmark: MMLU test (../shared/data/mmlu).
Numba compile time is kept out (one warm-up scan first).

Index engine (``--index-docs N``, 0 skips it): N short documents (40 words each, cut from the same
real text, cycled with a shift once it runs out) written to a JSONL and indexed through the real
path (``build_index`` reading the shard); top-10 queries per second over 2,000 MMLU items; Deng et
al.'s protocol per item (top-10 retrieval, 13-word chunk score, and n-gram verification of the
retrieved documents) against their 2-3 minutes per item.

    python benchmarks/overlap.py [--mb 200] [--work /tmp/overlap-bench] [--index-docs 1000000] [--ray 2 [--shards 8]]
    python benchmarks/overlap.py --mb 100 --stream-gb 10 --only-stream    # peak RSS scanning 10 GB

``--stream-gb G``: a G GB JSONL (the real texts cycled, each copy its own documents) scanned streamed
by ``scan_corpus`` in a fresh process; its peak RSS against the goal (under 1 GB for 10 GB).

``--ray N``: also the same corpus as ``--shards`` JSONL files scanned by one process and by a local
Ray cluster of N CPUs (one task per shard, the table broadcast once), wall-clock ratio; workers
are warmed first (numba loaded, scanner built), as a long scan amortises them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import string
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchchecker_plugin.overlap import (  # noqa: E402
    DEFAULT_METRICS,
    CorpusIndex,
    Retrieval,
    build_index,
    build_table,
    index_results,
    load_overlap_items,
    scan_corpus,
    scan_texts,
    shards_of,
)


def real_texts(limit_mb: float) -> list[str]:
    roots = [Path(sysconfig.get_paths()["stdlib"]), Path("/usr/share/doc")]
    out: list[str] = []
    size = 0
    while size < limit_mb * 1e6:
        before = size
        for root in roots:
            for p in sorted(root.rglob("*")):
                if p.suffix not in (".py", ".txt", ".rst", "") or not p.is_file() or p.is_symlink():
                    continue
                try:
                    t = p.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                out.append(t)
                size += len(t)
                if size >= limit_mb * 1e6:
                    return out
        if size == before:
            break
    return out


class Janitor:
    """lm-eval's decontamination Janitor, reduced to its matching: lower-case, punctuation removed
    by str.translate, whitespace split, 13-grams joined by spaces, looked up in a set."""

    def __init__(self, texts: list[str], n: int = 13) -> None:
        self.n = n
        self.table = str.maketrans(string.punctuation, " " * len(string.punctuation))
        self.grams = {g for t in texts for g in self._grams(t)}

    def _grams(self, text: str) -> list[str]:
        w = text.lower().translate(self.table).split()
        return [" ".join(w[i:i + self.n]) for i in range(len(w) - self.n + 1)]

    def scan(self, docs: list[str]) -> int:
        return sum(1 for d in docs for g in self._grams(d) if g in self.grams)


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def short_docs(texts: list[str], n: int, words: int = 40) -> list[str]:
    pool = " ".join(texts).split()
    out: list[str] = []
    i = 0
    while len(out) < n:
        if i + words > len(pool):
            i = (i * 7919 + 13) % (len(pool) - words)   # wrap with a shift
        out.append(" ".join(pool[i:i + words]))
        i += words
    return out


def index_figures(items: list, texts: list[str], n_docs: int, work: Path) -> None:
    import shutil

    docs = short_docs(texts, n_docs)
    corpus = work / "short.jsonl"
    with corpus.open("w", encoding="utf-8") as fh:
        for i, t in enumerate(docs):
            fh.write(json.dumps({"id": str(i), "text": t}) + "\n")
    mb = sum(map(len, docs)) / 1e6
    del docs
    shutil.rmtree(work / "index", ignore_errors=True)
    shards = shards_of(str(corpus))
    t0 = time.perf_counter()
    build_index(shards, work / "index")
    build = time.perf_counter() - t0
    index = CorpusIndex.open(work / "index", shards)
    queries = items[:2000]
    index.search(queries[:50], 10)   # warm-up
    rates = {}
    for threads in (1, 2):
        t0 = time.perf_counter()
        index.search(queries, 10, threads=threads)
        rates[threads] = len(queries) / (time.perf_counter() - t0)
    deng = items[::14][:1000]
    table = build_table(deng, DEFAULT_METRICS)
    index_results(CorpusIndex.open(work / "index", shards), build_table(deng[:20], DEFAULT_METRICS),
                  (*DEFAULT_METRICS, Retrieval()))   # warm-up: numba kernels
    t0 = time.perf_counter()
    index_results(index, table, (*DEFAULT_METRICS, Retrieval()), k=10, threads=2)
    per_item = (time.perf_counter() - t0) / len(deng)
    print(f"index build: {n_docs:,} documents ({mb:.0f} MB) from JSONL in {build:.1f} s "
          f"({n_docs / build:,.0f} documents/s; goal 1M in <= 60 s: "
          f"{'met' if build * 1e6 / n_docs <= 60 else 'not met'}, {build * 1e6 / n_docs:.1f} s per 1M)")
    print(f"index top-10 queries/s ({len(queries)} MMLU items): {rates[1]:.0f} on 1 thread, {rates[2]:.0f} "
          f"on 2; ratio vs the 500 q/s goal: {rates[2] / 500:.2f}x")
    print(f"Deng protocol per item ({len(deng)} items: top-10, chunk score, n-gram verification): "
          f"{per_item * 1e3:.2f} ms; ratio vs their 2-3 minutes: {120 / per_item:,.0f}x-{180 / per_item:,.0f}x")


def ray_vs_one_process(items: list, texts: list[str], work: Path, n_shards: int, cpus: int) -> None:
    import numpy as np
    import ray

    from benchchecker_plugin.overlap import ray_runner, scan_shards

    folder, warm = work / "shards", work / "warm"
    for d in (folder, warm):
        d.mkdir(parents=True, exist_ok=True)
        for old in d.glob("*.jsonl"):
            old.unlink()
    per = -(-len(texts) // n_shards)
    for k in range(n_shards):
        with (folder / f"part-{k:03d}.jsonl").open("w", encoding="utf-8") as fh:
            for i, t in enumerate(texts[k * per:(k + 1) * per]):
                fh.write(json.dumps({"id": f"{k}-{i}", "text": t}) + "\n")
    for k in range(2 * cpus):
        (warm / f"w{k}.jsonl").write_text(json.dumps({"id": "w", "text": texts[k]}) + "\n")
    shards, warm_shards = shards_of(str(folder)), shards_of(str(warm))
    mb = sum(s.size for s in shards) / 1e6

    scan_shards(build_table(items, DEFAULT_METRICS), warm_shards)   # this process's scanner built
    one = build_table(items, DEFAULT_METRICS)
    t0 = time.perf_counter()
    scan_shards(one, shards)
    one_s = time.perf_counter() - t0

    ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    try:
        runner = ray_runner()
        scan_shards(build_table(items, DEFAULT_METRICS), warm_shards, runner=runner)
        many = build_table(items, DEFAULT_METRICS)
        t0, c0, sys0 = time.perf_counter(), cpu(), _machine_cpu()
        scan_shards(many, shards, runner=runner)
        ray_s = time.perf_counter() - t0
        driver_cpu, machine_cpu = cpu() - c0, _machine_cpu() - sys0
    finally:
        ray.shutdown()
    same = np.array_equal(one.doc_count, many.doc_count) and one.locations == many.locations
    print(f"{n_shards} JSONL shards, {mb:.0f} MB: one process {one_s:.1f} s ({mb / one_s:.0f} MB/s), "
          f"Ray {cpus} CPUs {ray_s:.1f} s ({mb / ray_s:.0f} MB/s): ratio {one_s / ray_s:.2f}x; "
          f"same table: {same}")
    print(f"  during the Ray scan: the machine's CPU time {machine_cpu:.1f} s of {ray_s * (os.cpu_count() or 1):.1f} "
          f"available; this driver {driver_cpu:.1f} s; the workers and Ray's own processes "
          f"{(machine_cpu - driver_cpu) / ray_s:.2f} cores")


def _machine_cpu() -> float:
    """CPU seconds (user + system) the whole machine has spent, from /proc/stat."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[0]) + int(fields[1]) + int(fields[2])) / ticks


def _scan_child(data: str, corpus: str, out: object) -> None:
    """In a fresh process: build the MMLU table, scan ``corpus`` streamed, report its figures and
    this process's peak RSS (the parent's texts are not in it)."""
    items = load_overlap_items("mmlu", data)
    table = build_table(items, DEFAULT_METRICS)
    rss_table = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    c0, t0 = cpu(), time.perf_counter()
    stats = scan_corpus(table, shards_of(corpus))
    out.put({"bytes": stats.bytes, "cpu": cpu() - c0, "wall": time.perf_counter() - t0,  # type: ignore[attr-defined]
             "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "rss_table": rss_table})


def memory_bound(texts: list[str], gb: float, work: Path, data: str) -> None:
    """A corpus of ``gb`` GB (the real texts cycled, each copy a new document) written as one
    JSONL, scanned streamed in a fresh process: peak RSS against the 1 GB goal (memory bounded by
    the benchmark table, never by the corpus)."""
    import multiprocessing

    corpus = work / "big.jsonl"
    written, k = 0, 0
    with corpus.open("w", encoding="utf-8") as fh:
        while written < gb * 1e9:
            for i, t in enumerate(texts):
                line = json.dumps({"id": f"{k}-{i}", "text": t}) + "\n"
                fh.write(line)
                written += len(line)
                if written >= gb * 1e9:
                    break
            k += 1
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    proc = ctx.Process(target=_scan_child, args=(data, str(corpus), q))
    proc.start()
    got = q.get()
    proc.join()
    corpus.unlink()
    print(f"memory bound: {got['bytes'] / 1e9:.1f} GB of JSONL scanned streamed in {got['wall']:.0f} s wall "
          f"({got['bytes'] / 1e6 / got['cpu']:.0f} MB per CPU-second); peak RSS {got['rss']:.0f} MB "
          f"(after building the table: {got['rss_table']:.0f} MB); goal < 1024 MB: "
          f"{'met' if got['rss'] < 1024 else 'not met'}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("--work", type=Path, default=Path("/tmp/overlap-bench"))
    ap.add_argument("--index-docs", type=int, default=1_000_000)
    ap.add_argument("--data", default=str(ROOT / ".." / "shared" / "data" / "mmlu"))
    ap.add_argument("--ray", type=int, default=0, metavar="CPUS",
                    help="also Ray (a local cluster of CPUS) against one process")
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--stream-gb", type=float, default=0, metavar="GB",
                    help="also a GB-sized JSONL (the texts cycled) scanned in a fresh process: peak RSS")
    ap.add_argument("--only-stream", action="store_true", help="with --stream-gb: only that figure")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    items = load_overlap_items("mmlu", args.data)
    texts = real_texts(args.mb)
    mb = sum(len(t) for t in texts) / 1e6
    corpus = args.work / "corpus.jsonl"
    with corpus.open("w", encoding="utf-8") as fh:
        for i, t in enumerate(texts):
            fh.write(json.dumps({"id": str(i), "text": t}) + "\n")
    print(f"benchmark: {len(items)} MMLU items; corpus: {len(texts)} documents, {mb:.1f} MB of text")
    if args.stream_gb:
        memory_bound(texts, args.stream_gb, args.work, args.data)
        if args.only_stream:
            return
    table = build_table(items, DEFAULT_METRICS)
    scan_texts(table, texts[:50])   # warm-up: numba compiles (or loads its cache) here

    table = build_table(items, DEFAULT_METRICS)
    c0, t0 = cpu(), time.perf_counter()
    scan_texts(table, texts)
    mem_cpu, mem_wall = cpu() - c0, time.perf_counter() - t0

    table = build_table(items, DEFAULT_METRICS)
    c0 = cpu()
    stats = scan_corpus(table, shards_of(str(corpus)))
    jsonl_cpu = cpu() - c0

    n_base = max(1, len(texts) // 10)   # the baseline is slow: a tenth of the corpus
    base_mb = sum(len(t) for t in texts[:n_base]) / 1e6
    janitor = Janitor([i.text for i in items])
    c0 = cpu()
    janitor.scan(texts[:n_base])
    base_cpu = cpu() - c0

    mem_rate, jsonl_rate, base_rate = mb / mem_cpu, stats.bytes / 1e6 / jsonl_cpu, base_mb / base_cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"scan, text in memory: {mem_rate:7.1f} MB per CPU-second ({mem_wall:.1f} s wall)")
    print(f"scan, from JSONL:     {jsonl_rate:7.1f} MB per CPU-second ({stats.seconds:.1f} s wall)")
    print(f"baseline, pure-Python Janitor 13-grams (in memory, {base_mb:.0f} MB): {base_rate:.1f} MB "
          f"per CPU-second")
    print(f"ratio in memory: {mem_rate / base_rate:.1f}x; ratio JSONL vs baseline in memory: "
          f"{jsonl_rate / base_rate:.1f}x")
    print(f"peak RSS: {rss:.0f} MB (the corpus list in memory included)")
    if args.index_docs:
        index_figures(items, texts, args.index_docs, args.work)
    if args.ray:
        ray_vs_one_process(items, texts, args.work, args.shards, args.ray)


if __name__ == "__main__":
    main()
