"""Controlled check of ``--contamination-detect`` on a multiple-choice task that is neither MMLU
nor TruthfulQA (issue 30): a tiny GPT-2 trained on the TS-Guessing probes of half the items of an
ARC-shaped local task (real MMLU biology questions in ARC's JSON shape) is flagged on exactly
those items, through ``benchchecker lm-eval run`` and ``benchchecker inspect eval``, and
``benchchecker ts-guess --task`` outside a run gives the same flags."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchchecker_plugin.flags import read_flags
from benchchecker_plugin.tsguessing import BenchmarkItem, load_mmlu, prepare_probes
from tests.helpers import comparable_flags, require_shared_data, tiny_lm
from tests.helpers.mc_tasks import arc_records, write_jsonl

TASK = "arc_ctrl"
N_ITEMS = 12
SEEN = {str(i) for i in range(0, N_ITEMS, 2)}
UNSEEN = {str(i) for i in range(1, N_ITEMS, 2)}

LM_EVAL_TASK = """\
task: arc_ctrl
dataset_path: json
dataset_kwargs:
  data_files:
    test: DATA
test_split: test
output_type: multiple_choice
doc_to_text: "Question: {{question}}\\nAnswer:"
doc_to_target: "{{choices.label.index(answerKey)}}"
doc_to_choice: "{{choices.text}}"
metric_list:
  - metric: acc
"""
ONE_CHOICE_TASK = LM_EVAL_TASK.replace("task: arc_ctrl", "task: arc_one_choice").replace(
    '"{{choices.text}}"', '"{{[choices.text[0]]}}"').replace(
    '"{{choices.label.index(answerKey)}}"', "0")
INSPECT_TASK = """\
import json
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import choice
from inspect_ai.solver import multiple_choice


@task
def arc_ctrl():
    with open(DATA, encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    samples = [Sample(input=r["question"], choices=r["choices"]["text"], target=r["answerKey"],
                      id=i) for i, r in enumerate(records)]
    return Task(dataset=MemoryDataset(samples, name="arc_ctrl"), solver=multiple_choice(),
                scorer=choice())
"""


def _items(records: list[dict[str, Any]]) -> list[BenchmarkItem]:
    return [BenchmarkItem(TASK, str(i), r["question"], tuple(r["choices"]["text"]),
                          "ABCD".index(r["answerKey"])) for i, r in enumerate(records)]


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The ARC-shaped task (12 items every one of which gives a probe), its lm-eval and Inspect
    definitions, and the tiny model trained on the probes of the even rows."""
    rows = [{"question": i.question, "choices": list(i.options), "answer": i.answer}
            for i in load_mmlu(require_shared_data("mmlu"), subjects=["high_school_biology"])]
    usable = []
    for record, item in zip(arc_records(rows), _items(arc_records(rows))):
        made = prepare_probes([item], "multichoice").probes
        if made and len(made[0].prompt) < 600:
            usable.append(record)
    records = usable[:N_ITEMS]
    probes = prepare_probes(_items(records), "multichoice").probes
    assert [p.instance_id for p in probes] == [str(i) for i in range(N_ITEMS)]
    root = tmp_path_factory.mktemp("mc_controlled")
    data = write_jsonl(root / "arc_ctrl.jsonl", records)
    tasks = root / "tasks"
    tasks.mkdir()
    (tasks / "arc_ctrl.yaml").write_text(LM_EVAL_TASK.replace("DATA", str(data)), encoding="utf-8")
    (tasks / "arc_one_choice.yaml").write_text(ONE_CHOICE_TASK.replace("DATA", str(data)),
                                               encoding="utf-8")
    inspect_file = root / "arc_ctrl_inspect.py"
    inspect_file.write_text(INSPECT_TASK.replace("DATA", repr(str(data))), encoding="utf-8")
    model = tiny_lm.build_tiny_lm(
        root / "lm", [p.prompt + " " + p.target for p in probes],
        [p.prompt + " " + p.target + "\n" for p in probes if p.instance_id in SEEN], steps=200)
    return {"root": root, "tasks": tasks, "inspect": inspect_file, "model": model,
            "probes": probes}


def _check_separates(flags: list[Any], setup: dict[str, Any]) -> None:
    assert {f.benchmark for f in flags} == {TASK}
    by_id = {f.instance_id: f for f in flags}
    assert set(by_id) == SEEN | UNSEEN
    em = {i: float(f.evidence["exact_match"]) for i, f in by_id.items()}
    assert sum(em[i] for i in SEEN) / len(SEEN) >= 0.9
    assert sum(em[i] for i in UNSEEN) / len(UNSEEN) <= 0.1
    assert {i for i, f in by_id.items() if f.contaminated} == SEEN
    # the probes asked are the ones the model was trained on (same masks, same prompts)
    assert {i: f.evidence["target"] for i, f in by_id.items()} == {
        p.instance_id: p.target for p in setup["probes"]}


@pytest.mark.slow
@pytest.mark.model
def test_lm_eval_run_flags_the_trained_half(cli: Any, setup: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = cli("lm-eval", "run", "--model", "hf", "--model_args", f"pretrained={setup['model']}",
                 "--device", "cpu", "--batch_size", "1", "--include_path", setup["tasks"],
                 "--tasks", f"{TASK},arc_one_choice", "--output_path", out, "--log_samples",
                 "--contamination-detect", "--contamination-cache-dir", tmp_path / "cache")
    assert result.exit_code == 0, result.output
    assert ("no detector for this task: arc_one_choice (doc 0: 1 choice(s); a multiple-choice "
            "probe needs at least 2); it runs unfiltered") in result.stderr
    [flags_file] = sorted(out.rglob("benchchecker_flags_*.jsonl"))
    flags = read_flags(flags_file)
    _check_separates(flags, setup)
    report = json.loads(next(out.rglob("benchchecker_2*.json")).read_text())
    [row] = [s for s in report["scores"] if s["tier"] == "all"]
    assert (row["task"], row["n_instances"], row["n_clean"], row["n_contaminated"]) == (
        TASK, N_ITEMS, len(UNSEEN), len(SEEN))
    [results] = sorted(out.rglob("results_*.json"))
    assert json.loads(results.read_text())["benchchecker"]["detect"] is True
    # the task without a detector ran, unannotated
    [plain] = sorted(out.rglob("samples_arc_one_choice_*.jsonl"))
    lines = [json.loads(x) for x in plain.read_text().splitlines()]
    assert len(lines) == N_ITEMS and not any("benchchecker" in x for x in lines)
    # the same probes outside a run: benchchecker ts-guess --task
    alone = tmp_path / "ts_guess.jsonl"
    res = cli("ts-guess", "--task", TASK, "--include_path", setup["tasks"], "--model",
              f"hf/{setup['model']}", "--batch-size", "1", "--cache-dir", tmp_path / "c2",
              "-o", alone)
    assert res.exit_code == 0, res.output
    assert comparable_flags(read_flags(alone)) == comparable_flags(flags)
    # the emitted flags filter a later run: only the unseen half is evaluated
    again = tmp_path / "again"
    res = cli("lm-eval", "run", "--model", "hf", "--model_args", f"pretrained={setup['model']}",
              "--device", "cpu", "--batch_size", "1", "--include_path", setup["tasks"],
              "--tasks", TASK, "--output_path", again, "--log_samples", "--contamination-filter",
              flags_file,
              "--contamination-mode", "clean")
    assert res.exit_code == 0, res.output
    [samples] = sorted(again.rglob(f"samples_{TASK}_*.jsonl"))
    done = [json.loads(x) for x in samples.read_text().splitlines()]
    assert {str(x["doc_id"]) for x in done} == UNSEEN
    assert {x["benchchecker"]["group"] for x in done} == {"clean"}


@pytest.mark.slow
@pytest.mark.model
def test_inspect_eval_flags_the_trained_half(cli: Any, setup: dict[str, Any], tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log

    logs = tmp_path / "logs"
    result = cli("inspect", "eval", f"{setup['inspect']}@{TASK}", "--model",
                 f"benchchecker/hf/{setup['model']}", "--max-tokens", "4", "--log-dir", logs,
                 "--display", "none", "--contamination-detect", "--contamination-cache-dir",
                 tmp_path / "cache")
    assert result.exit_code == 0, result.output
    [flags_file] = sorted(logs.glob("benchchecker_flags_*.jsonl"))
    _check_separates(read_flags(flags_file), setup)
    [log] = sorted(logs.glob("*.eval"))
    annotated = read_eval_log(str(log))
    groups = {str(s.id): s.metadata["benchchecker"]["group"] for s in annotated.samples}
    assert groups == {**dict.fromkeys(SEEN, "contaminated"), **dict.fromkeys(UNSEEN, "clean")}
    assert annotated.results.metadata["benchchecker"]["counts"] == {
        "clean": len(UNSEEN), "contaminated": len(SEEN), "undecided": 0, "unflagged": 0}
    # the emitted flags filter a later run: only the seen half is evaluated
    again = tmp_path / "again"
    res = cli("inspect", "eval", f"{setup['inspect']}@{TASK}", "--model",
              f"benchchecker/hf/{setup['model']}", "--max-tokens", "4", "--log-dir", again,
              "--display", "none", "--contamination-filter", flags_file,
              "--contamination-mode", "contaminated")
    assert res.exit_code == 0, res.output
    [log] = sorted(again.glob("*.eval"))
    assert {str(s.id) for s in read_eval_log(str(log)).samples} == SEEN
