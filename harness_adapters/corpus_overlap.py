"""``--contamination-detect overlap --contamination-corpus PATH``: the run's items looked up in the
model's training corpus instead of asking the model (what the lm-eval and Inspect wrappers share).

Each wrapper reads the items of exactly the documents / samples the run evaluates, as its
TS-Guessing detection does (same benchmarks and instance ids: MMLU / TruthfulQA ids, else the
task's name and doc / sample id), hands them here, and gets a :class:`~.detection.Detection`
whose flags (method ``benchchecker.overlap``, the run's model; the rule, engine and fields of
``--contamination-corpus-option``, else the defaults) are written beside the results and group the
scores exactly as TS-Guessing's flags do. The same driver as ``benchchecker overlap``
(:func:`~benchchecker_plugin.overlap.run_overlap`): equal flags on the same items and corpus. A corpus shard that fails is one warning
line; the run goes on, and items not found elsewhere are undecided (never clean).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from .common import echo, warn
from .detection import Detection, DetectOptions

__all__ = ["overlap_detection"]


def overlap_detection(benchmarks: Mapping[str, str | None], items: Sequence[Any],
                      detect: DetectOptions, *, model_name: str) -> Detection:
    """The overlap flags of ``items`` (:class:`~benchchecker_plugin.tsguessing.BenchmarkItem`\\ s
    of the run's evaluated documents, each once) in ``detect.corpora``; ``benchmarks``: per task
    its benchmark (``None``: no items). With ``dry_run`` the corpus is listed, not scanned."""
    from benchchecker_plugin.overlap import mc_queries, overlap_settings, run_overlap

    queries = mc_queries(items)
    corpus, run = overlap_settings(detect.corpora, detect.corpus_options, model=model_name,
                                   spelling="--contamination-corpus-option")
    if detect.dry_run:
        shards = corpus.shards()
        echo(f"dry run: corpus overlap would scan {len(shards)} shard(s) "
             f"({sum(s.size for s in shards) / 1e6:.1f} MB) for {len(queries)} items")
        return Detection((), benchmarks, len(queries), method="overlap")
    if not queries:
        return Detection((), benchmarks, 0, method="overlap")
    start = time.perf_counter()
    audit = run_overlap(queries, corpus, run)
    for reason in audit.failed.values():
        warn(f"corpus shard failed: {reason}; items not found elsewhere are undecided")
    return Detection(audit.flags, benchmarks, len(queries), seconds=time.perf_counter() - start,
                     method="overlap", corpus=audit.to_dict())
