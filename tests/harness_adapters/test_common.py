"""The shared filter logic: benchmark and model resolution, grouping, errors and warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.errors import FlagsFormatError, InputError
from benchchecker_plugin.flags import ContaminationFlag
from harness_adapters.common import (
    ContaminationFilterWarning,
    FilterMode,
    FilterOptions,
    Group,
    load_flags,
    resolve_benchmark,
    resolve_model,
    run_filter,
    select,
)

pytestmark = pytest.mark.filterwarnings("ignore::harness_adapters.common.ContaminationFilterWarning")


def flag(iid: str, contaminated: bool | None, *, benchmark: str = "mmlu", model: str = "*",
         method: str = "m.one") -> ContaminationFlag:
    return ContaminationFlag(benchmark=benchmark, instance_id=iid, model=model, method=method,
                             contaminated=contaminated, score=0.5)


FLAGS = [flag("a/0", True), flag("a/1", False), flag("a/2", None), flag("a/3", False),
         flag("a/1", True, model="org/m", method="m.two")]


def test_select_groups_each_instance_as_hand_computed() -> None:
    sel = select(FLAGS, benchmark="mmlu", model="*", instance_ids=["a/0", "a/1", "a/2", "a/3",
                                                                   "a/4"],
                 mode=FilterMode.BOTH, source="f.jsonl")
    assert dict(sel.groups) == {"a/0": Group.CONTAMINATED, "a/1": Group.CLEAN,
                                "a/2": Group.UNDECIDED, "a/3": Group.CLEAN, "a/4": Group.UNFLAGGED}
    assert sel.counts() == {"clean": 2, "contaminated": 1, "undecided": 1, "unflagged": 1}
    assert sel.selected == ("a/0", "a/1", "a/2", "a/3", "a/4")
    assert "5 instances: 2 clean, 1 contaminated, 1 undecided, 1 unflagged" in sel.summary()


def test_model_specific_flags_join_the_star_flags() -> None:
    """verdicts_for merges "*" and the run's model: a/1 is contaminated for org/m (policy any)."""
    sel = select(FLAGS, benchmark="mmlu", model="org/m", instance_ids=["a/0", "a/1", "a/3"],
                 mode=FilterMode.CLEAN, source="f")
    assert sel.selected == ("a/3",)
    assert sel.groups["a/1"] is Group.CONTAMINATED


def test_contaminated_mode_selects_only_contaminated() -> None:
    sel = select(FLAGS, benchmark="mmlu", model="*", instance_ids=["a/0", "a/1", "a/2"],
                 mode=FilterMode.CONTAMINATED, source="f")
    assert sel.selected == ("a/0",)


def test_empty_subset_is_one_line_error() -> None:
    with pytest.raises(InputError, match=r"^empty subset: f leaves no clean instance to evaluate "
                                         r"\(mmlu / model '\*': 1 instances: 0 clean"):
        select(FLAGS, benchmark="mmlu", model="*", instance_ids=["a/0"], mode=FilterMode.CLEAN,
               source="f")


def test_both_mode_with_empty_group_warns() -> None:
    with pytest.warns(ContaminationFilterWarning, match="the clean subset is empty"):
        sel = select(FLAGS, benchmark="mmlu", model="*", instance_ids=["a/0"], mode=FilterMode.BOTH,
                     source="f")
    assert sel.selected == ("a/0",)


def test_unknown_instance_ids_are_an_error() -> None:
    with pytest.raises(InputError, match=r"none of the 4 instance ids flagged for mmlu / '\*' is "
                                         r"in this run \(unknown instance ids such as 'a/0'; the "
                                         r"run has e.g. 'b/0'\)"):
        select(FLAGS, benchmark="mmlu", model="*", instance_ids=["b/0", "b/1"], mode=FilterMode.BOTH,
               source="f")


def test_flags_outside_the_dataset_warn_but_run() -> None:
    with pytest.warns(ContaminationFilterWarning, match=r"2 flagged instance id\(s\) are not in "
                                                        r"this run's dataset \(e.g. 'a/2'\)"):
        select(FLAGS, benchmark="mmlu", model="*", instance_ids=["a/0", "a/1"], mode=FilterMode.BOTH,
               source="f")


def test_known_ids_widen_the_dataset_for_a_restricted_run(recwarn: pytest.WarningsRecorder) -> None:
    """A run restricted by --limit / --sample-id does not warn about flags for the rest."""
    select(FLAGS, benchmark="mmlu", model="*", instance_ids=["a/0", "a/1"], mode=FilterMode.BOTH,
           source="f", known_ids=["a/0", "a/1", "a/2", "a/3"])
    assert not [w for w in recwarn if issubclass(w.category, ContaminationFilterWarning)]


def test_duplicate_and_empty_runs_are_errors() -> None:
    with pytest.raises(InputError, match="lists instance id 'a/0' more than once"):
        select(FLAGS, benchmark="mmlu", model="*", instance_ids=["a/0", "a/0"], mode=FilterMode.BOTH,
               source="f")
    with pytest.raises(InputError, match="no instances to filter"):
        select(FLAGS, benchmark="mmlu", model="*", instance_ids=[], mode=FilterMode.BOTH, source="f")


def test_resolve_benchmark_from_hints_and_flags() -> None:
    flags = FLAGS + [flag("q", True, benchmark="truthfulqa")]
    assert resolve_benchmark(flags, ["ts_guessing_mmlu_multichoice"], source="f") == "mmlu"
    assert resolve_benchmark(flags, ["truthfulqa_mc1"], source="f") == "truthfulqa"
    assert resolve_benchmark(FLAGS, ["my_task"], source="f") == "mmlu"
    with pytest.raises(InputError, match="cannot tell which benchmark"):
        resolve_benchmark(flags, ["my_task"], source="f")
    with pytest.raises(InputError, match="mixes benchmarks mmlu, truthfulqa"):
        resolve_benchmark(flags, ["mmlu_x", "truthfulqa_y"], source="f")


def test_flags_for_another_benchmark_are_an_error() -> None:
    with pytest.raises(InputError, match=r"^f.jsonl: has no flags for benchmark 'swe-bench-"
                                         r"verified' \(it holds flags for: mmlu\)$"):
        resolve_benchmark(FLAGS, ["princeton-nlp/SWE-bench_Verified"], source="f.jsonl")


def test_resolve_model_prefers_named_models_then_star() -> None:
    assert resolve_model(FLAGS, "mmlu", ["hf/org/m", "org/m"], source="f") == "org/m"
    assert resolve_model(FLAGS, "mmlu", ["other"], source="f") == "*"
    only_named = [flag("a/0", True, model="org/m")]
    with pytest.raises(InputError, match=r"no flags for model 'x' on benchmark 'mmlu' \(flags "
                                         r"name: org/m\); pass --contamination-model"):
        resolve_model(only_named, "mmlu", ["x"], source="f")


def test_options_need_a_filter() -> None:
    assert not FilterOptions.from_values(None, None, None).enabled
    with pytest.raises(InputError, match="need --contamination-filter"):
        FilterOptions.from_values(None, "clean", None)


def test_malformed_and_empty_flags_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"benchmark": "mmlu"}\n')
    with pytest.raises(FlagsFormatError, match=r"bad.jsonl:1: field 'contaminated': 'contaminated' is a "
                                               r"required property"):
        load_flags(bad)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(InputError, match="holds no flags records"):
        load_flags(empty)


def test_run_filter_end_to_end(tmp_path: Path, make_flags) -> None:
    path = make_flags(tmp_path / "f.jsonl", "mmlu", {"a/0": True, "a/1": False})
    sel = run_filter(FilterOptions(path, FilterMode.CLEAN, None), hints=["mmlu_a"],
                     model_candidates=["hf/x"], instance_ids=lambda b: ["a/0", "a/1", "a/9"])
    assert (sel.benchmark, sel.model, sel.selected) == ("mmlu", "*", ("a/1",))
