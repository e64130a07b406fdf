"""The three TS-Guessing paths generate with the same rule: greedy, no stop string, the same token
limit (issue 6: a newline stop emptied replies that began with a blank line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.tsguessing import DEFAULT_PARAMS, MAX_TOKENS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _datasets_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


def test_lm_eval_tasks_stop_only_at_eos(mmlu_dir: Path) -> None:
    from lm_eval.tasks import TaskManager

    tm = TaskManager(include_path=str(REPO / "tasks" / "lm_eval"), include_defaults=False,
                     metadata={"data": str(mmlu_dir), "subjects": ["astronomy"]})
    task = tm.load(["ts_guessing_mmlu_multichoice"])["tasks"]["ts_guessing_mmlu_multichoice"]
    kwargs = task.config.generation_kwargs
    assert kwargs["until"] == list(DEFAULT_PARAMS.stop) == []
    assert kwargs["max_gen_toks"] == MAX_TOKENS and kwargs["do_sample"] is False
    doc = next(iter(task.test_docs()))
    assert task.process_results(doc, ["\n\nThe answer is:\nB: " + doc["target"] + "\n\nQuestion:"]) == {
        "exact_match": 1.0, "rouge_l": 1.0}


def test_inspect_tasks_stop_only_at_eos(mmlu_dir: Path) -> None:
    pytest.importorskip("inspect_ai")
    from benchchecker_plugin.inspect_tasks import ts_guessing_mmlu_multichoice

    task = ts_guessing_mmlu_multichoice(data=str(mmlu_dir), subjects="astronomy")
    assert not task.config.stop_seqs
    assert task.config.max_tokens == MAX_TOKENS and task.config.temperature == 0.0
