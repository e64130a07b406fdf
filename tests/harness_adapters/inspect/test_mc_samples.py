"""Inspect tasks whose samples carry ``choices`` are read as TS-Guessing items (issue 30)."""

from __future__ import annotations

import pytest

from harness_adapters.inspect._mc_samples import read_mc_samples, task_benchmark
from tests.helpers.mc_tasks import ARC, MMLU_PRO, inspect_task


def _task(samples, name="mine"):  # type: ignore[no-untyped-def]
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset

    return Task(dataset=MemoryDataset(samples, name=name), name=name)


def test_choices_samples_become_items_in_the_lm_eval_shape() -> None:
    from harness_adapters.inspect._detect import Reference, probes_for_run

    task = inspect_task("arc_local", ARC)
    benchmark, items, why = read_mc_samples(task, list(task.dataset))
    assert (benchmark, why) == ("arc_local", None)
    assert [(i.instance_id, i.question, i.options, i.answer) for i in items] == [
        (str(n), r["question"], tuple(r["choices"]["text"]), "ABCD".index(r["answerKey"]))
        for n, r in enumerate(ARC)]
    benchmarks, indexes, probes, dropped, no = probes_for_run([task], [list(task.dataset)[:3]],
                                                              Reference({}))
    assert benchmarks == {"arc_local": "arc_local"} and indexes == {} and no == {}
    assert [p.instance_id for p in probes] == ["0", "1", "2"]


def test_ten_choices_text_target_and_declared_benchmark() -> None:
    from inspect_ai.dataset import Sample

    samples = [Sample(input=r["question"], choices=r["options"], target=r["options"][r["answer_index"]],
                      id=f"q{r['question_id']}") for r in MMLU_PRO]
    task = _task(samples, "pkg/mmlu_pro_mine")
    assert task_benchmark(task) == "mmlu_pro_mine"
    benchmark, items, _ = read_mc_samples(task, samples)
    assert [len(i.options) for i in items] == [10, 10]
    assert [i.answer for i in items] == [r["answer_index"] for r in MMLU_PRO]
    assert [i.instance_id for i in items] == ["q70", "q71"]
    task.metadata = {"benchmark": "mmlu_pro"}
    assert read_mc_samples(task, samples)[1][0].benchmark == "mmlu_pro"


@pytest.mark.parametrize(("change", "line"), [
    ({"choices": ["only one"]}, "sample 2: 1 choice(s); a multiple-choice probe needs at least 2"),
    ({"choices": None}, "sample 2: the choices are a NoneType, not a list"),
    ({"target": "F"}, "sample 2: target index 5 outside its 4 choices"),
    ({"target": ["A", "B"]}, "sample 2: target ['A', 'B'] names several correct choices; "
                             "TS-Guessing needs one"),
])
def test_bad_samples_are_one_line(change: dict, line: str) -> None:
    from inspect_ai.dataset import Sample

    from harness_adapters.inspect._detect import Reference, probes_for_run

    samples = [Sample(input=r["question"], choices=r["choices"]["text"], target=r["answerKey"],
                      id=n) for n, r in enumerate(ARC)]
    samples[2] = Sample(**{"input": samples[2].input, "choices": samples[2].choices,
                           "target": samples[2].target, "id": 2, **change})
    task = _task(samples)
    benchmarks, _, probes, _, why = probes_for_run([task], [samples], Reference({}))
    assert benchmarks == {"mine": None} and probes == [] and why == {"mine": line}


def test_no_choices_is_not_multiple_choice() -> None:
    from inspect_ai.dataset import Sample

    task = _task([Sample(input="2+2=", target="4", id="a")])
    assert read_mc_samples(task, list(task.dataset)) == (
        None, (), "its samples carry no choices (not a multiple_choice task)")
