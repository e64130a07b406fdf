"""lm-eval finds the four TS-Guessing tasks and their group, and loads a task's docs from local
data through ``benchchecker_plugin.tsguessing`` (no logic copied into the task folder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TASKS = ["ts_guessing_mmlu_multichoice", "ts_guessing_mmlu_question", "ts_guessing_truthfulqa_multichoice",
         "ts_guessing_truthfulqa_question"]


def test_tasks_and_group_are_indexed() -> None:
    from lm_eval.tasks import TaskManager

    tm = TaskManager(include_path=str(REPO / "tasks" / "lm_eval"), include_defaults=False)
    assert set(TASKS) <= set(tm.all_tasks) and "ts_guessing" in tm.all_groups


def test_truthfulqa_question_docs_from_local_csv(mmlu_dir: Path) -> None:
    from lm_eval.tasks import TaskManager

    tqa = mmlu_dir.parent / "truthfulqa" / "TruthfulQA.csv"
    tm = TaskManager(include_path=str(REPO / "tasks" / "lm_eval"), include_defaults=False,
                     metadata={"truthfulqa_data": str(tqa), "hints": False})
    task = tm.load(["ts_guessing_truthfulqa_question"])["tasks"]["ts_guessing_truthfulqa_question"]
    docs = list(task.test_docs())
    assert len(docs) == 733  # 817 - 53 indexical - 25 short - 6 without a content word
    first = docs[0]
    assert first["instance_id"] == "0" and first["target"] == "watermelon"
    assert task.doc_to_text(first) == first["prompt"] and first["prompt"].startswith("Below is a question")
    assert json.loads(first["probe_json"])["mode"] == "question"
    assert task.process_results(first, [" Watermelon.\n"]) == {"exact_match": 1.0, "rouge_l": 1.0}
    assert task.process_results(first, ["melon"]) == {"exact_match": 0.0, "rouge_l": 0.0}


@pytest.fixture(autouse=True)
def _datasets_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
