"""lm-eval glue for the TS-Guessing tasks; all logic lives in ``benchchecker_plugin.tsguessing``.

Data: pass ``--metadata '{"data": "/path/to/mmlu"}'`` (MMLU folder of <subject>_test.csv, or
TruthfulQA.csv; ``mmlu_data`` / ``truthfulqa_data`` when running both benchmarks), or set
``BENCHCHECKER_MMLU_DATA`` / ``BENCHCHECKER_TRUTHFULQA_DATA``; otherwise
``cais/mmlu`` / ``truthfulqa/truthful_qa`` are loaded with ``datasets``. ``seed`` (default 0),
``hints`` (default true) and ``subjects`` (MMLU subjects to keep, default all) can be passed the
same way.
"""

from __future__ import annotations

import json
import os
from typing import Any

from benchchecker_plugin.tsguessing import Probe, load_items, prepare_probes, probe_flag

_ENV = {"mmlu": "BENCHCHECKER_MMLU_DATA", "truthfulqa": "BENCHCHECKER_TRUTHFULQA_DATA"}


def _as_bool(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).lower() not in ("0", "false", "no")


def _dataset(benchmark: str, mode: str, **kwargs: Any):  # type: ignore[no-untyped-def]
    import datasets

    path = kwargs.get(f"{benchmark}_data") or kwargs.get("data") or os.environ.get(_ENV[benchmark]) or None
    items = load_items(benchmark, path)
    subjects = kwargs.get("subjects")
    if subjects:
        wanted = {subjects} if isinstance(subjects, str) else set(subjects)
        items = [i for i in items if i.metadata.get("subject") in wanted]
    prep = prepare_probes(items, mode, seed=int(kwargs.get("seed", 0)),
                          hints=_as_bool(kwargs.get("hints", True)))
    rows = [{"instance_id": p.instance_id, "prompt": p.prompt, "target": p.target,
             "probe_json": json.dumps(p.to_dict(), ensure_ascii=False)} for p in prep.probes]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def mmlu_multichoice(**kwargs: Any):  # type: ignore[no-untyped-def]
    return _dataset("mmlu", "multichoice", **kwargs)


def mmlu_question(**kwargs: Any):  # type: ignore[no-untyped-def]
    return _dataset("mmlu", "question", **kwargs)


def truthfulqa_multichoice(**kwargs: Any):  # type: ignore[no-untyped-def]
    return _dataset("truthfulqa", "multichoice", **kwargs)


def truthfulqa_question(**kwargs: Any):  # type: ignore[no-untyped-def]
    return _dataset("truthfulqa", "question", **kwargs)


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """Exact match and Rouge-L F1 of the (first) generation against the masked text; the answer is
    read from the whole reply by the same ``clean_answer`` rule as the other harnesses."""
    flag = probe_flag(Probe.from_dict(json.loads(doc["probe_json"])), results[0], "lm-eval")
    return {"exact_match": float(flag.evidence["exact_match"]), "rouge_l": float(flag.evidence["rouge_l"])}
