"""lm-eval glue for the TS-Guessing tasks; all logic lives in ``benchchecker_plugin.tsguessing``.

``--metadata`` keys (JSON object):

- ``data``: the MMLU folder (``<subject>_test.csv`` files, or its parent with ``test/``), the
  ``TruthfulQA.csv`` file, or a folder holding both as ``mmlu/`` and ``truthfulqa/TruthfulQA.csv``
  (the shared-data layout; what the ``ts_guessing`` group needs with one key);
- ``data`` may also name its benchmark, as benchchecker's ``--data`` does: ``"mmlu=PATH"``, or a
  list ``["mmlu=PATH", "truthfulqa=PATH"]`` (a task reads its own, the others are for the others);
- ``mmlu_data`` / ``truthfulqa_data``: one benchmark's data (win over ``data``);
- ``seed`` (default 0), ``hints`` (default true), ``subjects`` (MMLU subjects to keep).

Without data keys, ``BENCHCHECKER_MMLU_DATA`` / ``BENCHCHECKER_TRUTHFULQA_DATA`` are read, else
``cais/mmlu`` / ``truthfulqa/truthful_qa`` are loaded with ``datasets``. A ``data`` path that does
not hold the task's benchmark is an error naming the key to pass.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from benchchecker_plugin.errors import HubUnavailableError, InputError
from benchchecker_plugin.local_data import local_data, split_named
from benchchecker_plugin.tsguessing import Probe, load_items, prepare_probes, probe_flag

_ENV = {"mmlu": "BENCHCHECKER_MMLU_DATA", "truthfulqa": "BENCHCHECKER_TRUTHFULQA_DATA"}
#: --metadata keys the tasks read; lm-eval adds the task's own ``version`` (and others may pass
#: keys meant for other tasks of the run: those are ignored, misspelt data keys are not).
KEYS = ("data", "mmlu_data", "truthfulqa_data", "seed", "hints", "subjects")
#: how a local copy is written in lm-eval (``{}``: the value), for error lines
SPELLING = "--metadata '{{\"data\": \"{}\"}}'"


def _in_shared_layout(folder: Path, benchmark: str) -> Path | None:
    candidates = ([folder / "mmlu"] if benchmark == "mmlu"
                  else [folder / "truthfulqa" / "TruthfulQA.csv", folder / "TruthfulQA.csv"])
    return next((c for c in candidates if c.exists()), None)


def _named_data(benchmark: str, data: Any) -> Any:
    """``data`` as benchchecker names local data (:mod:`benchchecker_plugin.local_data`): a path,
    or ``NAME=PATH`` (a list of them for both benchmarks); this task's path, the bare path, or
    ``None`` where only the other benchmark is named."""
    if not data:
        return data
    values = [str(v) for v in (data if isinstance(data, list) else [data])]
    named = [split_named(v) for v in values]
    for (name, _), value in zip(named, values):
        if name is not None and name not in _ENV:
            local_data([value], list(_ENV), SPELLING)   # the one line naming the right spelling
    own = [path for name, path in named if name == benchmark]
    if own:
        return own[0]
    bare = [path for name, path in named if name is None]
    return bare[0] if bare else None


def data_path(benchmark: str, kwargs: dict[str, Any]) -> str | None:
    """The data path of ``benchmark`` from the --metadata keys (see the module docstring)."""
    typos = sorted(k for k in kwargs if k.endswith("_data") and k not in KEYS)
    if typos:
        raise InputError(f"--metadata key {typos[0]!r} is not read by the TS-Guessing tasks; "
                         f"use one of: {', '.join(KEYS)}")
    own = kwargs.get(f"{benchmark}_data")
    if own:
        return str(own)
    shared = _named_data(benchmark, kwargs.get("data"))
    if not shared:
        return os.environ.get(_ENV[benchmark]) or None
    path = Path(str(shared))
    if path.is_dir():
        found = _in_shared_layout(path, benchmark)
        if found is not None:
            return str(found)
        if benchmark == "mmlu":
            return str(path)
    elif benchmark == "truthfulqa" and path.suffix.lower() == ".csv":
        return str(path)
    want = "a folder of <subject>_test.csv files" if benchmark == "mmlu" else "TruthfulQA.csv"
    raise InputError(f"--metadata data={shared}: holds no {benchmark} data (expected {want}, or a "
                     f"folder with mmlu/ and truthfulqa/TruthfulQA.csv); pass "
                     f"'{{\"{benchmark}_data\": ...}}' for the ts_guessing_{benchmark}_* tasks")


def _as_bool(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).lower() not in ("0", "false", "no")


def _dataset(benchmark: str, mode: str, **kwargs: Any):  # type: ignore[no-untyped-def]
    import datasets

    path = data_path(benchmark, kwargs)
    try:
        items = load_items(benchmark, path)
    except HubUnavailableError as exc:
        raise exc.naming(f"--metadata '{{\"data\": \"PATH\"}}' (or \"{benchmark}_data\")") from exc
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
