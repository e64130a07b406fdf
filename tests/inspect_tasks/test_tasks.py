"""The shipped TS-Guessing tasks ask each Inspect provider for greedy decoding the way it accepts it
(issue 29, item 4: under Inspect's own ``hf/`` provider every sample failed with
``ValueError: temperature (=0.0) has to be a strictly positive float``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import require_shared_data, tiny_lm

pytestmark = [pytest.mark.slow, pytest.mark.model]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_lm.build_tiny_lm(tmp_path_factory.mktemp("tiny"), ["a b c d e f g"])


def _run(tiny: Path, tmp_path: Path, **options: object) -> object:
    from inspect_ai import eval

    from benchchecker_plugin.inspect_tasks import ts_guessing_mmlu_multichoice

    # the task function, built by Inspect under the run's model as `inspect eval` builds it
    [log] = eval(ts_guessing_mmlu_multichoice, model=f"hf/{tiny}",
                 task_args={"data": str(require_shared_data("mmlu")), "subjects": "astronomy"},
                 limit=2, max_tokens=4, display="none", log_dir=str(tmp_path), **options)
    return log


def test_ts_guessing_task_runs_greedy_under_inspects_hf_provider(tiny: Path, tmp_path: Path) -> None:
    log = _run(tiny, tmp_path / "greedy")
    assert log.status == "success", log.error
    assert (log.plan.config.temperature, log.plan.config.top_k) == (None, 1)
    again = _run(tiny, tmp_path / "again")
    assert [s.output.completion for s in again.samples] == [s.output.completion for s in log.samples]
    sampled = _run(tiny, tmp_path / "sampled", temperature=0.9)    # the run's own choice stands
    assert sampled.status == "success", sampled.error
    assert (sampled.plan.config.temperature, sampled.plan.config.top_k) == (0.9, None)


def test_detection_asks_inspects_hf_provider_greedily(tiny: Path) -> None:
    from benchchecker_plugin.models import GenerationParams, InspectModel, greedy_fields

    assert greedy_fields("hf/gpt2") == {"temperature": None, "top_k": 1}
    assert greedy_fields("openai/gpt-4o") == greedy_fields("benchchecker/hf/x") == {"temperature": 0.0}
    model = InspectModel(f"inspect/hf/{tiny}", f"hf/{tiny}")
    params = GenerationParams(max_tokens=4, temperature=0.0)
    first = model.generate(["a b c", "d e"], params)
    assert all(c.error is None for c in first), first
    assert model.generate(["a b c", "d e"], params) == first
