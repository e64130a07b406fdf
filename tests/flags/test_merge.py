"""Merging several methods' flags into one verdict per instance and model."""

from __future__ import annotations

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import ContaminationFlag, Verdict, merge_flags, verdicts_for


def f(instance: str, method: str, contaminated, score: float, model: str = "m1", p=None,
      created="2026-01-01T00:00:00Z", benchmark: str = "swe-bench-verified") -> ContaminationFlag:
    return ContaminationFlag(benchmark=benchmark, instance_id=instance, model=model, method=method,
                             contaminated=contaminated, score=score, p_value=p, created_at=created)


@pytest.mark.parametrize(
    ("votes", "any_", "all_", "majority"),
    [
        ((True, False), True, False, None),
        ((True, True, False), True, False, True),
        ((False, False), False, False, False),
        ((None, None), None, None, None),
        ((None, False), False, False, False),
        ((None, True), True, True, True),
    ],
)
def test_policies(votes, any_, all_, majority) -> None:
    flags = [f("i1", f"method.m{k}", v, float(k)) for k, v in enumerate(votes)]
    for policy, want in (("any", any_), ("all", all_), ("majority", majority)):
        (merged,) = merge_flags(flags, policy)
        assert merged.contaminated is want, policy
        assert merged.method == "merged"
        assert merged.score == len(votes) - 1  # max score
        assert set(merged.evidence["methods"]) == {f"method.m{k}" for k in range(len(votes))}


def test_star_records_join_every_model() -> None:
    flags = [f("i1", "benchchecker.stage2", True, 1.0, model="*"),
             f("i1", "benchchecker.stage1", False, 0.2, model="m1", p=0.4),
             f("i1", "benchchecker.stage1", False, 0.1, model="m2", p=0.3),
             f("i2", "benchchecker.stage2", False, 0.3, model="*")]
    merged = {(m.instance_id, m.model): m for m in merge_flags(flags)}
    assert set(merged) == {("i1", "m1"), ("i1", "m2"), ("i2", "*")}
    assert merged[("i1", "m1")].contaminated is True
    assert merged[("i1", "m1")].p_value == 0.4
    assert set(merged[("i1", "m2")].evidence["methods"]) == {"benchchecker.stage2@*",
                                                             "benchchecker.stage1"}
    assert merged[("i2", "*")].contaminated is False


def test_newest_duplicate_wins() -> None:
    flags = [f("i1", "a.b", True, 1.0, created="2026-01-01T00:00:00Z"),
             f("i1", "a.b", False, 0.0, created="2026-02-01T00:00:00Z")]
    (merged,) = merge_flags(flags)
    assert merged.contaminated is False


def test_merging_merged_flags_is_refused() -> None:
    (merged,) = merge_flags([f("i1", "a.b", True, 1.0)])
    with pytest.raises(InputError, match="cannot merge already-merged flags \\(instance i1\\)"):
        merge_flags([merged])


def test_verdicts_for_filters_benchmark_and_model() -> None:
    flags = [f("i1", "s.a", True, 1.0, model="m1"), f("i2", "s.a", False, 0.0, model="*"),
             f("i3", "s.a", None, 0.5, model="m1"), f("i4", "s.a", True, 1.0, model="m2"),
             f("q1", "s.a", True, 1.0, benchmark="mmlu")]
    got = verdicts_for(flags, benchmark="swe-bench-verified", model="m1")
    assert got == {"i1": Verdict.CONTAMINATED, "i2": Verdict.CLEAN, "i3": Verdict.UNDECIDED}
