"""``--contamination-detect`` for Inspect: TS-Guessing on the samples an ``inspect eval`` run
evaluates, asked through the run's own model (``inspect/<provider>/<model>``).

Which tasks have a detector is decided from their samples, not from task names alone:

- **the project's TS-Guessing tasks** (``benchchecker_plugin/ts_guessing_*``): every sample
  carries its probe (``metadata["probe"]``, :meth:`~benchchecker_plugin.tsguessing.Probe.to_dict`);
  that probe is asked as it is.
- **MMLU**: samples of the shape inspect_evals' ``mmlu_0_shot`` / ``mmlu_5_shot`` build
  (``record_to_sample``: ``input`` the question, four ``choices``, ``target`` one letter A-D,
  ``metadata["subject"]``) in a dataset or task that names MMLU (``cais/mmlu``, a task
  ``mmlu_0_shot``, task metadata ``benchmark: mmlu``; not MMMLU, MMLU-Pro, CMMLU, ...).
- **TruthfulQA**: inspect_evals' ``truthfulqa`` shape (``input`` the question, ``choices`` the
  mc1 or mc2 answers, ``target`` the letters of the true ones) in a dataset or task naming it.

Those samples hold no row number (inspect_evals shuffles them and numbers them 1..N), so each is
found by its content in the benchmark's reference data, read as ``benchchecker ts-guess`` reads
it: the MMLU test split (subject, question and the set of choices) or TruthfulQA's 817
questions (the question text), from ``--contamination-data mmlu=DIR`` / ``truthfulqa=FILE`` or
else from the hub. The item found *is* the :class:`~benchchecker_plugin.tsguessing.BenchmarkItem`
``ts-guess`` builds (instance id ``<subject>/<row>`` or ``<row>``, same options and answer), so
the flags equal ``ts-guess`` on the same ids and model. A sample that is not in the reference is
counted (``not_in_reference``) and stays unflagged; a task none of whose samples is found has no
detector. Identical MMLU items (28 in the test split) are numbered in the order the samples come.

Any other task whose samples carry ``choices`` (``multiple_choice()``'s shape: ARC, HellaSwag,
MMLU-Pro, your own) is read by :mod:`._mc_samples`: benchmark = the task's name, instance id = the
sample's id. A task without choices, with a sample that cannot be read, or where no option can be
hidden is one line saying why, and runs without flags.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchchecker_plugin.errors import DataError, HubUnavailableError, InputError
from benchchecker_plugin.inspect_tasks import PROBE_KEY
from benchchecker_plugin.tsguessing import BENCHMARKS, BenchmarkItem, Probe, load_items, prepare_probes

from ..common import warn
from ._mc_samples import read_mc_samples
from ._samples import fallback_id, input_text

NOT_IN_REFERENCE = "not_in_reference"

#: A name mentions MMLU / TruthfulQA (variants that are other datasets excluded).
_NAMES = {
    "mmlu": re.compile(r"(?<![a-z])mmlu(?![-_ ]?(pro|redux|x|cf)(?![a-z]))"),
    "truthfulqa": re.compile(r"truthful[-_ ]?qa"),
}
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _norm(text: str) -> str:
    return " ".join(str(text).split())


def _hash(parts: Any) -> str:
    return hashlib.sha1(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()[:20]


def _letters(sample: Any) -> list[str]:
    target = getattr(sample, "target", None)
    values = target if isinstance(target, list) else [target]
    return [str(v).strip() for v in values if v is not None]


def _is_mmlu_sample(sample: Any) -> bool:
    choices = getattr(sample, "choices", None) or []
    letters = _letters(sample)
    subject = (getattr(sample, "metadata", None) or {}).get("subject")
    return (input_text(sample) is not None and len(choices) == 4 and len(letters) == 1
            and letters[0] in _LETTERS[:4] and isinstance(subject, str) and bool(subject))


def _is_truthfulqa_sample(sample: Any) -> bool:
    choices = getattr(sample, "choices", None) or []
    letters = _letters(sample)
    return (input_text(sample) is not None and len(choices) >= 2 and bool(letters)
            and all(x in _LETTERS[:len(choices)] for x in letters))


_SHAPES = {"mmlu": _is_mmlu_sample, "truthfulqa": _is_truthfulqa_sample}


def _named(task: Any) -> set[str]:
    """The benchmarks the task's name, declared metadata or dataset name / location mention."""
    dataset = getattr(task, "dataset", None)
    names = [str((getattr(task, "metadata", None) or {}).get("benchmark") or ""),
             str(getattr(task, "name", "") or ""), str(getattr(dataset, "name", "") or ""),
             str(getattr(dataset, "location", "") or "")]
    return {b for b, pattern in _NAMES.items() for n in names if pattern.search(n.lower())}


def benchmark_of_task(task: Any, samples: Sequence[Any]) -> str | None:
    """``"mmlu"``, ``"truthfulqa"`` or ``None`` (no detector) from the task's samples (see the
    module docstring); the reference lookup (:func:`plan_task`) is the final check."""
    if not samples:
        return None
    probes = [(getattr(s, "metadata", None) or {}).get(PROBE_KEY) for s in samples]
    if all(isinstance(p, Mapping) for p in probes):
        found = {str(p.get("benchmark")) for p in probes}  # type: ignore[union-attr]
        return found.pop() if len(found) == 1 and found <= set(BENCHMARKS) else None
    named = _named(task)
    for benchmark in ("mmlu", "truthfulqa"):
        if benchmark in named and all(_SHAPES[benchmark](s) for s in samples):
            return benchmark
    return None


def sample_key(benchmark: str, sample: Any) -> str:
    """The content key a sample is looked up by in the reference (see :meth:`Reference.index`)."""
    text = input_text(sample) or ""
    if benchmark == "mmlu":
        subject = str((getattr(sample, "metadata", None) or {}).get("subject") or "")
        return _hash([subject, _norm(text), sorted(_norm(c) for c in sample.choices or [])])
    return _hash([_norm(text)])


def _item_key(item: BenchmarkItem) -> str:
    if item.benchmark == "mmlu":
        return _hash([str(item.metadata.get("subject", "")), _norm(item.question),
                      sorted(_norm(o) for o in item.options)])
    return _hash([_norm(item.question)])


def parse_data_option(values: Iterable[str]) -> dict[str, Path]:
    """``--contamination-data BENCHMARK=PATH`` values as ``{benchmark: path}``."""
    out: dict[str, Path] = {}
    for value in values:
        name, sep, path = str(value).partition("=")
        name = name.strip().lower()
        if not sep or name not in BENCHMARKS or not path:
            raise InputError(f"--contamination-data '{value}': expected BENCHMARK=PATH with "
                             f"BENCHMARK one of {', '.join(BENCHMARKS)}")
        if not Path(path).exists():
            raise InputError(f"--contamination-data '{value}': {path} does not exist")
        out[name] = Path(path)
    return out


class Reference:
    """The benchmark items samples are looked up in, loaded once per benchmark from the given
    paths (``None``: the hub copy ``benchchecker ts-guess`` reads)."""

    def __init__(self, data: Mapping[str, Path | None] | None = None) -> None:
        self.data = dict(data or {})
        self._index: dict[str, dict[str, list[BenchmarkItem]]] = {}

    def source(self, benchmark: str) -> str:
        path = self.data.get(benchmark)
        return str(path) if path is not None else f"the hub copy of {benchmark}"

    def index(self, benchmark: str) -> Mapping[str, list[BenchmarkItem]]:
        """``{content key: items with that content, in reference order}``."""
        if benchmark not in self._index:
            try:
                items = load_items(benchmark, self.data.get(benchmark))
            except HubUnavailableError as exc:
                raise exc.naming(f"--contamination-data {benchmark}=PATH (the reference data "
                                 "--contamination-detect numbers samples by)") from exc
            except DataError as exc:
                raise DataError(f"{exc} (the {benchmark} reference data that --contamination-"
                                f"detect numbers samples by; pass --contamination-data "
                                f"{benchmark}=PATH)") from exc
            index: dict[str, list[BenchmarkItem]] = {}
            for item in items:
                index.setdefault(_item_key(item), []).append(item)
            self._index[benchmark] = index
        return self._index[benchmark]


class TaskIds:
    """Instance ids of a task's samples: the probe's id (TS-Guessing tasks) or the reference
    item with the sample's content (``index``: content key -> instance ids)."""

    def __init__(self, benchmark: str, index: Mapping[str, Sequence[str]]) -> None:
        self.benchmark = benchmark
        self.index = index

    def ids(self, samples: Sequence[Any]) -> list[str | None]:
        """One instance id per sample (``None``: not in the reference); identical contents take
        the reference's rows in turn."""
        used: Counter[str] = Counter()
        out: list[str | None] = []
        for sample in samples:
            probe = (getattr(sample, "metadata", None) or {}).get(PROBE_KEY)
            if isinstance(probe, Mapping):
                out.append(str(probe["instance_id"]))
                continue
            key = sample_key(self.benchmark, sample)
            found = self.index.get(key, ())
            out.append(str(found[used[key]]) if used[key] < len(found) else None)
            used[key] += 1
        return out

    def with_fallback(self, samples: Sequence[Any]) -> list[str]:
        return [i if i is not None else fallback_id(s, n)
                for n, (s, i) in enumerate(zip(samples, self.ids(samples)))]


def plan_task(benchmark: str, samples: Sequence[Any], reference: Reference
              ) -> tuple[dict[str, list[str]], dict[str, BenchmarkItem]]:
    """The content index of ``samples`` (for :class:`TaskIds`) and their reference items by
    instance id. TS-Guessing tasks need no reference (their samples carry the probe)."""
    if all(isinstance((getattr(s, "metadata", None) or {}).get(PROBE_KEY), Mapping)
           for s in samples):
        return {}, {}
    ref = reference.index(benchmark)
    index: dict[str, list[str]] = {}
    items: dict[str, BenchmarkItem] = {}
    for key in dict.fromkeys(sample_key(benchmark, s) for s in samples):
        found = ref.get(key, [])
        index[key] = [i.instance_id for i in found]
        items.update({i.instance_id: i for i in found})
    return index, items


def evaluated_samples(task: Any, limit: Any, sample_id: Any, task_names: Sequence[str]
                      ) -> list[Any]:
    """The samples Inspect evaluates for ``task`` under ``--limit`` / ``--sample-id`` (Inspect's
    own slicing, ``task:id`` selectors included)."""
    from ._compat import prerequisite_error, resolve_task_sample_ids, slice_dataset

    PrerequisiteError = prerequisite_error()
    ids = resolve_task_sample_ids(task.name, sample_id, task_names)
    try:
        return list(slice_dataset(task.dataset, limit, ids))
    except PrerequisiteError as exc:   # Inspect's run would stop on the same
        raise InputError(f"task '{task.name}': {exc}") from exc


def probes_for_run(tasks: Sequence[Any], evaluated: Sequence[Sequence[Any]], reference: Reference
                   ) -> tuple[dict[str, str | None], dict[str, dict[str, list[str]]], list[Probe],
                              dict[str, int], dict[str, str]]:
    """Per task its benchmark (``None``: no detector), per benchmark the content index of the
    tasks' whole datasets, the probes for exactly the evaluated samples (each instance once, in
    run order), the samples dropped per reason (TS-Guessing filters, ``not_in_reference``), and
    per task without a detector the one line saying why.

    MMLU / TruthfulQA samples are numbered by the benchmark's reference data; any other task whose
    samples carry ``choices`` is read by :mod:`._mc_samples` (benchmark = the task's name)."""
    benchmarks: dict[str, str | None] = {}
    indexes: dict[str, dict[str, list[str]]] = {}
    probes: dict[tuple[str, str, str], Probe] = {}
    dropped: Counter[str] = Counter()
    why: dict[str, str] = {}
    for task, chosen in zip(tasks, evaluated):
        every = list(task.dataset)
        benchmark = benchmark_of_task(task, every)
        if benchmark is None:   # any task whose samples carry choices
            generic, read, reason = read_mc_samples(task, chosen)
            if generic is not None:
                prep = prepare_probes(read, "multichoice")
                if read and not prep.probes:
                    reason = prep.no_probe_reason()
            if generic is None or reason is not None:
                benchmarks[task.name], why[task.name] = None, str(reason)
                continue
            benchmarks[task.name] = generic
            dropped.update({r.value: n for r, n in prep.dropped.items()})
            for p in prep.probes:
                probes.setdefault((p.benchmark, p.instance_id, p.mode.value), p)
            continue
        index, items = plan_task(benchmark, every, reference)
        if not items and index:   # MMLU / TruthfulQA shape, but none of it is in the reference
            warn(f"task '{task.name}': its samples have the shape of {benchmark} but none of "
                 f"them is in {reference.source(benchmark)}")
            benchmarks[task.name] = None
            why[task.name] = f"none of its samples is in the {benchmark} reference"
            continue
        benchmarks[task.name] = benchmark
        indexes.setdefault(benchmark, {}).update(index)
        ids = TaskIds(benchmark, index).ids(chosen)
        if not index:   # TS-Guessing task: the samples carry their probes
            made = [Probe.from_dict(s.metadata[PROBE_KEY]) for s in chosen]
        else:
            missing = sum(i is None for i in ids)
            if missing:
                warn(f"task '{task.name}': {missing} of {len(ids)} evaluated samples are not in "
                     f"{reference.source(benchmark)}; they stay unflagged")
            dropped[NOT_IN_REFERENCE] += missing
            wanted = [items[i] for i in dict.fromkeys(i for i in ids if i is not None)]
            prep = prepare_probes(wanted, "multichoice")
            made = list(prep.probes)
            dropped.update({reason.value: n for reason, n in prep.dropped.items()})
        for p in made:
            probes.setdefault((p.benchmark, p.instance_id, p.mode.value), p)
    return (benchmarks, indexes, list(probes.values()), {k: v for k, v in dropped.items() if v},
            why)


def items_for_run(tasks: Sequence[Any], evaluated: Sequence[Sequence[Any]], reference: Reference
                  ) -> tuple[dict[str, str | None], dict[str, dict[str, list[str]]],
                             list[BenchmarkItem], dict[str, str]]:
    """:func:`probes_for_run`'s reading without the TS-Guessing filters: per task its benchmark,
    per benchmark the content index, the items of exactly the evaluated samples (each instance
    once, run order; MMLU / TruthfulQA numbered by the reference, other tasks with choices by
    :mod:`._mc_samples`), and per task without items the one line why (a TS-Guessing task's
    samples are probes, not items)."""
    benchmarks: dict[str, str | None] = {}
    indexes: dict[str, dict[str, list[str]]] = {}
    items: dict[tuple[str, str], BenchmarkItem] = {}
    why: dict[str, str] = {}
    for task, chosen in zip(tasks, evaluated):
        every = list(task.dataset)
        benchmark = benchmark_of_task(task, every)
        if benchmark is None:
            generic, read, reason = read_mc_samples(task, chosen)
            if generic is None:
                benchmarks[task.name], why[task.name] = None, str(reason)
                continue
            benchmarks[task.name] = generic
            found = list(read)
        else:
            index, by_id = plan_task(benchmark, every, reference)
            if not index or not by_id:
                benchmarks[task.name] = None
                why[task.name] = ("its samples are TS-Guessing probes, not benchmark items"
                                  if not index else f"none of its samples is in the {benchmark} "
                                                    "reference")
                continue
            benchmarks[task.name] = benchmark
            indexes.setdefault(benchmark, {}).update(index)
            ids = TaskIds(benchmark, index).ids(chosen)
            found = [by_id[i] for i in dict.fromkeys(i for i in ids if i is not None)]
        for it in found:
            items.setdefault((it.benchmark, it.instance_id), it)
    return benchmarks, indexes, list(items.values()), why
