"""``benchchecker_plugin/mmlu_local``: MMLU zero-shot for Inspect from local CSV files (offline).

The samples have the shape inspect_evals' ``mmlu_0_shot`` builds (``input`` the question, four
``choices``, ``target`` the letter, ``metadata["subject"]``), solved with Inspect's
``multiple_choice()`` and scored with ``choice()``; the sample ids are the flags' MMLU instance
ids ``<subject>/<row>``. Rows are read by the loader ``benchchecker ts-guess --data`` uses::

    inspect eval benchchecker_plugin/mmlu_local -T data=../shared/data/mmlu -T subjects=astronomy \\
        --model benchchecker/hf/smollm2-135m --limit 20
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import choice
from inspect_ai.solver import multiple_choice

from ..errors import HubUnavailableError, InputError
from ..local_data import local_data
from ..tsguessing import load_mmlu


@task
def mmlu_local(data: str | None = None, subjects: Any = None) -> Task:
    """MMLU test questions of ``subjects`` (comma-separated; default all) from ``data`` (the
    folder of ``<subject>_test.csv`` files, or its parent with ``test/``; default: the hub)."""
    wanted = None
    if subjects:
        wanted = set(subjects.split(",")) if isinstance(subjects, str) else set(subjects)
    if data:   # -T data=PATH or -T data=mmlu=PATH (benchchecker_plugin.local_data)
        data = local_data([str(data)], ["mmlu"], "-T data={}")["mmlu"]
    try:
        items = load_mmlu(data, subjects=wanted)
    except HubUnavailableError as exc:
        raise exc.naming("-T data=PATH") from exc
    if not items:
        raise InputError(f"mmlu_local: no MMLU questions for subjects {sorted(wanted or [])} "
                         f"in {data or 'cais/mmlu'}")
    samples = [Sample(input=i.question, choices=list(i.options), target="ABCD"[i.answer],
                      id=i.instance_id, metadata={"subject": i.metadata["subject"]})
               for i in items]
    return Task(dataset=MemoryDataset(samples, name="cais/mmlu (local CSV)"),
                solver=multiple_choice(), scorer=choice(), metadata={"benchmark": "mmlu"})
