"""``plan_filtered_run``: what a filtered ``benchchecker lm-eval run`` evaluates, decided without
running (or importing) lm-eval — the lm-eval counterpart of the SWE-bench wrapper's ``plan_run``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import ContaminationFlag
from harness_adapters.common import FilterMode, FilterOptions, Group
from harness_adapters.detection import Detection
from harness_adapters.lm_eval._plan import (
    FilteredRunPlan,
    evaluated_indices,
    instance_id_of,
    model_candidates,
    plan_filtered_run,
)

TASK = "mmlu_abstract_algebra"
SUBJECT = "abstract_algebra"
# doc i -> verdict of instance abstract_algebra/i (None: undecided; 5 has no flag)
VERDICTS = {0: True, 1: False, 2: True, 3: False, 4: None, 6: False, 7: True}


def _docs(n: int = 8) -> dict[str, list[dict[str, str]]]:
    return {TASK: [{"question": f"q{i}", "subject": SUBJECT} for i in range(n)]}


@pytest.fixture
def flags(make_flags, tmp_path: Path) -> Path:
    return make_flags(tmp_path / "flags.jsonl", "mmlu",
                      {f"{SUBJECT}/{i}": v for i, v in VERDICTS.items()})


def _plan(flags: Path | None, mode: FilterMode, indices: dict[str, list[int]] | None = None,
          **kw) -> FilteredRunPlan:
    docs = kw.pop("docs", _docs())
    options = kw.pop("options", FilterOptions(flags, mode))
    return plan_filtered_run(docs, indices or evaluated_indices(docs), options,
                             model_candidates=kw.pop("candidates", ["hf/tiny"]), **kw)


def test_mode_both_runs_every_doc_and_groups_them(flags: Path) -> None:
    plan = _plan(flags, FilterMode.BOTH)
    assert plan.samples is None                       # lm-eval's own --samples / --limit stay
    assert plan.task_benchmark == {TASK: "mmlu"}
    [selection] = plan.selections.values()
    assert selection.model == "*"
    assert selection.groups[f"{SUBJECT}/0"] is Group.CONTAMINATED
    assert selection.groups[f"{SUBJECT}/4"] is Group.UNDECIDED
    assert selection.groups[f"{SUBJECT}/5"] is Group.UNFLAGGED
    assert selection.counts() == {"clean": 3, "contaminated": 3, "undecided": 1, "unflagged": 1}


@pytest.mark.parametrize("mode, expected", [(FilterMode.CLEAN, (1, 3)), (FilterMode.CONTAMINATED, (0, 2))])
def test_subset_modes_narrow_the_docs_lm_eval_would_run(flags: Path, mode: FilterMode,
                                                        expected: tuple[int, ...]) -> None:
    """The subset is intersected with what --limit 5 would evaluate (docs 6 and 7 are out)."""
    docs = _docs()
    plan = _plan(flags, mode, evaluated_indices(docs, limit=5), docs=docs)
    assert plan.samples == {TASK: expected}
    assert all(instance_id_of(i, docs[TASK][i], task=TASK, benchmark="mmlu")
               in plan.selections["mmlu"].selected for i in expected)


def test_a_task_without_subset_docs_is_an_error_after_the_summary(make_flags,
                                                                  tmp_path: Path) -> None:
    """Two MMLU tasks: the subset is not empty, but one task has no clean doc to run."""
    flags = make_flags(tmp_path / "f.jsonl", "mmlu",
                       {**{f"{SUBJECT}/{i}": v for i, v in VERDICTS.items()},
                        "anatomy/0": True, "anatomy/1": True})
    docs = {**_docs(), "mmlu_anatomy": [{"subject": "anatomy"}, {"subject": "anatomy"}]}
    seen: list[str] = []
    with pytest.raises(InputError) as err:
        _plan(flags, FilterMode.CLEAN, docs=docs, on_selection=lambda s: seen.append(s.summary()))
    assert str(err.value) == ("empty subset: task 'mmlu_anatomy' has no clean docs; drop it "
                              "from --tasks")
    assert seen == ["mmlu / model '*': 10 instances: 3 clean, 5 contaminated, 1 undecided, "
                    "1 unflagged; mode clean: evaluating 3"]


def test_a_task_without_detector_cannot_be_narrowed() -> None:
    flags = (ContaminationFlag(benchmark="mmlu", instance_id=f"{SUBJECT}/1", model="*",
                               method="test", contaminated=False, score=0.0),)
    docs = {**_docs(3), "other_task": [{"text": "x"}]}
    detection = Detection(flags, {TASK: "mmlu", "other_task": None})
    options = FilterOptions(None, FilterMode.CLEAN, None, detect=True)
    with pytest.raises(InputError, match="task 'other_task' has no detector and no flags"):
        _plan(None, FilterMode.CLEAN, docs=docs, options=options, detection=detection)
    with pytest.warns(UserWarning, match="the contaminated subset is empty"):
        both = _plan(None, FilterMode.BOTH, docs=docs,
                     options=FilterOptions(None, FilterMode.BOTH, None, True), detection=detection)
    assert both.task_benchmark == {TASK: "mmlu", "other_task": None}
    assert both.samples is None and list(both.selections) == ["mmlu"]


def test_flags_named_for_a_candidate_model_are_used(make_flags, tmp_path: Path) -> None:
    flags = make_flags(tmp_path / "f.jsonl", "mmlu", {f"{SUBJECT}/0": True, f"{SUBJECT}/1": False},
                       model="tiny")
    plan = _plan(flags, FilterMode.CONTAMINATED, candidates=["hf/tiny", "tiny"])
    assert plan.selections["mmlu"].model == "tiny" and plan.samples == {TASK: (0,)}
    with pytest.raises(InputError, match="no flags for model 'hf/other'"):
        _plan(flags, FilterMode.BOTH, candidates=["hf/other"])
    # --contamination-model wins over the candidates
    options = FilterOptions(flags, FilterMode.BOTH, "tiny")
    assert _plan(flags, FilterMode.BOTH, options=options, candidates=["x"]).selections["mmlu"].model == "tiny"


def test_evaluated_indices_follow_samples_then_limit() -> None:
    docs = {"a": list(range(10)), "b": list(range(4))}
    assert evaluated_indices(docs) == {"a": list(range(10)), "b": [0, 1, 2, 3]}
    assert evaluated_indices(docs, limit=3) == {"a": [0, 1, 2], "b": [0, 1, 2]}
    assert evaluated_indices(docs, limit=0.5) == {"a": [0, 1, 2, 3, 4], "b": [0, 1]}
    assert evaluated_indices(docs, limit=2, samples={"a": [9, 3, 3, 40]}) == {"a": [3, 9], "b": [0, 1]}


def test_model_candidates_of_model_args() -> None:
    assert model_candidates("vllm", {"pretrained": "org/m"}) == ["vllm/org/m", "org/m", "m"]
    assert model_candidates("dummy", "") == ["dummy"]


def test_planning_imports_no_lm_eval() -> None:
    import subprocess

    code = ("import sys, harness_adapters.lm_eval._plan, harness_adapters.lm_eval._cli\n"
            "assert 'lm_eval' not in sys.modules, 'lm_eval imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
