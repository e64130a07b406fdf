"""Grouped scores: hand-computed cases, and equality with the scorer's ``rescore``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchchecker_plugin.flags import Verdict
from benchchecker_plugin.scoring import MIN_CLEAN, MIN_RESOLVED_CLEAN, rescore
from harness_adapters.common import FilterMode, Group, Selection
from harness_adapters.scores import format_table, grouped_scores, pooled_scores, verdicts_of

GROUPS = {"i0": Group.CLEAN, "i1": Group.CLEAN, "i2": Group.CLEAN, "i3": Group.CONTAMINATED,
          "i4": Group.CONTAMINATED, "i5": Group.UNDECIDED, "i6": Group.UNFLAGGED}


def selection(mode: FilterMode = FilterMode.BOTH, groups=GROUPS) -> Selection:
    return Selection("mmlu", "*", mode, dict(groups))


def test_binary_metric_hand_computed() -> None:
    values = {"i0": 1.0, "i1": 0.0, "i2": 0.0, "i3": 1.0, "i4": 1.0, "i5": 1.0, "i6": 0.0}
    [s] = grouped_scores(values, selection(), task="t", metric="acc", n_boot=0, min_clean=0,
                         min_resolved_clean=0)
    assert (s.n_instances, s.n_clean, s.n_contaminated, s.n_undecided, s.n_unflagged) == (7, 3, 2, 1, 1)
    assert s.full == pytest.approx(4 / 7)
    assert s.clean == pytest.approx(1 / 3)
    assert s.contaminated == pytest.approx(1.0)
    assert s.relative_drop == pytest.approx((4 / 7 - 1 / 3) / (4 / 7))


def test_binary_metric_equals_scorer_rescore_with_tiers() -> None:
    rng = np.random.default_rng(3)
    ids = [f"i{k}" for k in range(40)]
    groups = {i: [Group.CLEAN, Group.CONTAMINATED, Group.UNDECIDED, Group.UNFLAGGED][k % 4]
              for k, i in enumerate(ids)}
    values = {i: float(rng.integers(0, 2)) for i in ids}
    tiers = {i: ["easy", "medium", "hard"][k % 3] for k, i in enumerate(ids)}
    got = grouped_scores(values, selection(groups=groups), task="t", metric="acc", tiers=tiers)
    verdicts = {i: Verdict.CLEAN if g is Group.CLEAN else Verdict.CONTAMINATED
                for i, g in groups.items() if g in (Group.CLEAN, Group.CONTAMINATED)}
    verdicts.update({i: Verdict.UNDECIDED for i, g in groups.items() if g is Group.UNDECIDED})
    want = rescore([i for i in ids if values[i] == 1.0], ids, verdicts, tiers, submission="t",
                   min_clean=MIN_CLEAN, min_resolved_clean=MIN_RESOLVED_CLEAN)
    assert [s.tier for s in got] == list(want["tier"])
    for s, (_, row) in zip(got, want.iterrows()):
        assert (s.n_instances, s.n_clean, s.n_contaminated, s.n_undecided + s.n_unflagged) == (
            row.n_instances, row.n_clean, row.n_contaminated, row.n_undecided)
        assert s.n_unflagged == sum(1 for i in ids if groups[i] is Group.UNFLAGGED
                                    and s.tier in ("all", tiers[i]))
        np.testing.assert_array_equal(
            [s.full, s.clean, s.contaminated, s.relative_drop, s.drop_ci_low, s.drop_ci_high],
            [row.original_rate, row.clean_rate, row.contaminated_rate, row.relative_drop,
             row.drop_ci_low, row.drop_ci_high])


def test_graded_metric_is_a_mean_per_group() -> None:
    values = {"i0": 0.5, "i1": 0.25, "i2": 0.0, "i3": 1.0, "i4": 0.5, "i5": 0.75, "i6": 0.0}
    [s] = grouped_scores(values, selection(), task="t", metric="rougeL")
    assert s.full == pytest.approx(3.0 / 7)
    assert s.clean == pytest.approx(0.25)
    assert s.contaminated == pytest.approx(0.75)
    assert s.relative_drop == pytest.approx((3 / 7 - 0.25) / (3 / 7))
    assert math.isnan(s.drop_ci_low)


def test_single_group_mode_reports_only_that_group() -> None:
    groups = {"i0": Group.CLEAN, "i1": Group.CLEAN}
    [s] = grouped_scores({"i0": 1.0, "i1": 0.0}, selection(FilterMode.CLEAN, groups), task="t",
                         metric="acc", n_boot=0)
    assert s.clean == 0.5 and math.isnan(s.full) and math.isnan(s.relative_drop)
    assert s.to_dict()["full"] is None


def test_verdicts_leave_unflagged_out() -> None:
    assert verdicts_of(selection()) == {"i0": Verdict.CLEAN, "i1": Verdict.CLEAN,
                                        "i2": Verdict.CLEAN, "i3": Verdict.CONTAMINATED,
                                        "i4": Verdict.CONTAMINATED, "i5": Verdict.UNDECIDED}


def test_table_shows_every_row() -> None:
    scores = grouped_scores({i: 1.0 for i in GROUPS}, selection(), task="t", metric="acc",
                            n_boot=0, min_clean=0, min_resolved_clean=0)
    text = format_table(scores, title="T")
    assert text.splitlines()[0] == "T"
    assert "|t||acc|all|7|3|2|1|1|1.0000|1.0000|1.0000|0.0000|-|" in text


def test_undecided_and_unflagged_are_their_own_columns_and_too_few_is_said() -> None:
    """Issue 39 item 6: `undec.` counted unflagged items (93 where the log said 0 undecided), and
    a drop that cannot be estimated showed "-" with no "too few" (table and JSON)."""
    groups = {**GROUPS, "i5": Group.UNFLAGGED}
    values = {"i0": 1.0, "i1": 0.0, "i2": 0.0, "i3": 1.0, "i4": 1.0, "i5": 1.0, "i6": 0.0}
    [s] = grouped_scores(values, selection(groups=groups), task="t", metric="acc", n_boot=0)
    assert (s.n_undecided, s.n_unflagged) == (0, 2)
    assert math.isnan(s.relative_drop) and s.note == "too few (n=3 clean)"
    assert s.to_dict()["note"] == "too few (n=3 clean)" and s.to_dict()["relative_drop"] is None
    table = format_table([s], title="grouped")
    assert table.splitlines()[1] == ("|task|filter|metric|tier|n|clean|contam.|undec.|unflagged|full|clean|"
                                     "contam.|rel. drop|drop 95% CI|")
    assert table.splitlines()[3].startswith("|t||acc|all|7|3|2|0|2|0.5714|0.3333|1.0000|too few (n=3 clean)|")


def test_pooled_row_is_the_mantel_haenszel_drop_over_the_tasks_as_strata() -> None:
    """A benchmark's subtasks get one pooled row: stratified by task, hand-computed."""
    groups = {"a0": Group.CLEAN, "a1": Group.CONTAMINATED, "a2": Group.CLEAN, "a3": Group.CONTAMINATED,
              "b0": Group.CLEAN, "b1": Group.CLEAN, "b2": Group.CONTAMINATED}
    per_task = {"t_a": {("none", "acc"): {"a0": 1.0, "a1": 1.0, "a2": 0.0, "a3": 0.0}},
                "t_b": {("none", "acc"): {"b0": 1.0, "b1": 0.0, "b2": 1.0}}}
    [row] = pooled_scores(per_task, selection(groups=groups), n_boot=0, min_clean=0,
                          min_resolved_clean=0)
    assert (row.task, row.tier, row.n_tasks, row.n_instances, row.n_clean) == (
        "pooled (2 tasks)", "all", 2, 7, 4)
    # per task: clean resolved RC of C clean against resolved R of N: MH risk ratio of the two
    num = 1 * 4 / (2 + 4) + 1 * 3 / (2 + 3)
    den = 2 * 2 / (2 + 4) + 2 * 2 / (2 + 3)
    assert row.relative_drop == pytest.approx(1 - num / den)
    assert row.full == pytest.approx(4 / 7) and row.clean == pytest.approx(2 / 4)


def test_pooled_row_equals_the_scorer_over_the_union_stratified_by_task() -> None:
    rng = np.random.default_rng(5)
    tasks = {f"t{k}": [f"t{k}/{j}" for j in range(30)] for k in range(3)}
    groups = {i: [Group.CLEAN, Group.CONTAMINATED, Group.UNDECIDED][j % 3]
              for ids in tasks.values() for j, i in enumerate(ids)}
    per_task = {t: {("none", "acc"): {i: float(rng.integers(0, 2)) for i in ids}}
                for t, ids in tasks.items()}
    [row] = pooled_scores(per_task, selection(groups=groups), n_boot=200, seed=1)
    union = {i: v for t in per_task.values() for i, v in t[("none", "acc")].items()}
    strata = {i: t for t, ids in tasks.items() for i in ids}
    verdicts = verdicts_of(selection(groups=groups))
    want = rescore([i for i, v in union.items() if v == 1.0], list(union), verdicts, strata,
                   submission="x", n_boot=200, seed=1, min_clean=MIN_CLEAN,
                   min_resolved_clean=MIN_RESOLVED_CLEAN)
    w = want[want["tier"] == "all"].iloc[0]
    np.testing.assert_array_equal([row.relative_drop, row.drop_ci_low, row.drop_ci_high],
                                  [w.relative_drop, w.drop_ci_low, w.drop_ci_high])


def test_tasks_asking_the_same_items_are_not_pooled_and_the_row_says_why() -> None:
    per_task = {"truthfulqa_mc1": {("none", "acc"): {"0": 1.0, "1": 0.0}},
                "truthfulqa_mc2": {("none", "acc"): {"0": 0.5, "1": 0.25}},
                "only_one": {("none", "f1"): {"9": 1.0}}}
    [row] = pooled_scores(per_task, selection(groups={"0": Group.CLEAN, "1": Group.CLEAN,
                                                      "9": Group.CLEAN}))
    assert row.note == "not pooled: 2 instance ids in more than one task"
    assert row.metric == "acc" and math.isnan(row.relative_drop) and row.n_tasks == 2
