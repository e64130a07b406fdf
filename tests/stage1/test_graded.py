"""The graded Stage I score: edit similarity to the file's continuation, minus the similarity to
non-member code, per repository against a null calibrated on excluded repositories."""

from __future__ import annotations

import difflib
import math

import pytest
from scipy import stats

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.stage1 import (
    GRADED_METHOD,
    GradedNull,
    GradedQuery,
    ProbeResult,
    Query,
    continuations,
    edit_similarity,
    effective_queries,
    graded_flags,
    graded_queries,
    graded_result,
    graded_score,
)

TEXT = "def area(r):\n    return PI * r ** 2\n\n\ndef volume(r, h):\n    return area(r) * h\n"


def _query(target: str, gap: str = " ") -> Query:
    offset = TEXT.index(target)
    return Query("m.py", offset, TEXT[:offset - len(gap)], target, "p", gap=gap)


def test_edit_similarity_hand_computed() -> None:
    assert edit_similarity("abcd", "abxd...") == 0.75                 # 2 * 3 matched / 8 characters
    assert edit_similarity("\n    return x", "  return x\nmore") == 1.0   # leading whitespace ignored
    assert edit_similarity("", "anything") == 0.0 and edit_similarity("  \n", "x") == 0.0
    assert edit_similarity("abc", "") == 0.0
    s, r = "return PI * r", "return pi * radius"
    assert edit_similarity(s, r) == difflib.SequenceMatcher(None, s, r[:len(s)]).ratio()


def test_continuation_is_the_gap_and_the_text_from_the_target_on() -> None:
    q = _query("PI * r")
    assert continuations({"m.py": TEXT}, [q], chars=9) == [" PI * r **"]
    with pytest.raises(InputError, match="queries name files that were not given: m.py"):
        continuations({}, [q])


def test_graded_queries_hand_computed() -> None:
    q = _query("PI * r")
    ref = continuations({"m.py": TEXT}, [q])[0]
    nulls = ["x = 1\n", "import os\n"]
    res = [ProbeResult(q, ("PI * r ** 2", "PI * x"), 1, 0), ProbeResult(q, (), 0, 2)]
    got = graded_queries(res, [ref, ref], nulls, n_null=5)
    assert len(got) == 1                                   # the failed query is left out
    own = (edit_similarity("PI * r ** 2", ref) + edit_similarity("PI * x", ref)) / 2
    base = sum(edit_similarity(s, n) for s in ("PI * r ** 2", "PI * x") for n in nulls) / 4
    assert got[0].similarity == pytest.approx(own) and got[0].null_similarity == pytest.approx(base)
    assert got[0].score == pytest.approx(own - base) and got[0].weight == 1.0
    with pytest.raises(InputError, match="needs non-member references"):
        graded_queries(res, [ref, ref], [])
    with pytest.raises(InputError, match="2 probe results but 1 references"):
        graded_queries(res, [ref], nulls)


def test_graded_score_is_the_weighted_mean() -> None:
    qs = [GradedQuery(0.9, 0.2, 2.0), GradedQuery(0.3, 0.2, 1.0)]
    assert graded_score(qs) == pytest.approx((2 * 0.7 + 0.1) / 3)
    with pytest.warns(RuntimeWarning, match="without usable queries: nan"):
        assert math.isnan(graded_score([]))


def _qs(*scores: float) -> list[GradedQuery]:
    return [GradedQuery(0.2 + x, 0.2) for x in scores]


def test_null_p_value_is_a_t_prediction_for_one_more_excluded_repository() -> None:
    null = GradedNull.of([_qs(0.0, 0.02), _qs(0.01, 0.03, 0.02), _qs(-0.02, 0.0), _qs(0.04, 0.0)])
    means = [0.01, 0.02, -0.01, 0.02]
    assert null.scores == pytest.approx(tuple(means)) and null.queries == (2, 3, 2, 2)
    within = (2 * 0.01 ** 2 + 2 * 0.01 ** 2 + 2 * 0.01 ** 2 + 2 * 0.02 ** 2) / (1 + 2 + 1 + 1)
    assert null.query_var == pytest.approx(within)
    var = stats.tvar(means)
    noise = (within / 2 + within / 3 + within / 2 + within / 2) / 4
    scale = math.sqrt(max(0.0, var - noise) + var / 4 + within / 10)
    assert null.p_value(0.1, 10) == pytest.approx(stats.t.sf((0.1 - 0.01) / scale, df=3))
    assert null.p_value(0.1, 2) > null.p_value(0.1, 10)        # fewer queries, weaker evidence
    assert null.p_value(0.01, 5) == pytest.approx(0.5)
    assert math.isnan(GradedNull.of([_qs(0.1, 0.2), _qs(0.0, 0.1)]).p_value(0.5, 4))   # k < 3
    assert math.isnan(null.p_value(math.nan, 4)) and math.isnan(null.p_value(0.1, 0))
    flat = GradedNull((0.5, 0.5, 0.5), (1, 1, 1), 0.0)
    assert flat.p_value(0.6, 3) == 0.0 and flat.p_value(0.5, 3) == 1.0


def test_effective_queries() -> None:
    assert effective_queries(_qs(0.1, 0.2, 0.3)) == 3
    assert effective_queries([GradedQuery(0.5, 0.2, 3.0), GradedQuery(0.5, 0.2, 1.0)]) == pytest.approx(16 / 10)
    assert effective_queries([]) == 0.0


def test_result_decision_and_flag() -> None:
    qs = [GradedQuery(0.9, 0.2), GradedQuery(0.5, 0.2)]
    r = graded_result("pkg", qs, GradedNull.of([_qs(0.0, 0.01), _qs(0.02, 0.0), _qs(-0.01, 0.01),
                                                _qs(0.01, 0.02)]), alpha=0.05)
    assert r.contaminated is True and r.queries == 2 and r.score == pytest.approx(0.5)
    assert r.similarity == pytest.approx(0.7) and r.null_similarity == pytest.approx(0.2)
    assert graded_result("pkg", qs, None).contaminated is None
    with pytest.raises(InputError, match=r"alpha must be in \(0, 1\), got 1.0"):
        graded_result("pkg", qs, None, alpha=1.0)
    (flag,) = graded_flags(r, model="m")
    assert (flag.benchmark, flag.instance_id, flag.method) == ("repo", "pkg", GRADED_METHOD)
    assert flag.contaminated is True and flag.score == pytest.approx(0.5)
    assert flag.p_value == pytest.approx(r.p_value) and flag.evidence["queries"] == 2
