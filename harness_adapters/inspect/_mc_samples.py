"""Any Inspect task whose samples carry ``choices`` (the ``multiple_choice()`` solver's shape) as
TS-Guessing items: the question is the sample's ``input``, the options its ``choices`` in order,
the correct one its ``target`` (a letter, as Inspect's ``choice()`` scorer reads it, or the
choice's text). The benchmark is the task's ``metadata["benchmark"]``, else its name (without a
registry prefix); the instance id is the sample's ``metadata["instance_id"]``, else its id
(:func:`._samples.fallback_id`). A task without choices, or one sample that cannot be read, is one
line (``why``) and the task runs without flags.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.tsguessing import BenchmarkItem, mc_item

from ._samples import fallback_id, input_text

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def task_benchmark(task: Any) -> str:
    """The task's ``metadata["benchmark"]``, else its name without a registry prefix."""
    declared = (getattr(task, "metadata", None) or {}).get("benchmark")
    return str(declared) if declared else str(getattr(task, "name", "") or "task").rsplit("/", 1)[-1]


def _target(sample: Any) -> Any:
    target = getattr(sample, "target", None)
    values = target if isinstance(target, list) else [target]
    if len(values) != 1:
        return values   # mc_item names several correct choices
    value = str(values[0]).strip()
    if len(value) == 1 and value.upper() in _LETTERS:
        return _LETTERS.index(value.upper())
    return value


def read_mc_samples(task: Any, chosen: Sequence[Any]
                    ) -> tuple[str | None, tuple[BenchmarkItem, ...], str | None]:
    """``(benchmark, items of the chosen samples, None)``, or ``(None, (), why)``."""
    if not any(getattr(s, "choices", None) is not None for s in task.dataset):
        return None, (), "its samples carry no choices (not a multiple_choice task)"
    benchmark = task_benchmark(task)
    items: dict[str, BenchmarkItem] = {}
    for position, sample in enumerate(chosen):
        iid = fallback_id(sample, position)
        choices = getattr(sample, "choices", None)
        prompt = input_text(sample)
        try:
            if prompt is None:
                raise DataError("its input holds no user message")
            items.setdefault(iid, mc_item(benchmark, iid, prompt, choices, _target(sample)))
        except DataError as exc:
            return None, (), f"sample {getattr(sample, 'id', position + 1)}: {exc}"
    return benchmark, tuple(items.values()), None
