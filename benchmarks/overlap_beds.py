"""How well ``benchchecker overlap`` (default rule) finds MMLU and TruthfulQA where corpora hold them.

Beds (one document per file, the raw content, as a code corpus stores it):

- ``files``: the benchmarks' own files as the corpus: the 57 MMLU test CSVs, TruthfulQA.csv;
- ``real`` (``--real DIR``): real public files that vendor the benchmarks, listed with repository,
  path, commit and sha256 in ``benchmarks/data/overlap_real_files.tsv`` (CSV re-exports, MMLU-Redux,
  HELM predictions, MMLU-Pro, chat fine-tuning JSONL, eval logs, notebooks, Python fixtures,
  Markdown reports, lm-eval YAML, prompt logs). ``DIR/files/<id>.<ext>`` holds each file (fetch
  the repository at the commit, copy the path; ``--real`` checks every sha256). Ground truth by
  each file's own parser (``benchmarks/_overlap_truth.py``).

For each: items truly present, flagged (recall), undecided; absent items flagged (false-positive
rate). The planted forms bed is ``benchchecker eval overlap`` (docs/overlap.md).

    python benchmarks/overlap_beds.py [--data ../shared/data] [--real /path/to/bed] [--work /tmp/overlap-beds]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _overlap_truth import truth  # noqa: E402

from benchchecker_plugin.overlap import OverlapCorpus, load_overlap_items, run_overlap  # noqa: E402

LIST = ROOT / "benchmarks" / "data" / "overlap_real_files.tsv"


def _corpus(path: Path, files: list[Path]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for f in files:
            fh.write(json.dumps({"id": f.name, "text": f.read_text(encoding="utf-8", errors="surrogateescape")}) + "\n")
    return path


def _verdicts(items: list, corpus: Path) -> dict[tuple[str, str], bool | None]:
    audit = run_overlap(items, OverlapCorpus((str(corpus),)))
    return {(f.benchmark, f.instance_id): f.contaminated for f in audit.flags}


def _report(name: str, bench: str, verdicts: dict, present: set[str], absent: set[str]) -> None:
    mine = {i: v for (b, i), v in verdicts.items() if b == bench}
    found = sum(mine[i] is True for i in present)
    undecided = sum(mine[i] is None for i in present)
    line = (f"{name} {bench}: {found} of {len(present)} present items flagged ({found / len(present):.4f}), "
            f"{undecided} undecided, {len(present) - found - undecided} clean")
    if absent:
        fp = sum(mine[i] is True for i in absent)
        line += f"; {fp} of {len(absent)} absent items flagged ({fp / len(absent):.4f})"
    print(line)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=ROOT / ".." / "shared" / "data")
    ap.add_argument("--real", type=Path, default=None, help="the real-file bed's folder (files/<id>.<ext>)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/overlap-beds"))
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    items = (load_overlap_items("mmlu", args.data / "mmlu") +
             load_overlap_items("truthfulqa", args.data / "truthfulqa" / "TruthfulQA.csv"))
    every = {b: {i.instance_id for i in items if i.benchmark == b} for b in ("mmlu", "truthfulqa")}
    mmlu_files = sorted((args.data / "mmlu" / "test").glob("*_test.csv"))
    v = _verdicts(items, _corpus(args.work / "mmlu.jsonl", mmlu_files))
    _report("files (the 57 MMLU test CSVs)", "mmlu", v, every["mmlu"], set())
    v = _verdicts(items, _corpus(args.work / "tqa.jsonl", [args.data / "truthfulqa" / "TruthfulQA.csv"]))
    _report("files (TruthfulQA.csv)", "truthfulqa", v, every["truthfulqa"], set())
    if args.real is None:
        return
    rows = list(csv.DictReader(LIST.open(encoding="utf-8"), delimiter="\t"))
    files = []
    for row in rows:
        (path,) = sorted((args.real / "files").glob(f"{row['id']}.*"))
        if hashlib.sha256(path.read_bytes()).hexdigest() != row["sha256"]:
            raise SystemExit(f"{path}: not the listed file ({row['repo']} {row['path']} at {row['commit']})")
        files.append(path)
    t = truth(files, args.data)
    v = _verdicts(items, _corpus(args.work / "real.jsonl", files))
    repos = len({r["repo"] for r in rows})
    name = f"real ({len(files)} files, {repos} repositories)"
    _report(name, "mmlu", v, t["mmlu"], every["mmlu"] - t["mmlu"] - t["mmlu_question_only"])
    qonly = t["mmlu_question_only"]
    print(f"{name} mmlu: {sum(v[('mmlu', i)] is True for i in qonly)} of {len(qonly)} items whose question "
          "alone is present flagged (kind question)")
    _report(name, "truthfulqa", v, t["truthfulqa"], every["truthfulqa"] - t["truthfulqa"])


if __name__ == "__main__":
    main()
