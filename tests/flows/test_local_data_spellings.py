"""Issue 39 item 9 (local data named four ways), run as a user runs it: a local copy of a benchmark
is ``NAME=PATH`` in every harness, ``PATH`` alone where one benchmark is read (README, "Local
data: one rule"). Each accepted spelling reaches the same data; a wrong one is one line naming
the right spelling in that harness's syntax.

Before: ``ts-guess --data truthfulqa=PATH`` and ``overlap --data truthfulqa=PATH`` were refused
("Path 'truthfulqa=...' does not exist"), ``check --data PATH`` was refused with one benchmark,
``-T data=truthfulqa=PATH`` and ``--metadata '{"data": "truthfulqa=PATH"}'`` read no data.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from benchchecker_plugin.errors import InputError
from tests.helpers import SHARED_DATA, require_shared_data

REPO = Path(__file__).resolve().parents[2]
TQA = SHARED_DATA / "truthfulqa" / "TruthfulQA.csv"
MMLU = SHARED_DATA / "mmlu"
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "BENCHCHECKER_PROGRESS": "0"}
DRY = ["--model", "hf/never-loaded", "--dry-run"]


def _benchchecker(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["benchchecker", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, **OFFLINE))


def _lm_eval_utils(task: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"{task}_utils_spellings",
                                                  REPO / "tasks" / "lm_eval" / task / "utils.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow   # six runs of the command (~1-2 s each)
def test_each_benchchecker_spelling_reaches_the_same_data(tmp_path: Path) -> None:
    require_shared_data("truthfulqa")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "hello world"}\n', encoding="utf-8")
    runs: dict[str, list[subprocess.CompletedProcess]] = {}
    for spelling in (str(TQA), f"truthfulqa={TQA}"):
        runs.setdefault("ts-guess", []).append(_benchchecker(
            ["ts-guess", "--benchmark", "truthfulqa", "--data", spelling, *DRY,
             "--cache-dir", tmp_path / "cache"], tmp_path))
        runs.setdefault("overlap", []).append(_benchchecker(
            ["overlap", "--benchmark", "truthfulqa", "--data", spelling, "--corpus", corpus,
             "-o", tmp_path / f"o{len(runs['ts-guess'])}.jsonl"], tmp_path))
        runs.setdefault("check", []).append(_benchchecker(
            ["check", "--cutoff", "2024-01", "--benchmarks", "truthfulqa", "--data", spelling,
             "--limit", "5", *DRY, "-o", tmp_path / "report"], tmp_path))
    for command, (bare, named) in runs.items():
        assert bare.returncode == named.returncode == 0, (command, bare.stderr[-1500:], named.stderr[-1500:])
    assert runs["ts-guess"][0].stdout == runs["ts-guess"][1].stdout
    assert runs["ts-guess"][0].stdout.startswith("truthfulqa multichoice: ")
    assert runs["overlap"][0].stderr.splitlines()[0] == runs["overlap"][1].stderr.splitlines()[0]
    assert runs["overlap"][0].stderr.startswith("truthfulqa: 817 items")
    assert runs["check"][0].stderr.splitlines()[-2:] == runs["check"][1].stderr.splitlines()[-2:]
    assert "-> truthfulqa: TS-Guessing (multichoice) on 5 of 817 items" in runs["check"][0].stderr


@pytest.mark.parametrize(("args", "line"), [
    (["ts-guess", "--benchmark", "truthfulqa", "--data", "mmlu={mmlu}", *DRY],
     "Error: --data mmlu={mmlu}: this run reads truthfulqa, not mmlu: --data truthfulqa=PATH"),
    (["check", "--cutoff", "2024-01", "--benchmarks", "mmlu,truthfulqa", "--data", "{mmlu}", *DRY],
     "Error: --data {mmlu}: this run reads mmlu, truthfulqa: name the benchmark, --data mmlu=PATH"),
    (["overlap", "--task", "mmlu_local_astronomy", "--data", "{mmlu}", "--corpus", "{mmlu}"],
     "Error: --data {mmlu}: --task reads its data the lm-eval way: --metadata '{\"data\": \"{mmlu}\"}'"),
    (["ts-guess", "--task", "mmlu_local_astronomy", "--data", "{mmlu}", *DRY],
     "Error: --data {mmlu}: --task reads its data the lm-eval way: --metadata '{\"data\": \"{mmlu}\"}'"),
], ids=["ts-guess-other-name", "check-bare-path-two-benchmarks", "overlap-task", "ts-guess-task"])
def test_a_wrong_spelling_is_one_line_naming_the_right_one(args: list[str], line: str, tmp_path: Path) -> None:
    require_shared_data("mmlu")
    argv = [a.replace("{mmlu}", str(MMLU)) for a in args] + ["-o", str(tmp_path / "o.jsonl")]
    proc = _benchchecker(argv, tmp_path)
    assert proc.returncode == 2, proc.stderr[-1500:]
    assert proc.stderr.strip().splitlines() == [line.replace("{mmlu}", str(MMLU))]


@pytest.mark.slow   # Inspect's import and the task's dataset (~4 s)
def test_inspect_reads_the_same_samples_either_way() -> None:
    require_shared_data("truthfulqa")
    from benchchecker_plugin.inspect_tasks import ts_guessing_task

    bare = ts_guessing_task("truthfulqa", "multichoice", data=str(TQA))
    named = ts_guessing_task("truthfulqa", "multichoice", data=f"truthfulqa={TQA}")
    assert len(bare.dataset) > 100
    assert [(s.id, s.target) for s in bare.dataset] == [(s.id, s.target) for s in named.dataset]
    with pytest.raises(InputError) as err:
        ts_guessing_task("truthfulqa", "multichoice", data=f"mmlu={MMLU}")
    assert str(err.value) == (f"-T data=mmlu={MMLU}: this run reads truthfulqa, not mmlu: "
                              "-T data=truthfulqa=PATH")


def test_lm_eval_metadata_reads_the_same_data_either_way() -> None:
    require_shared_data("truthfulqa")
    require_shared_data("mmlu")
    utils = _lm_eval_utils("ts_guessing")
    want = str(TQA)
    for data in (str(TQA), f"truthfulqa={TQA}", [f"mmlu={MMLU}", f"truthfulqa={TQA}"]):
        assert utils.data_path("truthfulqa", {"data": data}) == want, data
    assert utils.data_path("mmlu", {"data": [f"mmlu={MMLU}", f"truthfulqa={TQA}"]}) == str(MMLU)
    with pytest.raises(InputError) as err:
        utils.data_path("mmlu", {"data": "gsm8k=x"})
    assert str(err.value) == ("--metadata '{\"data\": \"gsm8k=x\"}': this run reads mmlu, truthfulqa, "
                              "not gsm8k: --metadata '{\"data\": \"mmlu=PATH\"}'")
    local = _lm_eval_utils("mmlu_local")
    bare = local.load(data=str(MMLU), subject="astronomy")
    named = local.load(data=f"mmlu={MMLU}", subject="astronomy")
    assert bare["test"].to_list() == named["test"].to_list() and len(bare["test"]) == 152
