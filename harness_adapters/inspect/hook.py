"""The Inspect hook: contamination flags and grouped scores written into each eval log.

Registered with Inspect through the ``inspect_ai`` entry point; active only when the environment
variable ``BENCHCHECKER_FLAGS`` names a flags file or folder (``benchchecker inspect eval
--contamination-filter`` sets it; plain ``inspect eval`` works too)::

    BENCHCHECKER_FLAGS=flags.jsonl inspect eval \\
        benchchecker_plugin/ts_guessing_mmlu_multichoice --model hf/...

``BENCHCHECKER_CONTAMINATION_MODE`` (``both``/``clean``/``contaminated``) and
``BENCHCHECKER_CONTAMINATION_MODEL`` (the model name the flags use) are optional.

When a task ends (after Inspect has written its log), the log is read back and written again,
atomically, with two additions and nothing else changed:

- ``sample.metadata["benchchecker"]``: ``{"instance_id", "benchmark", "model", "group"}`` for
  every sample (group: clean / contaminated / undecided / unflagged);
- ``log.results.metadata["benchchecker"]``: flags, mode, counts and, per scorer metric and tier,
  the full / clean / contaminated scores with the relative drop (``harness_adapters.scores``).

Sample instance ids are ``sample.metadata["instance_id"]`` when present, else the sample id; the
benchmark comes from the task's ``benchmark`` metadata, its name, or the flags.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai.hooks import Hooks, TaskEnd, hooks

from benchchecker_plugin.errors import ExecutionError

from ..common import FilterOptions, Mode, Selection, run_filter
from ..scores import GroupedScore, grouped_scores

__all__ = ["ANNOTATED", "ContaminationHook", "ENV_FLAGS", "ENV_MODE", "ENV_MODEL", "annotate_log",
           "instance_id_of", "model_candidates", "options_from_env"]

ENV_FLAGS = "BENCHCHECKER_FLAGS"
ENV_MODE = "BENCHCHECKER_CONTAMINATION_MODE"
ENV_MODEL = "BENCHCHECKER_CONTAMINATION_MODEL"

logger = logging.getLogger(__name__)

#: Logs annotated in this process: (location, selection, scores), newest last. The CLI wrapper
#: prints their tables after Inspect's own output.
ANNOTATED: list[tuple[str, Selection, list[GroupedScore]]] = []


def options_from_env() -> FilterOptions:
    """The filter options the environment asks for (``flags is None``: hook inactive)."""
    flags = os.environ.get(ENV_FLAGS) or None
    if flags is None:
        return FilterOptions(None)
    return FilterOptions.from_values(flags, os.environ.get(ENV_MODE) or None,
                                     os.environ.get(ENV_MODEL) or None)


def instance_id_of(sample: Any) -> str:
    """A sample's benchmark instance id: ``metadata["instance_id"]`` or the sample id."""
    meta = getattr(sample, "metadata", None) or {}
    iid = meta.get("instance_id")
    return str(iid) if iid not in (None, "") else str(sample.id)


def model_candidates(model: str) -> list[str]:
    """Names a flags file may use for an Inspect model ``provider/name``."""
    out = [f"inspect/{model}", model]
    if "/" in model:
        out.append(model.split("/", 1)[1])
    return list(dict.fromkeys(out))


def _scores_by_metric(log: Any) -> dict[str, dict[str, float]]:
    """``{scorer[/key]: {instance_id: value}}``, values as floats (Inspect's own conversion),
    averaged over epochs. A sample that errored or lacks a score counts 0 (a failure, never a
    success) and stays in the denominator."""
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    per_sample: list[tuple[str, dict[str, float]]] = []
    names: dict[str, None] = {}
    for sample in log.samples or []:
        got: dict[str, float] = {}
        if sample.error is None:
            for scorer, score in (sample.scores or {}).items():
                value = score.value
                items = value.items() if isinstance(value, dict) else [(None, value)]
                for key, v in items:
                    got[scorer if key is None else f"{scorer}/{key}"] = float(to_float(v))
        names.update(dict.fromkeys(got))
        per_sample.append((instance_id_of(sample), got))
    sums: dict[str, dict[str, list[float]]] = {n: {} for n in names}
    for iid, got in per_sample:
        for name in names:
            sums[name].setdefault(iid, []).append(got.get(name, 0.0))
    return {name: {iid: sum(v) / len(v) for iid, v in by_id.items()}
            for name, by_id in sums.items()}


def annotate_log(location: str | os.PathLike[str], options: FilterOptions
                 ) -> tuple[Selection, list[GroupedScore]]:
    """Add flags to every sample and grouped scores to the results of one local eval log
    (rewritten atomically in its own format). Returns the selection and the scores."""
    from inspect_ai.log import read_eval_log, write_eval_log

    path = Path(location)
    if not path.is_file():
        raise ExecutionError(f"{location}: not a local eval log file; cannot annotate it")
    log = read_eval_log(str(path))
    if not log.samples:
        raise ExecutionError(f"{path}: the log holds no samples (run without --no-log-samples)")
    meta = dict(log.eval.metadata or {})
    hints = [str(meta["benchmark"])] if meta.get("benchmark") else [log.eval.task]
    ids = list(dict.fromkeys(instance_id_of(s) for s in log.samples))
    # known_ids=(): the CLI checked the flags against the whole dataset; a log holds a subset.
    selection = run_filter(options, hints=hints, model_candidates=model_candidates(log.eval.model),
                           instance_ids=ids, known_ids=())
    if options.mode is not Mode.BOTH:
        other = [i for i, g in selection.groups.items() if g.value != options.mode.value]
        if other:
            raise ExecutionError(
                f"{path}: {ENV_MODE}={options.mode.value} but the log holds {len(other)} other "
                f"sample(s) (e.g. '{other[0]}'); run the subset with `benchchecker inspect eval "
                "--contamination-mode`")
    for sample in log.samples:
        iid = instance_id_of(sample)
        sample.metadata = {**(sample.metadata or {}), "benchchecker": {
            "instance_id": iid, "benchmark": selection.benchmark, "model": selection.model,
            "group": selection.groups[iid].value}}
    scores = [s for name, values in sorted(_scores_by_metric(log).items())
              for s in grouped_scores(values, selection, task=log.eval.task, metric=name)]
    if log.results is not None:
        log.results.metadata = {**(log.results.metadata or {}), "benchchecker": {
            "flags": str(options.flags), "mode": options.mode.value,
            "benchmark": selection.benchmark, "model": selection.model,
            "counts": selection.counts(), "scores": [s.to_dict() for s in scores]}}
    fd, tmp = tempfile.mkstemp(prefix=".benchchecker.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    try:
        write_eval_log(log, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
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
        selection, scores = annotate_log(location, options_from_env())
        ANNOTATED.append((str(location), selection, scores))
