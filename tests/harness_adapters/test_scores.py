"""Grouped scores: hand-computed cases, and equality with the scorer's ``rescore``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchchecker_plugin.flags import Verdict
from benchchecker_plugin.scoring import MIN_CLEAN, MIN_RESOLVED_CLEAN, rescore
from harness_adapters.common import Group, Mode, Selection
from harness_adapters.scores import format_table, grouped_scores, verdicts_of

GROUPS = {"i0": Group.CLEAN, "i1": Group.CLEAN, "i2": Group.CLEAN, "i3": Group.CONTAMINATED,
          "i4": Group.CONTAMINATED, "i5": Group.UNDECIDED, "i6": Group.UNFLAGGED}


def selection(mode: Mode = Mode.BOTH, groups=GROUPS) -> Selection:
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
    [s] = grouped_scores({"i0": 1.0, "i1": 0.0}, selection(Mode.CLEAN, groups), task="t",
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
