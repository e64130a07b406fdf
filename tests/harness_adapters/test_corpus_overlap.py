"""``--contamination-detect overlap --contamination-corpus PATH`` up to the harness boundary: the
options (click and argparse alike, errors pinned), and on real local lm-eval / Inspect tasks the
items of exactly the evaluated documents looked up in a planted corpus; the flags (versioned
flags format, method benchchecker.overlap, the run's model) group the run as TS-Guessing's do."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import read_flags, write_flags
from harness_adapters.common import FilterMode, FilterOptions
from harness_adapters.detection import DetectOptions
from tests.helpers.mc_tasks import ARC, write_lm_eval_tasks

PLANTED = ARC[3]   # "Plants make their own food through which process?" photosynthesis


def _corpus(tmp_path: Path) -> Path:
    gold = PLANTED["choices"]["text"]["ABCD".index(PLANTED["answerKey"])]
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"id": "quiz", "text": f"Quiz: {PLANTED['question']} {gold}."}) + "\n"
                    + json.dumps({"id": "x", "text": "Nothing of the quiz here."}) + "\n",
                    encoding="utf-8")
    return path


@pytest.mark.parametrize(("values", "line"), [
    (dict(corpus=["c.jsonl"]), "--contamination-detect overlap and --contamination-corpus PATH go "
                               "together (the corpus the run's items are looked for in)"),
    (dict(detect="ts-guess", corpus=["c.jsonl"]), "--contamination-detect overlap and "
     "--contamination-corpus PATH go together (the corpus the run's items are looked for in)"),
    (dict(detect="overlap"), "--contamination-detect overlap and --contamination-corpus PATH go "
                             "together (the corpus the run's items are looked for in)"),
    (dict(detect="overlap", corpus=["c"], no_cache=True),
     "--contamination-cache-dir / --contamination-no-cache: the model's answer cache, not used "
     "by --contamination-detect overlap"),
])
def test_option_errors_are_one_line(values: dict, line: str) -> None:
    with pytest.raises(InputError) as err:
        DetectOptions.from_values(values.pop("detect", None), **values)
    assert str(err.value) == line


def test_bare_detect_is_ts_guess_and_a_task_after_it_is_no_value() -> None:
    from harness_adapters.inspect._cli import bare_detect_option

    assert DetectOptions.from_values("ts-guess").method == "ts-guess"
    opts = DetectOptions.from_values("overlap", corpus=("a", "b"))
    assert opts.enabled and opts.method == "overlap" and opts.corpora == ("a", "b")
    assert bare_detect_option(["--contamination-detect", "t.py", "--contamination-detect",
                               "overlap", "--contamination-detect"]) == [
        "--contamination-detect=ts-guess", "t.py", "--contamination-detect", "overlap",
        "--contamination-detect=ts-guess"]


@pytest.mark.slow   # lm-eval import and task loading (~10 s)
def test_lm_eval_overlap_on_the_evaluated_docs(tmp_path: Path) -> None:
    from lm_eval.tasks import TaskManager

    from harness_adapters.lm_eval._overlap import overlap_in_run
    from harness_adapters.lm_eval._plan import plan_filtered_run

    folder = write_lm_eval_tasks(tmp_path / "tasks")
    manager = TaskManager(include_path=str(folder), include_defaults=False)
    tasks = manager.load(["arc_local"])["tasks"]
    docs = {n: list(t.eval_docs) for n, t in tasks.items()}
    indices = {"arc_local": [1, 2, 3, 4]}            # as --samples / --limit chose them
    cfg = SimpleNamespace(model="hf", model_args={"pretrained": "org/tiny"})
    detect = DetectOptions.from_values("overlap", corpus=[str(_corpus(tmp_path))])
    detection = overlap_in_run(cfg, tasks, docs, indices, FilterOptions(None), detect)
    assert detection.method == "overlap" and detection.tasks == {"arc_local": "arc_local"}
    assert [(f.instance_id, f.contaminated) for f in detection.flags] == [
        ("1", False), ("2", False), ("3", True), ("4", False)]
    assert {f.method for f in detection.flags} == {"benchchecker.overlap"}
    assert {f.model for f in detection.flags} == {"hf/org/tiny"}
    assert detection.to_dict()["corpus"]["rule"] == "parts"
    assert detection.summary() == ("detection: corpus overlap (parts) of 4 items in 2 documents "
                                   "(1 shard(s)), 1 flagged contaminated")
    # the flags file round-trips through the versioned format, and groups the run
    flags = read_flags(write_flags(tmp_path / "f.jsonl", detection.flags))
    assert [f.to_dict() for f in flags] == [f.to_dict() for f in detection.flags]
    options = FilterOptions(None, FilterMode.CONTAMINATED, detect=True)
    plan = plan_filtered_run(docs, indices, options, model_candidates=["hf/org/tiny"],
                             detection=detection)
    assert plan.samples == {"arc_local": (3,)}


@pytest.mark.slow   # lm-eval import and task loading (~10 s)
def test_lm_eval_overlap_with_a_failed_shard_goes_on_undecided(tmp_path: Path) -> None:
    from lm_eval.tasks import TaskManager

    from harness_adapters.lm_eval._overlap import overlap_in_run

    folder = write_lm_eval_tasks(tmp_path / "tasks")
    tasks = TaskManager(include_path=str(folder), include_defaults=False).load(["arc_local"])["tasks"]
    docs = {n: list(t.eval_docs) for n, t in tasks.items()}
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\xff\xfe not json\n")
    detect = DetectOptions.from_values("overlap", corpus=[str(_corpus(tmp_path)), str(bad)])
    with pytest.warns(UserWarning, match=f"corpus shard failed: {bad}: line 1: not JSON"):
        detection = overlap_in_run(SimpleNamespace(model="hf", model_args={}), tasks, docs,
                                   {"arc_local": [2, 3]}, FilterOptions(None), detect)
    assert [(f.instance_id, f.contaminated) for f in detection.flags] == [("2", None), ("3", True)]
    assert "1 failed" in detection.summary()


@pytest.mark.slow   # Inspect import (~5 s)
def test_inspect_overlap_on_the_evaluated_samples(tmp_path: Path) -> None:
    from harness_adapters.inspect._cli import _overlap
    from tests.helpers.mc_tasks import inspect_task

    task = inspect_task("my_arc", ARC)
    evaluated = [list(task.dataset)[2:5]]
    detect = DetectOptions.from_values("overlap", corpus=[str(_corpus(tmp_path))])
    detection, _ = _overlap([task], evaluated, FilterOptions(None), detect, {}, "hf/org/tiny")
    assert detection.tasks == {"my_arc": "my_arc"}
    assert [(f.benchmark, f.instance_id, f.contaminated) for f in detection.flags] == [
        ("my_arc", "2", False), ("my_arc", "3", True), ("my_arc", "4", False)]
