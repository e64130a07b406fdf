"""Any lm-eval ``multiple_choice`` task as TS-Guessing items, read through the task's own
definition: lm-eval's ``ConfigurableTask`` renders each processed document (``process_docs``
applied) with its ``doc_to_text``, ``doc_to_choice`` and ``doc_to_target`` (Jinja templates,
Python functions, ``!function`` utils, field names alike), so what is probed is what the run
scores. :func:`benchchecker_plugin.tsguessing._choices.mc_item` turns each rendering into an item.

- benchmark: the task's declared ``metadata.benchmark``, else the task's name; instance id: the
  document's ``instance_id`` field, else its doc id (:func:`._plan.instance_id_of`);
- ``multiple_input`` tasks (``doc_to_text`` gives the answer index and each choice is a context,
  as lm-eval's Winogrande): the options are the contexts after their shared words, the question
  is that shared start, ``_``, the target delimiter and the target continuation (Winogrande's
  sentence again);
- a task that is not ``multiple_choice``, or one document that cannot be read, is one line
  (:class:`TaskReading`'s ``why``) and the task runs unfiltered;
- two documents with one instance id (a data file's ``instance_id`` field repeated) are a
  :class:`DataError` naming the task, the id and both doc ids (:func:`check_unique_id`): one of
  them would be probed and flagged for both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.tsguessing import BenchmarkItem, mc_item

from ._compat import compiled_templates
from ._plan import instance_id_of


@dataclass(frozen=True)
class TaskReading:
    """The items of one task's evaluated documents, or ``why`` it has none."""

    benchmark: str | None
    items: tuple[BenchmarkItem, ...] = ()
    why: str | None = None


def declared_benchmark(name: str, task: Any) -> str:
    """The task's ``metadata.benchmark``, else its name."""
    metadata = getattr(getattr(task, "config", None), "metadata", None) or {}
    declared = metadata.get("benchmark") if isinstance(metadata, Mapping) else None
    return str(declared) if declared else name


def shared_context(contexts: Sequence[str]) -> tuple[str, list[str]]:
    """The words every context starts with, and what follows them in each (Winogrande's
    ``sentence[:blank] + option`` contexts give the sentence start and the options)."""
    first = contexts[0]
    n = 0
    while n < len(first) and all(len(c) > n and c[n] == first[n] for c in contexts):
        n += 1
    cut = first.rfind(" ", 0, n) + 1   # back to a word start: "Sarah" / "Sam" share "Sa"
    return first[:cut], [c[cut:] for c in contexts]


def _output_type(task: Any) -> str:
    return str(getattr(task, "OUTPUT_TYPE", None) or getattr(getattr(task, "config", None),
                                                             "output_type", None))


def _read(task: Any, doc: Mapping[str, Any], benchmark: str, iid: str) -> BenchmarkItem:
    prompt = task.doc_to_text(doc)
    choices = task.doc_to_choice(doc)
    if getattr(task, "multiple_input", 0):
        if not isinstance(choices, (list, tuple)) or not all(isinstance(c, str) for c in choices):
            return mc_item(benchmark, iid, "", choices, prompt, doc)   # raises its one line
        start, options = shared_context(list(choices))
        delimiter = getattr(getattr(task, "config", None), "target_delimiter", " ")
        question = start + "_" + str(delimiter) + str(task.doc_to_target(doc))
        return mc_item(benchmark, iid, question, options, prompt, doc)
    return mc_item(benchmark, iid, prompt, choices, task.doc_to_target(doc), doc)


def read_mc_task(name: str, task: Any, docs: Sequence[Any], indices: Sequence[int]) -> TaskReading:
    """The items of ``docs[i]`` for ``i`` in ``indices`` (each instance once), or why not."""
    kind = _output_type(task)
    if kind != "multiple_choice":
        return TaskReading(None, why=f"output_type {kind}, not multiple_choice")
    benchmark = declared_benchmark(name, task)
    with compiled_templates():
        return _read_all(name, task, docs, indices, benchmark)


def check_unique_id(task: str, iid: str, doc: int, first: dict[str, int]) -> None:
    """Record that doc ``doc`` has the instance id ``iid`` in ``first`` (id -> its doc); an id
    already on another doc is a :class:`DataError` naming the task, the id and both docs (the same
    doc again, as a run's repeats give it, is fine)."""
    seen = first.setdefault(iid, doc)
    if seen != doc:
        raise DataError(f"task {task}: instance id {iid!r} is on doc {seen} and doc {doc} (lm-eval's "
                        "doc ids, 0-based); each document needs its own id (the data file's "
                        "instance_id field)")


def _read_all(name: str, task: Any, docs: Sequence[Any], indices: Sequence[int],
              benchmark: str) -> TaskReading:
    items: dict[str, BenchmarkItem] = {}
    first: dict[str, int] = {}
    for i in indices:
        doc = docs[i]
        if not isinstance(doc, Mapping):
            return TaskReading(None, why=f"doc {i} is a {type(doc).__name__}, not a document")
        iid = instance_id_of(i, doc, task=name, benchmark=benchmark)
        check_unique_id(name, iid, i, first)
        try:
            items.setdefault(iid, _read(task, doc, benchmark, iid))
        except DataError as exc:
            return TaskReading(None, why=f"doc {i}: {exc}")
        except (KeyError, IndexError, TypeError, ValueError, SyntaxError) as exc:
            # the task's own templates or functions fail on this document
            return TaskReading(None, why=f"doc {i}: the task's definition fails on it "
                                         f"({type(exc).__name__}: {exc})")
    return TaskReading(benchmark, tuple(items.values()))
