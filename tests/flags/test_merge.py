"""Merging several methods' flags into one verdict per instance and model."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import (
    ASSUME_REPO_SEEN_REASON,
    ContaminationFlag,
    Verdict,
    merge_flags,
    verdicts_for,
)


def f(instance: str, method: str, contaminated, score: float, model: str = "m1", p=None,
      created="2026-01-01T00:00:00Z", benchmark: str = "swe-bench-verified") -> ContaminationFlag:
    return ContaminationFlag(benchmark=benchmark, instance_id=instance, model=model, method=method,
                             contaminated=contaminated, score=score, p_value=p, created_at=created)


# ----------------------------------------------------------------------------- policies
# Plain reference of each policy, written from its definition: votes are True / False / None
# (None: the method said undecided, or has no record for the instance: "missing").
def ref_any(votes):
    if True in votes:
        return True
    return False if all(v is False for v in votes) else None


def ref_all(votes):
    if False in votes:
        return False
    return True if all(v is True for v in votes) else None


def ref_majority(votes):
    """Nulls abstain, but the verdict must be the same however they could have voted."""
    outcomes = set()
    nulls = [k for k, v in enumerate(votes) if v is None]
    for fill in itertools.product((True, False), repeat=len(nulls)):
        filled = list(votes)
        for k, value in zip(nulls, fill):
            filled[k] = value
        yes, no = filled.count(True), filled.count(False)
        outcomes.add(True if yes > no else False if no > yes else None)
    return outcomes.pop() if len(outcomes) == 1 else None


REFERENCE = {"any": ref_any, "all": ref_all, "majority": ref_majority}
MISSING = "missing"
CASES = [votes for n in (2, 3) for votes in itertools.product((True, False, None, MISSING), repeat=n)
         if any(v is not MISSING for v in votes)]


@pytest.mark.parametrize("policy", sorted(REFERENCE))
@pytest.mark.parametrize("votes", CASES, ids=lambda vs: "-".join(str(v) for v in vs))
def test_policy_truth_table(policy, votes) -> None:
    """Every combination of true / false / null / missing for 2 and 3 methods, against the plain
    reference. "missing": the method has flags for another instance, not for this one; it votes
    null when ``methods=`` names it as expected, and does not vote otherwise."""
    flags = [f("i1", f"method.m{k}", v, float(k)) for k, v in enumerate(votes) if v is not MISSING]
    flags += [f("anchor", f"method.m{k}", True, 0.0) for k in range(len(votes))]
    default = {m.instance_id: m for m in merge_flags(flags, policy)}["i1"]
    assert default.contaminated is REFERENCE[policy]([v for v in votes if v is not MISSING])
    assert "missing" not in default.evidence
    expected = [f"method.m{k}" for k in range(len(votes))]
    merged = {m.instance_id: m for m in merge_flags(flags, policy, methods=expected)}["i1"]
    want = REFERENCE[policy]([None if v is MISSING else v for v in votes])
    assert merged.contaminated is want
    assert merged.method == "merged"
    assert merged.score == max(k for k, v in enumerate(votes) if v is not MISSING)  # max score
    present = {f"method.m{k}" for k, v in enumerate(votes) if v is not MISSING}
    assert set(merged.evidence["methods"]) == present
    missing = sorted(f"method.m{k}" for k, v in enumerate(votes) if v is MISSING)
    assert list(merged.evidence.get("missing", [])) == missing


def test_undecided_stage2_with_clean_stage1_stays_undecided() -> None:
    """Regression (issue 13 item 2): Stage II null merged with Stage I false became false (clean)
    under policy any; an undecided method must keep the merged verdict undecided."""
    flags = [f("i1", "benchchecker.stage1", False, 0.1), f("i1", "benchchecker.stage2", None, 0.5)]
    (merged,) = merge_flags(flags, "any")
    assert merged.contaminated is None
    got = verdicts_for(flags, benchmark="swe-bench-verified", model="m1")
    assert got == {"i1": Verdict.UNDECIDED}


def test_method_without_record_does_not_vote() -> None:
    """Stage II ("*") clean for i2 and Stage I ran on i1 only: i2 is clean for m1 on Stage II's
    word (Stage I did not vote), i1 clean on both; a null vote, unlike a missing one, keeps an
    instance undecided (see the regression test above)."""
    flags = [f("i1", "benchchecker.stage1", False, 0.1),
             f("i1", "benchchecker.stage2", False, 0.2, model="*"),
             f("i2", "benchchecker.stage2", False, 0.2, model="*")]
    assert verdicts_for(flags, benchmark="swe-bench-verified", model="m1") == {
        "i1": Verdict.CLEAN, "i2": Verdict.CLEAN}
    flags.append(f("i2", "benchchecker.stage1", None, 0.0))
    assert verdicts_for(flags, benchmark="swe-bench-verified", model="m1") == {
        "i1": Verdict.CLEAN, "i2": Verdict.UNDECIDED}


def test_explicit_methods_list() -> None:
    flags = [f("i1", "a.x", False, 0.0), f("i1", "a.y", False, 0.0)]
    (merged,) = merge_flags(flags, "any")
    assert merged.contaminated is False
    (merged,) = merge_flags(flags, "any", methods=["a.x", "a.y", "a.z"])
    assert merged.contaminated is None
    assert list(merged.evidence["missing"]) == ["a.z"]


def test_a_method_votes_once_concrete_model_first() -> None:
    """A method with both a "*" and a model record votes once, with the model's own verdict."""
    flags = [f("i1", "a.x", True, 1.0, model="*"), f("i1", "a.x", False, 0.0, model="m1"),
             f("i1", "a.y", False, 0.0, model="m1")]
    (merged,) = merge_flags(flags, "majority")
    assert merged.contaminated is False
    assert set(merged.evidence["methods"]) == {"a.x@*", "a.x", "a.y"}


# ------------------------------------------------------------------------ benchchecker policy
S1, S2 = "benchchecker.stage1", "benchchecker.stage2"


def ref_benchchecker(stage1, stage2):
    if stage1 is False or stage2 is False:
        return False
    if stage1 is True and stage2 is True:
        return True
    return None


@pytest.mark.parametrize("assume", [False, True])
@pytest.mark.parametrize("stage1", [True, False, None, MISSING])
@pytest.mark.parametrize("stage2", [True, False, None, MISSING])
def test_benchchecker_policy_truth_table(stage1, stage2, assume) -> None:
    flags = [f("i1", method, v, 0.5) for method, v in ((S1, stage1), (S2, stage2)) if v is not MISSING]
    flags.append(f("i1", "benchchecker.patch_date", True, 9.0))  # listed, but does not vote
    (merged,) = merge_flags(flags, "benchchecker", assume_repo_seen=assume)
    s1 = True if (stage1 is MISSING and assume) else None if stage1 is MISSING else stage1
    s2 = None if stage2 is MISSING else stage2
    assert merged.contaminated is ref_benchchecker(s1, s2)
    assert merged.evidence["policy"] == "benchchecker"
    if stage1 is MISSING and assume:
        assert merged.evidence["assumed"] == {S1: True, "reason": ASSUME_REPO_SEEN_REASON}
    else:
        assert "assumed" not in merged.evidence
    missing = [m for m, v in ((S1, stage1), (S2, stage2)) if v is MISSING and not (m == S1 and assume)]
    assert list(merged.evidence.get("missing", [])) == missing


def test_assume_repo_seen_needs_the_benchchecker_policy() -> None:
    with pytest.raises(InputError, match="assume_repo_seen applies only to the 'benchchecker'"):
        merge_flags([f("i1", S2, True, 1.0)], "any", assume_repo_seen=True)


def test_verdicts_for_benchchecker_policy_for_a_closed_model() -> None:
    flags = [f("i1", S2, True, 1.0, model="*"), f("i2", S2, False, 0.0, model="*")]
    got = verdicts_for(flags, benchmark="swe-bench-verified", model="gpt-4o", policy="benchchecker")
    assert got == {"i1": Verdict.UNDECIDED, "i2": Verdict.CLEAN}
    got = verdicts_for(flags, benchmark="swe-bench-verified", model="gpt-4o", policy="benchchecker",
                       assume_repo_seen=True)
    assert got == {"i1": Verdict.CONTAMINATED, "i2": Verdict.CLEAN}


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


def test_verdicts_for_reads_a_merged_file_as_it_is() -> None:
    """Regression: ``flags merge --policy benchchecker`` then ``leaderboard`` failed with "cannot
    merge already-merged flags"."""
    flags = [f("i1", "benchchecker.stage2", True, 1.0), f("i2", "benchchecker.stage2", False, 0.1),
             f("i3", "benchchecker.stage2", None, 0.4)]
    merged = merge_flags(flags, "benchchecker", assume_repo_seen=True)
    assert verdicts_for(merged, benchmark="swe-bench-verified", model="m1") == {
        "i1": Verdict.CONTAMINATED, "i2": Verdict.CLEAN, "i3": Verdict.UNDECIDED}
    with pytest.raises(InputError, match="mix merged records with per-method ones"):
        verdicts_for([*merged, f("i4", "benchchecker.stage2", True, 1.0)],
                     benchmark="swe-bench-verified", model="m1")


def _reference_verdicts(flags, *, benchmark, model, policy="any", assume_repo_seen=False):  # noqa: ANN001, ANN202
    """verdicts_for as first written: merge the applicable records into new ones, then read them."""
    from benchchecker_plugin.flags import merge_flags

    relevant = [f for f in flags if f.benchmark == benchmark and f.applies_to(model)]
    out = {}
    for m in merge_flags(relevant, policy, assume_repo_seen=assume_repo_seen):
        if m.applies_to(model) and (m.model == model or m.instance_id not in out):
            out[m.instance_id] = m.verdict
    return out


_RECORD = st.tuples(st.sampled_from(["i1", "i2", "i3", "i4"]), st.sampled_from(["m1", "m2", "*"]),
                    st.sampled_from(["benchchecker.stage1", "benchchecker.stage2", "ts_guessing.x"]),
                    st.sampled_from([True, False, None]), st.sampled_from(["2026-01-01T00:00:00Z",
                                                                          "2026-02-01T00:00:00Z"]))


@settings(max_examples=300, deadline=None)
@given(records=st.lists(_RECORD, max_size=12), policy=st.sampled_from(["any", "all", "majority", "benchchecker"]),
       one_method=st.booleans())
def test_verdicts_for_equals_the_merge_it_summarises(records, policy, one_method) -> None:  # noqa: ANN001
    """Its shortcuts (one record per instance; verdicts without building merged records) change
    no verdict: checked against merging into records and reading them, on random record sets."""
    flags = [ContaminationFlag("b", iid, model, "benchchecker.stage2" if one_method else method, c, 0.5,
                               created_at=when)
             for iid, model, method, c, when in records]
    for model in ("m1", "m2", "*"):
        assert verdicts_for(flags, benchmark="b", model=model, policy=policy) == \
            _reference_verdicts(flags, benchmark="b", model=model, policy=policy)
