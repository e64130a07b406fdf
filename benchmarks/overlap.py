"""Overlap scan speed, MB per CPU-second, on ordinary text and on corpora that hold benchmark copies,
today's engine beside the one before it (the named baseline, run in the same run) and beside a
pure-Python 13-gram matcher of lm-eval's Janitor algorithm; peak RSS; the index engine's memory.

Corpora (one document per file, JSONL under --work):

- ``ordinary``: real text, Python's standard library sources and /usr/share/doc text files;
- ``mmlu-csv``: the 57 MMLU test CSVs as stored (non-ASCII, quotes doubled);
- ``dumps``: MMLU as JSON Lines with non-ASCII escaped (``\\u2019``), MMLU-Pro-style records of ten
  options, TruthfulQA's CSV, chat fine-tuning records: the layouts a model team finds in a crawl.

Baseline: the overlap package of ``--baseline`` (a commit; default the one before the engine was
rewritten) extracted with ``git archive`` and run in a child process on a sample of each corpus,
under ``--baseline-timeout`` seconds (its scan re-normalised a non-ASCII document once per match:
it may not finish; then the bound is printed). Numba compile time is kept out (a warm-up first).

    python benchmarks/overlap.py [--mb 200] [--work /tmp/overlap-bench] [--baseline COMMIT]
    python benchmarks/overlap.py --index-mb 120        # the index engine: MMLU top-10, peak RSS
    python benchmarks/overlap.py --ray 2 [--shards 8]  # also a local Ray cluster against one process
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import string
import subprocess
import sys
import sysconfig
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchchecker_plugin.overlap import build_table, load_overlap_items, scan_corpus, shards_of  # noqa: E402

BASELINE = "1244df629533f8ba806021666fce5edaf2216745"   # the engine before items were read as parts


def real_texts(limit_mb: float) -> list[str]:
    roots = [Path(sysconfig.get_paths()["stdlib"]), Path("/usr/share/doc")]
    out: list[str] = []
    size = 0
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
    return out


def dump_texts(data: Path) -> dict[str, list[str]]:
    """The benchmark-copy corpora, from the shared data (see the module)."""
    mmlu = sorted((data / "mmlu" / "test").glob("*_test.csv"))
    csvs = [p.read_text(encoding="utf-8") for p in mmlu]
    rows = [r for p in mmlu for r in list(csv.reader(p.open(encoding="utf-8")))[1:]]
    escaped = ["\n".join(json.dumps({"question": r[0], "choices": r[1:5], "answer": int(r[5])})
                         for r in rows[k:k + 1000]) for k in range(0, len(rows), 1000)]
    pro = ["\n".join(json.dumps({"question_id": k + j, "question": r[0],
                                 "options": r[1:5] + rows[(k + j + 7) % len(rows)][1:5] +
                                 rows[(k + j + 13) % len(rows)][1:3], "answer": "ABCD"[int(r[5])],
                                 "answer_index": int(r[5])}, ensure_ascii=False)
                     for j, r in enumerate(rows[k:k + 1000])) for k in range(0, len(rows), 1000)]
    chat = ["\n".join(json.dumps({"messages": [
        {"role": "user", "content": r[0] + "\n" + "\n".join(f"{'ABCD'[i]}. {o}" for i, o in enumerate(r[1:5]))},
        {"role": "assistant", "content": f"The answer is ({'ABCD'[int(r[5])]})"}]})
        for r in rows[k:k + 1000]) for k in range(0, len(rows), 1000)]
    tqa = [(data / "truthfulqa" / "TruthfulQA.csv").read_text(encoding="utf-8")]
    return {"mmlu-csv": csvs, "dumps": escaped + pro + chat + tqa}


def write_jsonl(path: Path, texts: list[str]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for i, t in enumerate(texts):
            fh.write(json.dumps({"id": str(i), "text": t}) + "\n")


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


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


_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from benchchecker_plugin.overlap import DEFAULT_METRICS, build_table, load_overlap_items, scan_corpus, shards_of
items = load_overlap_items("mmlu", sys.argv[2])
warm = build_table(items, DEFAULT_METRICS)
scan_corpus(warm, shards_of(sys.argv[4]))
table = build_table(items, DEFAULT_METRICS)
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
c0 = cpu()
stats = scan_corpus(table, shards_of(sys.argv[3]))
print(json.dumps({"mb": stats.bytes / 1e6, "cpu": cpu() - c0}))
"""


def baseline_rate(commit: str, work: Path, data: str, corpus: Path, warm: Path, timeout: float) -> str:
    """The baseline's MB per CPU-second on ``corpus`` in a child process (see the module)."""
    old = work / f"baseline-{commit[:10]}"
    if not (old / "benchchecker_plugin").is_dir():
        old.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "benchchecker_plugin"],
                                 check=True, capture_output=True).stdout
        tar = work / "baseline.tar"
        tar.write_bytes(archive)
        with tarfile.open(tar) as t:
            t.extractall(old, filter="data")
    try:
        got = subprocess.run([sys.executable, "-c", _CHILD, str(old), data, str(corpus), str(warm)],
                             check=True, capture_output=True, text=True, timeout=timeout,
                             env={**os.environ, "PYTHONPATH": str(old)})
    except subprocess.TimeoutExpired:
        size = corpus.stat().st_size / 1e6
        return f"did not finish {size:.1f} MB in {timeout:.0f} s (< {size / timeout:.2f} MB/s)"
    r = json.loads(got.stdout.strip().splitlines()[-1])
    return f"{r['mb'] / r['cpu']:.1f} MB per CPU-second"


def new_rate(items: list, corpus: Path) -> tuple[float, float]:
    table = build_table(items)
    c0, t0 = cpu(), time.perf_counter()
    partial = scan_corpus(table, shards_of(str(corpus)))
    return partial.bytes / 1e6 / (cpu() - c0), time.perf_counter() - t0


def index_memory(data: str, work: Path, mb: float, texts: list[str], dumps: dict[str, list[str]]) -> None:
    """MMLU at top-10 with the index engine over about ``mb`` MB of real text and benchmark dumps,
    in a fresh process: peak RSS against the 4 GB goal."""
    corpus = work / "index-corpus.jsonl"
    body = [t for ts in dumps.values() for t in ts]
    size = sum(map(len, body))
    for t in texts:
        if size >= mb * 1e6:
            break
        body.append(t)
        size += len(t)
    write_jsonl(corpus, body)
    child = (f"import resource, sys, time; sys.path.insert(0, {str(ROOT)!r})\n"
             "from benchchecker_plugin.overlap import OverlapCorpus, OverlapRun, load_overlap_items, run_overlap\n"
             f"items = load_overlap_items('mmlu', {data!r})\n"
             "t0 = time.perf_counter()\n"
             f"a = run_overlap(items, OverlapCorpus(({str(corpus)!r},)), OverlapRun(engine='index', "
             f"index_dir=__import__('pathlib').Path({str(work / 'index-mmlu')!r}), top_k=10))\n"
             "c = a.counts()\n"
             "hwm = [line for line in open('/proc/self/status') if line.startswith('VmHWM')][0].split()[1]\n"
             "print(f'{time.perf_counter() - t0:.0f} s, {c[\"contaminated\"]} contaminated, peak RSS "
             "{int(hwm) / 1024:.0f} MB')\n")
    import shutil

    shutil.rmtree(work / "index-mmlu", ignore_errors=True)
    out = subprocess.run([sys.executable, "-c", child], check=True, capture_output=True, text=True)
    print(f"index engine, MMLU top-10 over {size / 1e6:.0f} MB (benchmark dumps and real text): "
          f"{out.stdout.strip()} (goal <= 4096 MB)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=200, help="MB of ordinary text")
    ap.add_argument("--work", type=Path, default=Path("/tmp/overlap-bench"))
    ap.add_argument("--data", type=Path, default=ROOT / ".." / "shared" / "data")
    ap.add_argument("--baseline", default=BASELINE, help="the commit whose engine is the baseline")
    ap.add_argument("--baseline-mb", type=float, default=2.0, help="MB of each corpus the baseline scans")
    ap.add_argument("--baseline-timeout", type=float, default=300)
    ap.add_argument("--index-mb", type=float, default=0, help="also the index engine's memory over this many MB")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    mmlu = str(args.data / "mmlu")
    items = load_overlap_items("mmlu", mmlu)
    texts = real_texts(args.mb)
    dumps = dump_texts(args.data)
    corpora = {"ordinary": texts, **dumps}
    warm = args.work / "warm.jsonl"
    write_jsonl(warm, [texts[0][:20000], dumps["mmlu-csv"][0][:20000]])
    new_rate(items, warm)   # numba compiles (or loads its cache) here
    print(f"benchmark: {len(items)} MMLU items; baseline: commit {args.baseline[:10]}")
    for name, docs in corpora.items():
        corpus = args.work / f"{name}.jsonl"
        write_jsonl(corpus, docs)
        rate, wall = new_rate(items, corpus)
        sample, size = [], 0
        for d in docs:
            sample.append(d[: int(args.baseline_mb * 1e6)])
            size += len(sample[-1])
            if size >= args.baseline_mb * 1e6:
                break
        part = args.work / f"{name}-sample.jsonl"
        write_jsonl(part, sample)
        base = baseline_rate(args.baseline, args.work, mmlu, part, warm, args.baseline_timeout)
        mb = sum(map(len, docs)) / 1e6
        print(f"{name:9s} {mb:6.1f} MB: {rate:6.1f} MB per CPU-second ({wall:.1f} s wall); baseline on "
              f"{size / 1e6:.1f} MB of it: {base}")
    n_base = max(1, len(texts) // 10)
    janitor = Janitor([i.text for i in items])
    c0 = cpu()
    janitor.scan(texts[:n_base])
    base_mb = sum(len(t) for t in texts[:n_base]) / 1e6
    print(f"pure-Python Janitor 13-grams on ordinary text: {base_mb / (cpu() - c0):.1f} MB per CPU-second")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB (corpora in memory included)")
    if args.index_mb:
        index_memory(mmlu, args.work, args.index_mb, texts, dumps)


if __name__ == "__main__":
    main()
