"""The four TS-Guessing tasks for Inspect (same probes, prompts and scoring as lm-eval and
``benchchecker ts-guess``).

Registered through the ``inspect_ai`` entry point, so after ``pip install benchchecker_plugin``::

    inspect eval benchchecker_plugin/ts_guessing_mmlu_multichoice --model openai/gpt-4o-mini \\
        -T data=../shared/data/mmlu --limit 100

Task options (``-T``): ``data`` (local MMLU folder or TruthfulQA.csv; default: the hub dataset),
``seed`` (0), ``hints`` (true), ``subjects`` (MMLU subjects, comma-separated; default all),
``max_tokens`` (32). Generation is greedy (temperature 0; ``top_k=1`` under Inspect's ``hf/``,
which refuses temperature 0) with no stop sequence (EOS or
``max_tokens`` ends it); the scorer reads the answer from the whole reply with
:func:`benchchecker_plugin.tsguessing.clean_answer` (the first line with text), as lm-eval and
``benchchecker ts-guess`` do.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

from ..errors import HubUnavailableError
from ..local_data import local_data
from ..tsguessing import DEFAULT_PARAMS, MAX_TOKENS, Mode, load_items, prepare_probes
from ._scorer import PROBE_KEY, ts_guessing_scorer


def _subjects(subjects: Any) -> set[str] | None:
    if not subjects:
        return None
    return set(subjects.split(",")) if isinstance(subjects, str) else set(subjects)


def ts_guessing_task(benchmark: str, mode: Mode | str, data: str | None = None, seed: int = 0,
                     hints: bool = True, subjects: Any = None, max_tokens: int = MAX_TOKENS) -> Task:
    """A TS-Guessing task over ``benchmark`` in ``mode`` (one sample per usable item)."""
    if data:   # -T data=PATH or -T data=NAME=PATH (benchchecker_plugin.local_data)
        data = local_data([str(data)], [benchmark], "-T data={}")[benchmark]
    try:
        items = load_items(benchmark, data)
    except HubUnavailableError as exc:
        raise exc.naming("-T data=PATH") from exc
    wanted = _subjects(subjects)
    if wanted is not None:
        items = [i for i in items if i.metadata.get("subject") in wanted]
    prep = prepare_probes(items, mode, seed=int(seed), hints=bool(hints))
    samples = [Sample(input=p.prompt, target=p.target, id=p.instance_id, metadata={PROBE_KEY: p.to_dict()})
               for p in prep.probes]
    name = f"ts_guessing_{benchmark}_{Mode(mode).value}"
    return Task(dataset=MemoryDataset(samples, name=name), solver=generate(), scorer=ts_guessing_scorer(),
                config=GenerateConfig(max_tokens=int(max_tokens), stop_seqs=list(DEFAULT_PARAMS.stop) or None,
                                      **_greedy()))


def _greedy() -> dict[str, Any]:
    """Greedy decoding as the run's model accepts it (Inspect's ``hf/`` refuses
    ``temperature=0.0``): ``top_k=1`` there, ``temperature=0`` elsewhere; nothing added when the
    run asks for a ``--temperature`` itself (Inspect gives it the run's model config)."""
    from inspect_ai.model import get_model

    from ..models import greedy_fields

    try:
        model = get_model()   # the run's model: Inspect builds tasks with it active
    except ValueError:        # built outside an eval (no model named)
        return greedy_fields("")
    if model.config.temperature is not None:
        return {}
    return greedy_fields(str(model))


@task
def ts_guessing_mmlu_multichoice(data: str | None = None, seed: int = 0, hints: bool = True,
                                 subjects: Any = None, max_tokens: int = MAX_TOKENS) -> Task:
    """MMLU test questions with one wrong option hidden; the model must write it."""
    return ts_guessing_task("mmlu", Mode.MULTICHOICE, data, seed, hints, subjects, max_tokens)


@task
def ts_guessing_mmlu_question(data: str | None = None, seed: int = 0, hints: bool = True,
                              subjects: Any = None, max_tokens: int = MAX_TOKENS) -> Task:
    """MMLU test questions with one content word hidden; the model must write it."""
    return ts_guessing_task("mmlu", Mode.QUESTION, data, seed, hints, subjects, max_tokens)


@task
def ts_guessing_truthfulqa_multichoice(data: str | None = None, seed: int = 0, hints: bool = True,
                                       max_tokens: int = MAX_TOKENS) -> Task:
    """TruthfulQA with one incorrect answer hidden among four options; the model must write it."""
    return ts_guessing_task("truthfulqa", Mode.MULTICHOICE, data, seed, hints, None, max_tokens)


@task
def ts_guessing_truthfulqa_question(data: str | None = None, seed: int = 0, hints: bool = True,
                                    max_tokens: int = MAX_TOKENS) -> Task:
    """TruthfulQA questions with one content word hidden; the model must write it."""
    return ts_guessing_task("truthfulqa", Mode.QUESTION, data, seed, hints, None, max_tokens)
