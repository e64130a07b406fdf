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


def _utils():  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "ts_guessing_task_utils", REPO / "tasks" / "lm_eval" / "ts_guessing" / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_metadata_data_keys_are_resolved_or_refused(mmlu_dir: Path) -> None:
    """The ``ts_guessing`` group with one ``data`` key (issue 13, item 5): the shared-data folder
    serves both benchmarks; an MMLU folder serves MMLU and is refused for TruthfulQA with a
    message naming the key to pass; a misspelt key is refused."""
    from benchchecker_plugin.errors import InputError

    utils = _utils()
    shared = mmlu_dir.parent
    tqa = shared / "truthfulqa" / "TruthfulQA.csv"
    assert utils.data_path("mmlu", {"data": str(shared)}) == str(shared / "mmlu")
    assert utils.data_path("truthfulqa", {"data": str(shared)}) == str(tqa)
    assert utils.data_path("mmlu", {"data": str(mmlu_dir)}) == str(mmlu_dir)
    assert utils.data_path("truthfulqa", {"data": str(mmlu_dir),
                                          "truthfulqa_data": str(tqa)}) == str(tqa)
    with pytest.raises(InputError) as err:
        utils.data_path("truthfulqa", {"data": str(mmlu_dir)})
    assert str(err.value) == (
        f"--metadata data={mmlu_dir}: holds no truthfulqa data (expected TruthfulQA.csv, or a "
        "folder with mmlu/ and truthfulqa/TruthfulQA.csv); pass '{\"truthfulqa_data\": ...}' "
        "for the ts_guessing_truthfulqa_* tasks")
    with pytest.raises(InputError, match="'mmul_data' is not read"):
        utils.data_path("mmlu", {"mmul_data": str(mmlu_dir)})


def test_truthfulqa_task_reads_the_shared_folder_through_data(mmlu_dir: Path) -> None:
    from lm_eval.tasks import TaskManager

    tm = TaskManager(include_path=str(REPO / "tasks" / "lm_eval"), include_defaults=False,
                     metadata={"data": str(mmlu_dir.parent)})
    name = "ts_guessing_truthfulqa_multichoice"
    docs = list(tm.load([name])["tasks"][name].test_docs())
    assert docs and json.loads(docs[0]["probe_json"])["benchmark"] == "truthfulqa"
