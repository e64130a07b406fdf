"""The Inspect scorer of the TS-Guessing tasks: EM and Rouge-L against the masked text, with the
contamination flag in ``Score.metadata["flag"]`` (read back by ``benchchecker flags from-inspect``)."""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState

from ..tsguessing import MULTICHOICE_THRESHOLD, Probe, probe_flag

#: Sample metadata key holding :meth:`Probe.to_dict`.
PROBE_KEY = "probe"


@scorer(metrics={"exact_match": [mean()], "rouge_l": [mean()]})
def ts_guessing_scorer(threshold: float = MULTICHOICE_THRESHOLD) -> Any:
    """Score the completion against the masked option/word; the flag's ``model`` is the Inspect
    model name (``provider/model``)."""

    async def score(state: TaskState, target: Target) -> Score:
        probe = Probe.from_dict(state.metadata[PROBE_KEY])
        error = state.output.error if state.output is not None else "no output"
        completion = None if error else state.output.completion
        flag = probe_flag(probe, completion, str(state.model), error=error, threshold=threshold)
        ev = flag.evidence
        return Score(value={"exact_match": float(ev.get("exact_match", 0.0)),
                            "rouge_l": float(ev.get("rouge_l", 0.0))},
                     answer=ev.get("answer"), explanation=f"target: {probe.target}",
                     metadata={"flag": flag.to_dict()})

    return score
