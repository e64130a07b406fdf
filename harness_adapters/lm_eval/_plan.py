"""What a filtered ``benchchecker lm-eval run`` evaluates, decided before lm-eval runs.

:func:`plan_filtered_run` is a pure step (it reads the flags file, nothing of lm-eval): from the
run's documents per task, the doc indices lm-eval would evaluate (:func:`evaluated_indices`) and
the contamination options it groups every task's instances by the flags' verdicts and, for
``--contamination-mode clean|contaminated``, chooses the ``--samples`` lm-eval is given. It is the
lm-eval counterpart of :func:`harness_adapters.swebench._cli.plan_run`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchchecker_plugin.errors import InputError

from ..common import FilterMode, FilterOptions, Selection, run_filter
from ..detection import Detection


def instance_id_of(doc_id: int, doc: Any, *, task: str, benchmark: str) -> str:
    """The benchmark instance id of one lm-eval doc.

    In order: the doc's own ``instance_id`` field; for MMLU, ``<subject>/<doc index>`` with the
    subject from the doc's ``subject`` field or an ``mmlu_<subject>`` task name (the flags
    format's MMLU ids); otherwise the doc index as text.
    """
    if isinstance(doc, Mapping):
        iid = doc.get("instance_id")
        if isinstance(iid, (str, int)) and not isinstance(iid, bool) and str(iid):
            return str(iid)
        if benchmark == "mmlu" and isinstance(doc.get("subject"), str) and doc["subject"]:
            return f"{doc['subject']}/{doc_id}"
    if benchmark == "mmlu" and task.startswith("mmlu_"):
        return f"{task[len('mmlu_'):]}/{doc_id}"
    return str(doc_id)


def model_candidates(model: str, model_args: Any) -> list[str]:
    """The names flags may use for lm-eval's ``--model``/``--model_args`` (best first)."""
    from benchchecker_plugin.models import lm_eval_model_name

    args = model_args if isinstance(model_args, Mapping) else {}
    name = str(args.get("pretrained") or args.get("model") or "")
    out = [lm_eval_model_name(model, args)] + ([f"{model}/{name}", name, Path(name).name]
                                               if name else [])
    return [c for c in dict.fromkeys(out) if c] or [str(model)]


def evaluated_indices(docs: Mapping[str, Sequence[Any]], *, limit: float | None = None,
                      samples: Mapping[str, Sequence[int]] | None = None) -> dict[str, list[int]]:
    """Per task, the doc indices lm-eval will run for ``--samples`` / ``--limit`` (a fraction
    below 1 is a share of the docs)."""
    given = samples or {}
    indices: dict[str, list[int]] = {}
    for task, task_docs in docs.items():
        n = len(task_docs)
        if task in given:
            keep: Any = [i for i in given[task] if 0 <= int(i) < n]
        elif limit:
            keep = range(min(n, int(limit if limit >= 1 else math.ceil(limit * n))))
        else:
            keep = range(n)
        indices[task] = sorted({int(i) for i in keep})
    return indices


@dataclass(frozen=True)
class FilteredRunPlan:
    """One filtered lm-eval run, planned: each task's benchmark (``None``: no detector and not
    grouped), the selection per benchmark, and the doc indices per task lm-eval is given as
    ``--samples`` (``None``: the run is not narrowed, mode ``both``)."""

    task_benchmark: Mapping[str, str | None]
    selections: Mapping[str, Selection]
    samples: Mapping[str, tuple[int, ...]] | None = None


def _group(docs: Mapping[str, Sequence[Any]], indices: Mapping[str, Sequence[int]],
           options: FilterOptions, candidates: Sequence[str], detection: Detection | None
           ) -> tuple[dict[str, str | None], dict[str, Selection]]:
    """Per task its benchmark and per benchmark the selection."""
    def ids(names: Sequence[str], benchmark: str, every: bool = False) -> list[str]:
        # Two tasks of one run may evaluate the same instance (prompt variants): one id each.
        return list(dict.fromkeys(
            instance_id_of(i, docs[t][i], task=t, benchmark=benchmark)
            for t in names for i in (range(len(docs[t])) if every else indices[t])))

    if detection is not None:
        task_benchmark = dict(detection.tasks)
        selections = {}
        for benchmark in sorted({b for b in task_benchmark.values() if b}):
            names = [t for t, b in task_benchmark.items() if b == benchmark]
            selections[benchmark] = run_filter(
                options, hints=[benchmark], model_candidates=candidates,
                instance_ids=ids(names, benchmark), known_ids=ids(names, benchmark, every=True),
                detected=detection.flags)
        return task_benchmark, selections
    names = list(docs)
    hints = names + [str(d.get("benchmark")) for t in docs.values() for d in t[:1]
                     if isinstance(d, Mapping) and d.get("benchmark")]
    selection = run_filter(options, hints=hints, model_candidates=candidates,
                           instance_ids=lambda b: ids(names, b),
                           known_ids=lambda b: set(ids(names, b, every=True)))
    return {t: selection.benchmark for t in names}, {selection.benchmark: selection}


def plan_filtered_run(docs: Mapping[str, Sequence[Any]], indices: Mapping[str, Sequence[int]],
                      options: FilterOptions, *, model_candidates: Sequence[str],
                      detection: Detection | None = None,
                      on_selection: Callable[[Selection], None] | None = None) -> FilteredRunPlan:
    """Plan one filtered run: group the evaluated docs (``indices`` of ``docs``) by the flags of
    ``options`` (and the flags ``detection`` made, which also names each task's benchmark) for the
    first of ``model_candidates`` the flags name, and choose the docs of the mode's subset.

    ``on_selection`` sees each selection once it is made, before the subset is chosen (the CLI
    prints its summary). Errors are one-line :class:`InputError`: the flags' errors
    (:func:`~harness_adapters.common.run_filter`), a task without a benchmark or without a doc
    in the subset under mode ``clean`` / ``contaminated``.
    """
    candidates = [options.model] if options.model else list(model_candidates)
    task_benchmark, selections = _group(docs, indices, options, candidates, detection)
    if on_selection is not None:
        for selection in selections.values():
            on_selection(selection)
    if options.mode is FilterMode.BOTH:
        return FilteredRunPlan(task_benchmark, selections)
    subset: dict[str, tuple[int, ...]] = {}
    for t in docs:
        benchmark = task_benchmark[t]
        if benchmark is None:
            raise InputError(f"--contamination-mode {options.mode.value}: task '{t}' has no "
                             "detector and no flags; drop it from --tasks")
        chosen = set(selections[benchmark].selected)
        subset[t] = tuple(i for i in indices[t] if instance_id_of(
            i, docs[t][i], task=t, benchmark=benchmark) in chosen)
    empty = [t for t, ids in subset.items() if not ids]
    if empty:
        raise InputError(f"empty subset: task '{empty[0]}' has no {options.mode.value} docs; "
                         "drop it from --tasks")
    return FilteredRunPlan(task_benchmark, selections, subset)
