"""``lm-eval run --contamination-detect overlap``: the items of the documents the run evaluates
(read as its TS-Guessing detection reads them, :func:`._detect.task_items`) looked up in the
training corpus (:mod:`harness_adapters.corpus_overlap`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..common import FilterOptions, echo
from ..corpus_overlap import overlap_detection
from ..detection import Detection, DetectOptions


def overlap_in_run(cfg: Any, tasks: Mapping[str, Any], docs: Mapping[str, Sequence[Any]],
                   indices: Mapping[str, Sequence[int]], options: FilterOptions,
                   detect: DetectOptions) -> Detection:
    """Overlap flags for the evaluated documents of every task with items, under the run's
    model name (as TS-Guessing's detected flags)."""
    from ._detect import run_model_name, task_items

    benchmarks: dict[str, str | None] = {}
    items: dict[tuple[str, str], Any] = {}
    for name, task in tasks.items():
        reading = task_items(name, task, docs[name], indices[name])
        benchmarks[name] = reading.benchmark
        if reading.benchmark is None:
            echo(f"no detector for this task: {name} ({reading.why}); it runs unfiltered")
        for it in reading.items:
            items.setdefault((it.benchmark, it.instance_id), it)
    return overlap_detection(benchmarks, list(items.values()), detect,
                             model_name=run_model_name(cfg, options))
