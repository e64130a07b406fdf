"""Stage II speed and accuracy on a synthetic history of realistic size.

    python benchmarks/stage2.py                 # 500 instances, sympy + pandas (~3,000 files)
    python benchmarks/stage2.py --cases 90      # quicker

Builds a labelled history (``benchchecker_plugin.stage2._synthetic``) from the installed sympy and
pandas source trees, then times ``run_stage2`` at one cutoff (instances/s, verification excluded) against
the named baseline, *naive all-pairs difflib alignment*: every added line of a gold patch compared
(``difflib.SequenceMatcher.ratio``) with every line of every Python file of the snapshot. The
baseline is timed on a few instances (it takes seconds per instance) and its rate extrapolated;
both sides get the snapshot's files already in memory / on disk, and the embedding model is
loaded before timing (warm-up kept out). Also prints AUC / TPR / FPR of the four configurations
(with and without preprocessing and embeddings) against the labels.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import shutil
import sys
import tempfile
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path


def _pkg_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"the benchmark needs the installed package {name!r}")
    return Path(list(spec.submodule_search_locations)[0])


def naive_rate(cases, snapshot, n: int) -> float:  # noqa: ANN001
    """Instances/s of all-pairs difflib over every line of every Python file (first ``n`` cases)."""
    lines = [ln.strip() for p in snapshot.files("python") for ln in snapshot.read(p).splitlines() if ln.strip()]
    t0 = time.perf_counter()
    for case in cases[:n]:
        added = [ln[1:].strip() for ln in case.instance.patch.splitlines()
                 if ln.startswith("+") and not ln.startswith("+++") and ln[1:].strip()]
        for a in added:
            sm = difflib.SequenceMatcher(None, autojunk=False)
            sm.set_seq2(a)
            best = 0.0
            for cand in lines:
                sm.set_seq1(cand)
                best = max(best, sm.ratio())
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--naive", type=int, default=1, help="instances timed for the naive baseline")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import torch

    torch.set_num_threads(args.threads)
    from benchchecker_plugin.repos import Snapshot
    from benchchecker_plugin.scoring import rates_at_threshold, roc_auc_score
    from benchchecker_plugin.stage2 import (
        EmbeddingSimilarity,
        LexicalSimilarity,
        PresenceConfig,
        RerankSimilarity,
        build_history,
        run_stage2,
    )

    cutoff = datetime(2024, 1, 1, tzinfo=UTC)
    work = Path(tempfile.mkdtemp(prefix="bench-stage2-"))
    try:
        t0 = time.perf_counter()
        cases = build_history([_pkg_dir("sympy"), _pkg_dir("pandas")], work / "synthetic__history",
                              cutoff=cutoff, n_cases=args.cases, seed=1)
        snap = Snapshot.at(work / "synthetic__history", cutoff)
        print(f"history: {len(snap.files())} files ({len(snap.files('python'))} Python), "
              f"{len(cases)} instances, built in {time.perf_counter() - t0:.0f} s")
        emb = EmbeddingSimilarity()
        emb.embed(["warm up"])  # model load kept out of the timings
        configs = {
            "preprocess+embeddings (default)": PresenceConfig(similarity=RerankSimilarity(LexicalSimilarity(), emb)),
            "preprocess, no embeddings": PresenceConfig(similarity="difflib"),
            "no preprocess, embeddings": PresenceConfig(preprocess=False,
                                                        similarity=RerankSimilarity(LexicalSimilarity(), emb)),
            "exact string matching": PresenceConfig(preprocess=False, similarity="exact"),
        }
        labels = [c.label for c in cases]
        rates = {}
        for name, config in configs.items():
            t = time.perf_counter()
            flags = list(run_stage2([c.instance for c in cases], work, {"*": cutoff}, config=config, reuse_counts=False).flags)
            dt = time.perf_counter() - t
            failed = sum(1 for f in flags if "error" in f.evidence)
            r = rates_at_threshold(labels, flags=[f.contaminated is True for f in flags])
            auc = roc_auc_score(labels, [f.score for f in flags])
            rates[name] = len(cases) / dt
            print(f"{name:34s} AUC {auc:.3f}  TPR {r.tpr:.3f}  FPR {r.fpr:.3f}  "
                  f"{dt:6.1f} s  {rates[name]:6.2f} inst/s  failed {failed}")
        naive = naive_rate(cases, snap, args.naive)
        print(f"naive all-pairs difflib (baseline)  {naive:.4f} inst/s (timed on {args.naive} instances, "
              f"{1 / naive:.0f} s per instance)")
        for name, rate in rates.items():
            print(f"speed-up vs naive, {name}: {rate / naive:.0f}x")
        snap.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
