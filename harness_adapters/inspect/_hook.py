"""The Inspect hook: contamination flags and grouped scores written into each eval log.

Registered with Inspect through the ``inspect_ai`` entry point; active only when the environment
variable ``BENCHCHECKER_FLAGS`` names a flags file or folder, or several separated by
``os.pathsep`` (merged per instance) (``benchchecker inspect eval --contamination-filter`` /
``--contamination-detect`` set it; plain ``inspect eval`` works too)::

    BENCHCHECKER_FLAGS=flags.jsonl inspect eval \\
        benchchecker_plugin/ts_guessing_mmlu_multichoice --model hf/...

``BENCHCHECKER_CONTAMINATION_MODE`` (``both``/``clean``/``contaminated``) and
``BENCHCHECKER_CONTAMINATION_MODEL`` (the model name the flags use) are optional.
``BENCHCHECKER_DETECTION`` (set by ``--contamination-detect``) names a JSON file with each task's
benchmark (``null``: no detector, the log is left as Inspect wrote it), the content index that
numbers the samples (:class:`harness_adapters.inspect._detect.TaskIds`) and the detection summary
(written to ``results.metadata["benchchecker"]["detection"]``).

When a task ends (after Inspect has written its log), the log is read back and written again,
atomically, with two additions and nothing else changed:

- ``sample.metadata["benchchecker"]``: ``{"instance_id", "benchmark", "model", "group"}`` for
  every sample (group: clean / contaminated / undecided / unflagged);
- ``log.results.metadata["benchchecker"]``: flags, mode, counts and, per scorer metric and tier,
  the full / clean / contaminated scores with the relative drop (``harness_adapters.scores``).

Sample instance ids are ``sample.metadata["instance_id"]`` when present, else the sample id; the
benchmark comes from the task's ``benchmark`` metadata, its name, or the flags (with
``BENCHCHECKER_DETECTION``: from the detection file).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai.hooks import Hooks, TaskEnd, hooks

from benchchecker_plugin.atomic import atomic_path
from benchchecker_plugin.errors import ExecutionError
from benchchecker_plugin.warnings_text import warnings_in_words

from ..common import FilterMode, FilterOptions, Selection, flags_digest, load_flags, run_filter
from ..scores import GroupedScore, grouped_scores

ENV_FLAGS = "BENCHCHECKER_FLAGS"
ENV_MODE = "BENCHCHECKER_CONTAMINATION_MODE"
ENV_MODEL = "BENCHCHECKER_CONTAMINATION_MODEL"
ENV_DETECTION = "BENCHCHECKER_DETECTION"

logger = logging.getLogger(__name__)

#: Logs annotated in this process: (location, selection, scores), newest last. The CLI wrapper
#: prints their tables after Inspect's own output.
ANNOTATED: list[tuple[str, Selection, list[GroupedScore]]] = []


def flag_paths_from_env() -> list[Path]:
    """The flags files / folders ``BENCHCHECKER_FLAGS`` names (several: ``os.pathsep``)."""
    value = os.environ.get(ENV_FLAGS) or ""
    return [Path(p) for p in value.split(os.pathsep) if p.strip()]


def options_from_env() -> FilterOptions:
    """The filter options the environment asks for (``flags is None``: hook inactive). With
    several paths, ``flags`` is the first; the others are read by :func:`annotate_log`'s
    ``extra`` (``ContaminationHook`` passes them)."""
    paths = flag_paths_from_env()
    if not paths:
        return FilterOptions(None)
    return FilterOptions.from_values(paths[0], os.environ.get(ENV_MODE) or None,
                                     os.environ.get(ENV_MODEL) or None, detect=len(paths) > 1)


def _detection_from_env() -> dict[str, Any] | None:
    path = os.environ.get(ENV_DETECTION) or None
    if path is None:
        return None
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ExecutionError(f"{ENV_DETECTION}={path}: not a readable detection file ({exc})") \
            from exc
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), dict):
        raise ExecutionError(f"{ENV_DETECTION}={path}: not a benchchecker detection file")
    return data


def instance_id_of(sample: Any) -> str:
    """A sample's benchmark instance id: ``metadata["instance_id"]`` or the sample id."""
    meta = getattr(sample, "metadata", None) or {}
    iid = meta.get("instance_id")
    return str(iid) if iid not in (None, "") else str(sample.id)


def model_candidates(model: str) -> list[str]:
    """Names a flags file may use for an Inspect model ``provider/name``."""
    from benchchecker_plugin.models import canonical_model_name

    out = [canonical_model_name(model), f"inspect/{model}", model]
    if "/" in model:
        out.append(model.split("/", 1)[1])
    return list(dict.fromkeys(out))


def metric_labels(log: Any) -> dict[str, str]:
    """``{scorer: label}``: the grouped score of a scorer is the mean of its values, which is the
    metric Inspect reports as ``accuracy`` (or ``mean``); the table says that, not the scorer's
    name (``choice`` says nothing to a reader). A metric name two scorers share is ``scorer/metric``."""
    found: dict[str, str] = {}
    for score in (log.results.scores if log.results is not None else None) or []:
        metric = next((m for m in ("accuracy", "mean") if m in (score.metrics or {})), None)
        if metric is not None:
            found[score.name] = metric
    shared = {m for m in found.values() if list(found.values()).count(m) > 1}
    return {name: f"{name}/{m}" if m in shared else m for name, m in found.items()}


def _scores_by_metric(log: Any, by_sample: Mapping[str, str]) -> dict[str, dict[str, float]]:
    """``{metric label: {instance_id: value}}`` (:func:`metric_labels`; ``scorer/key`` for a
    scorer with several values), values as floats (Inspect's own conversion), averaged over
    epochs. A sample that errored or lacks a score counts 0 (a failure, never a success) and
    stays in the denominator."""
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    labels = metric_labels(log)
    per_sample: list[tuple[str, dict[str, float]]] = []
    names: dict[str, None] = {}
    for sample in log.samples or []:
        got: dict[str, float] = {}
        if sample.error is None:
            for scorer, score in (sample.scores or {}).items():
                value = score.value
                items = value.items() if isinstance(value, dict) else [(None, value)]
                for key, v in items:
                    name = labels.get(scorer, scorer) if key is None else f"{scorer}/{key}"
                    got[name] = float(to_float(v))
        names.update(dict.fromkeys(got))
        per_sample.append((by_sample[str(sample.id)], got))
    sums: dict[str, dict[str, list[float]]] = {n: {} for n in names}
    for iid, got in per_sample:
        for name in names:
            sums[name].setdefault(iid, []).append(got.get(name, 0.0))
    return {name: {iid: sum(v) / len(v) for iid, v in by_id.items()}
            for name, by_id in sums.items()}


def _task_benchmark(detection: Mapping[str, Any] | None, task: str) -> str | None:
    """The detected benchmark of ``task`` (``None``: no detector, or not in the detection file);
    a registry prefix (``pkg/task``) on either side is ignored."""
    tasks = (detection or {}).get("tasks", {})
    if task in tasks:
        return tasks[task]
    short = {name.rsplit("/", 1)[-1]: b for name, b in tasks.items()}
    return short.get(task.rsplit("/", 1)[-1])


def _in_detection(detection: Mapping[str, Any] | None, task: str) -> bool:
    tasks = (detection or {}).get("tasks", {})
    return task in tasks or task.rsplit("/", 1)[-1] in {n.rsplit("/", 1)[-1] for n in tasks}


def _run_ids(log: Any, detection: Mapping[str, Any] | None
             ) -> tuple[list[str], dict[str, str], str | None]:
    """(instance ids of the log's samples, {sample id: instance id}, detected benchmark)."""
    benchmark = _task_benchmark(detection, log.eval.task)
    if not benchmark:
        ids = {str(s.id): instance_id_of(s) for s in log.samples}
        return list(dict.fromkeys(ids.values())), ids, None
    from ._detect import TaskIds

    distinct = list({str(s.id): s for s in log.samples}.values())   # one per sample, not epoch
    index = detection.get("index", {}).get(benchmark, {})  # type: ignore[union-attr]
    found = TaskIds(benchmark, index).with_fallback(distinct)
    return list(dict.fromkeys(found)), {str(s.id): i for s, i in zip(distinct, found)}, benchmark


def annotate_log(location: str | os.PathLike[str], options: FilterOptions, *,
                 extra: Sequence[Path] = (), detection: Mapping[str, Any] | None = None
                 ) -> tuple[Selection, list[GroupedScore]]:
    """Add flags to every sample and grouped scores to the results of one local eval log
    (rewritten atomically in its own format). Returns the selection and the scores.

    ``extra``: more flags files merged with ``options.flags``; ``detection``: the contents of
    the ``BENCHCHECKER_DETECTION`` file (benchmark and sample numbering of the log's task, and
    the summary recorded in the results)."""
    from inspect_ai.log import read_eval_log, write_eval_log

    path = Path(location)
    if not path.is_file():
        raise ExecutionError(f"{location}: not a local eval log file; cannot annotate it")
    log = read_eval_log(str(path))
    if not log.samples:
        raise ExecutionError(f"{path}: the log holds no samples (run without --no-log-samples)")
    meta = dict(log.eval.metadata or {})
    ids, by_sample, detected = _run_ids(log, detection)
    hints = [detected] if detected else (
        [str(meta["benchmark"])] if meta.get("benchmark") else [log.eval.task])
    more = [f for flags_file in extra for f in load_flags(flags_file)]
    # known_ids=(): the CLI checked the flags against the whole dataset; a log holds a subset.
    selection = run_filter(options, hints=hints, model_candidates=model_candidates(log.eval.model),
                           instance_ids=ids, known_ids=(), detected=more)
    if options.mode is not FilterMode.BOTH:
        other = [i for i, g in selection.groups.items() if g.value != options.mode.value]
        if other:
            raise ExecutionError(
                f"{path}: {ENV_MODE}={options.mode.value} but the log holds {len(other)} other "
                f"sample(s) (e.g. '{other[0]}'); run the subset with `benchchecker inspect eval "
                "--contamination-mode`")
    for sample in log.samples:
        iid = by_sample[str(sample.id)]
        sample.metadata = {**(sample.metadata or {}), "benchchecker": {
            "instance_id": iid, "benchmark": selection.benchmark, "model": selection.model,
            "group": selection.groups[iid].value}}
    scores = [s for name, values in sorted(_scores_by_metric(log, by_sample).items())
              for s in grouped_scores(values, selection, task=log.eval.task, metric=name)]
    if log.results is not None:
        log.results.metadata = {**(log.results.metadata or {}), "benchchecker": {
            "flags": str(options.flags), "mode": options.mode.value,
            "benchmark": selection.benchmark, "model": selection.model,
            "counts": selection.counts(), "scores": [s.to_dict() for s in scores]}}
        if extra:
            log.results.metadata["benchchecker"]["flags_files"] = [
                str(p) for p in [options.flags, *extra]]
        if detection is not None and detection.get("detection") is not None:
            log.results.metadata["benchchecker"]["detection"] = detection["detection"]
    # the log header says the scores are of a filtered run, as lm-eval's results file does
    used = [p for p in [options.flags, *extra] if p is not None]
    log.eval.metadata = {**(log.eval.metadata or {}), "benchchecker": {
        "mode": options.mode.value, "flags": [str(p) for p in used],
        "flags_sha256": flags_digest(used), "evaluated": len(selection.groups),
        "counts": selection.counts(),
        "note": ("scores are of the " + ("full run" if options.mode is FilterMode.BOTH
                                         else f"{options.mode.value} subset only")
                 + "; grouped scores in results.metadata['benchchecker']")}}
    with atomic_path(path) as tmp:   # Inspect's writer needs a file name
        write_eval_log(log, str(tmp))
    return selection, scores


@hooks(name="benchchecker_contamination",
       description="Writes contamination flags and clean/contaminated scores into eval logs "
                   "when BENCHCHECKER_FLAGS is set.")
class ContaminationHook(Hooks):
    """Annotates each finished task's log (see the module docstring)."""

    def enabled(self) -> bool:
        return bool(os.environ.get(ENV_FLAGS))

    async def on_task_end(self, data: TaskEnd) -> None:
        location = data.log.location
        if not location:
            logger.warning("benchchecker: eval log has no location; not annotated")
            return
        detection = _detection_from_env()
        task = data.log.eval.task
        if _in_detection(detection, task) and not _task_benchmark(detection, task):
            logger.warning(f"benchchecker: no detector for task {task}; its log is not "
                           "annotated")
            return
        with warnings_in_words():   # under plain `inspect eval` too (not raw warnings)
            selection, scores = annotate_log(location, options_from_env(),
                                             extra=flag_paths_from_env()[1:], detection=detection)
        ANNOTATED.append((str(location), selection, scores))
