"""The rate table against a plain-Python reference, hand-computed cases and pinned errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from benchchecker_plugin.errors import DataError, InputError
from benchchecker_plugin.flags import Verdict
from benchchecker_plugin.scoring import (
    LEADERBOARD_COLUMNS,
    UndefinedMetricWarning,
    rate_table,
    rescore,
)
from benchchecker_plugin.scoring._bootstrap import seed_key
from tests.helpers.bootstrap import resample_counts

TIERS = ("<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours")


def _mh_drop(strata):
    """1 - Mantel-Haenszel ratio of clean against all over (RC, C, R, N) strata."""
    num = sum(rc * n / (c + n) for rc, c, r, n in strata if c and n)
    den = sum(r * c / (c + n) for rc, c, r, n in strata if c and n)
    return 1 - num / den if den else math.nan


def reference_rows(resolved, ids, verdicts, tiers):
    """Plain-Python rate table (no intervals): dict (submission, tier) -> row values. A tier row's
    drop is (original - clean) / original; the "all" row's is stratified by tier (MH)."""
    out = {}
    groups = {"all": list(ids)}
    for iid in ids:
        groups.setdefault(tiers[iid], []).append(iid)
    for sub, res in resolved.items():
        v = verdicts[sub]
        strata = []
        for tier, members in groups.items():
            clean = [i for i in members if v.get(i) is Verdict.CLEAN]
            cont = [i for i in members if v.get(i) is Verdict.CONTAMINATED]
            und = [i for i in members if i not in clean and i not in cont]
            n_res = sum(i in res for i in members)
            rc = sum(i in res for i in clean)
            orig = n_res / len(members)
            cr = rc / len(clean) if clean else math.nan
            xr = sum(i in res for i in cont) / len(cont) if cont else math.nan
            ur = sum(i in res for i in und) / len(und) if und else math.nan
            drop = (orig - cr) / orig if orig > 0 else math.nan
            if tier != "all":
                strata.append((rc, len(clean), n_res, len(members)))
            out[(sub, tier)] = dict(n_instances=len(members), n_clean=len(clean),
                                    n_resolved_clean=rc, n_contaminated=len(cont),
                                    n_undecided=len(und), original_rate=orig, clean_rate=cr,
                                    contaminated_rate=xr, undecided_rate=ur, relative_drop=drop)
        out[(sub, "all")]["relative_drop"] = _mh_drop(strata)
    return out


def _random_inputs(seed, n_sub=6, n=120):
    rng = np.random.default_rng(seed)
    ids = [f"repo__x-{k}" for k in range(n)]
    tiers = {i: TIERS[min(3, int(rng.integers(0, 5)))] for i in ids}
    resolved = {f"sub{s}": {i for i in ids if rng.random() < 0.2 + 0.1 * s} for s in range(n_sub)}
    choices = [Verdict.CLEAN, Verdict.CONTAMINATED, Verdict.UNDECIDED, None]
    verdicts = {}
    for s in resolved:
        v = {}
        for i in ids:
            c = choices[int(rng.integers(0, 4))]
            if c is not None:  # None: no flag at all for this instance
                v[i] = c
        verdicts[s] = v
    return ids, tiers, resolved, verdicts


@pytest.mark.parametrize("seed", range(3))
def test_matches_plain_python_reference(seed):
    ids, tiers, resolved, verdicts = _random_inputs(seed)
    table = rate_table(resolved, ids, verdicts, tiers, n_boot=0, min_clean=0, min_resolved_clean=0)
    assert tuple(table.columns) == LEADERBOARD_COLUMNS
    ref = reference_rows(resolved, ids, verdicts, tiers)
    assert len(table) == len(ref)
    for row in table.itertuples(index=False):
        exp = ref[(row.submission, row.tier)]
        for key, value in exp.items():
            got = getattr(row, key)
            if isinstance(value, float) and math.isnan(value):
                assert math.isnan(got), (row.submission, row.tier, key)
            else:
                assert got == pytest.approx(value, abs=1e-12), (row.submission, row.tier, key)


def test_bootstrap_drops_equal_explicit_resamples():
    """Without tiers one stratum: resample b's drop is the plain drop of the instances drawn."""
    ids, tiers, resolved, verdicts = _random_inputs(9, n_sub=3, n=60)
    table = rate_table(resolved, ids, verdicts, None, n_boot=400, seed=4, min_clean=0,
                       min_resolved_clean=0)
    [counts] = resample_counts(np.zeros(len(ids), np.intp), 1, 400, int(seed_key(4) % (2**63)))
    for sub in resolved:
        drops = []
        for b in range(1, 401):
            idx = np.repeat(np.arange(len(ids)), counts[b].astype(int))
            pick = [ids[i] for i in idx]
            res = [i in resolved[sub] for i in pick]
            cl = [verdicts[sub].get(i) is Verdict.CLEAN for i in pick]
            orig = sum(res) / len(pick)
            n_cl = sum(cl)
            cr = sum(r for r, c in zip(res, cl) if c) / n_cl if n_cl else math.nan
            drops.append((orig - cr) / orig if orig > 0 else math.nan)
        lo, hi = np.nanquantile(drops, [0.025, 0.975])
        row = table[(table["submission"] == sub) & (table["tier"] == "all")].iloc[0]
        assert row.drop_ci_low == pytest.approx(lo, abs=1e-12)
        assert row.drop_ci_high == pytest.approx(hi, abs=1e-12)


def test_hand_computed_rescore():
    ids = ["a", "b", "c", "d", "e"]
    tiers = {"a": "<15 min fix", "b": "<15 min fix", "c": "1-4 hours", "d": ">4 hours", "e": "1-4 hours"}
    verdicts = {"a": Verdict.CONTAMINATED, "b": Verdict.CLEAN, "c": True, "d": False, "e": None}
    table = rescore({"a", "c", "d"}, ids, verdicts, tiers, submission="run1", model="m",
                    date="2024-05-01", n_boot=0, group_hard=True, min_clean=0, min_resolved_clean=0)
    assert table["tier"].tolist() == ["all", "<15 min fix", "hard"]
    row = table.iloc[0]
    # original 3/5; clean {b, d}: d resolved -> 1/2; contaminated {a, c}: both -> 1
    assert (row.n_clean, row.n_contaminated, row.n_undecided) == (2, 2, 1)
    assert row.original_rate == pytest.approx(0.6)
    assert row.clean_rate == pytest.approx(0.5)
    assert row.contaminated_rate == pytest.approx(1.0)
    # the "all" drop is stratified by tier (Mantel-Haenszel, clean against all):
    # <15: RC 0, C 1, R 1, N 2; hard: RC 1, C 1, R 2, N 3
    # 1 - (0*2/3 + 1*3/4) / (1*1/3 + 2*1/4) = 1 - 0.75 / (5/6) = 0.1 (unstratified: 1/6)
    assert row.relative_drop == pytest.approx(0.1)
    easy = table.iloc[1]
    # <15: a (contaminated, resolved), b (clean, not) -> original 0.5, clean 0 -> drop 1
    assert easy.relative_drop == pytest.approx(1.0)
    assert (row.submission, row.model, row.date) == ("run1", "m", "2024-05-01")


def test_zero_original_rate_gives_empty_drop_and_no_clean_warns():
    ids = ["a", "b"]
    table = rate_table({"s": set()}, ids, {"a": False, "b": True}, n_boot=50)
    assert math.isnan(table.iloc[0].relative_drop) and math.isnan(table.iloc[0].drop_ci_low)
    with pytest.warns(UndefinedMetricWarning, match="no clean instance"):
        table = rate_table({"s": {"a"}}, ids, {"a": True, "b": True}, n_boot=10)
    assert math.isnan(table.iloc[0].clean_rate)


def test_shared_and_per_submission_verdicts_agree():
    ids, tiers, resolved, verdicts = _random_inputs(2, n_sub=2)
    shared = verdicts["sub0"]
    a = rate_table(resolved, ids, shared, tiers, n_boot=100, seed=1)
    b = rate_table(resolved, ids, {s: shared for s in resolved}, tiers, n_boot=100, seed=1)
    pd.testing.assert_frame_equal(a, b)


def test_pinned_errors():
    with pytest.raises(DataError, match=r"submission s: 1 resolved instance ids are not in the "
                                        r"benchmark's instance list: zzz"):
        rate_table({"s": {"a", "zzz"}}, ["a", "b"], {})
    with pytest.raises(DataError, match=r"duplicate instance ids: a"):
        rate_table({"s": {"a"}}, ["a", "b", "a"], {})
    with pytest.raises(DataError, match=r"1 instances have no tier: b"):
        rate_table({"s": {"a"}}, ["a", "b"], {}, {"a": "<15 min fix"})
    with pytest.raises(InputError, match=r"a verdict must be a Verdict, bool or None, got 'yes'"):
        rate_table({"s": {"a"}}, ["a"], {"a": "yes"})
    with pytest.raises(InputError, match=r"per-submission verdicts lack submissions: t"):
        rate_table({"s": {"a"}, "t": set()}, ["a"], {"s": {"a": True}})


# ------------------------------------------------------------------ small samples (issue 12 item 4)
def _wilson_reference(k, n, z=1.959963984540054):
    """Plain Wilson score interval (nan for n = 0)."""
    if n == 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.mark.parametrize("seed", range(2))
def test_rate_intervals_are_wilson_for_every_rate(seed):
    ids, tiers, resolved, verdicts = _random_inputs(seed, n_sub=3, n=60)
    for n_boot in (0, 30):
        table = rate_table(resolved, ids, verdicts, tiers, n_boot=n_boot)
        for row in table.itertuples(index=False):
            members = [i for i in ids if row.tier == "all" or tiers[i] == row.tier]
            v = verdicts[row.submission]
            res = resolved[row.submission]
            for name, subset in (("original", members),
                                 ("clean", [i for i in members if v.get(i) is Verdict.CLEAN]),
                                 ("contaminated",
                                  [i for i in members if v.get(i) is Verdict.CONTAMINATED])):
                lo, hi = _wilson_reference(sum(i in res for i in subset), len(subset))
                got = (getattr(row, f"{name}_ci_low"), getattr(row, f"{name}_ci_high"))
                assert got == pytest.approx((lo, hi), abs=1e-12, nan_ok=True), (row, name)


@pytest.mark.parametrize("outcome", [True, False])
def test_small_all_equal_sample_has_a_real_interval(outcome):
    """4 clean instances, all resolved (or none): the rate's interval is not [1, 1] / [0, 0]."""
    ids = ["a", "b", "c", "d", "e", "f"]
    verdicts = {"a": False, "b": False, "c": False, "d": False, "e": True, "f": True}
    resolved = {"s": set(ids) if outcome else set()}
    row = rate_table(resolved, ids, verdicts, n_boot=200).iloc[0]
    assert row.n_clean == 4 and row.clean_rate == (1.0 if outcome else 0.0)
    assert row.clean_ci_high - row.clean_ci_low > 0.4
    assert row.clean_ci_low <= row.clean_rate <= row.clean_ci_high
    assert (row.clean_ci_low, row.clean_ci_high) == pytest.approx(_wilson_reference(4 * outcome, 4))


def test_min_clean_blanks_the_drop_keeps_everything_else():
    """Fewer than min_clean clean instances: no drop, no drop interval, a note; every other number
    (and every row with enough clean instances) equals the table without the rule."""
    ids, tiers, resolved, verdicts = _random_inputs(5, n_sub=4, n=120)
    plain = rate_table(resolved, ids, verdicts, tiers, n_boot=50, seed=3, min_clean=0,
                       min_resolved_clean=0)
    ruled = rate_table(resolved, ids, verdicts, tiers, n_boot=50, seed=3, min_clean=10,
                       min_resolved_clean=0)
    few = ruled["n_clean"] < 10
    assert few.any() and (~few).any()
    blanked = ["relative_drop", "drop_ci_low", "drop_ci_high", "clean_vs_contaminated", "cvc_ci_low",
               "cvc_ci_high"]
    assert ruled.loc[few, blanked].isna().all().all()
    assert ruled.loc[few, "note"].tolist() == [
        "no clean instance" if n == 0 else f"too few (clean n={n}, resolved n={r})"
        for n, r in zip(ruled.loc[few, "n_clean"], ruled.loc[few, "n_resolved_clean"])]
    pd.testing.assert_frame_equal(ruled.loc[~few], plain.loc[~few])
    kept = [c for c in LEADERBOARD_COLUMNS if c not in blanked + ["note"]]
    pd.testing.assert_frame_equal(ruled[kept], plain[kept])
    assert not plain["note"].fillna("").str.startswith("too few").any()


def test_no_clean_instance_is_noted_and_min_clean_is_validated():
    with pytest.warns(UndefinedMetricWarning, match="no clean instance"):
        table = rate_table({"s": {"a"}}, ["a", "b"], {"a": True, "b": None}, n_boot=0)
    assert table.iloc[0].note == "no clean instance"
    with pytest.raises(InputError, match="min_clean must be a non-negative integer, got -1"):
        rate_table({"s": {"a"}}, ["a"], {}, min_clean=-1)


def test_covered_restricts_every_rate_to_the_covered_instances():
    """Guards ``covered=``: rates and counts over the covered instances only, resolved ids and
    verdicts of the others ignored, equal to the reference run on the covered subset alone."""
    ids, tiers, resolved, verdicts = _random_inputs(5)
    covered = [i for k, i in enumerate(ids) if k % 3]  # two instances in three
    table = rate_table(resolved, ids, verdicts, tiers, n_boot=0, covered=covered, min_clean=0,
                       min_resolved_clean=0)
    assert table.attrs["n_not_covered"] == len(ids) - len(covered)
    keep = set(covered)
    ref = reference_rows({s: r & keep for s, r in resolved.items()}, covered, verdicts,
                         {i: tiers[i] for i in covered})
    assert len(table) == len(ref)
    for row in table.itertuples(index=False):
        for key, value in ref[(row.submission, row.tier)].items():
            got = getattr(row, key)
            if isinstance(value, float) and math.isnan(value):
                assert math.isnan(got), (row.submission, row.tier, key)
            else:
                assert got == pytest.approx(value, abs=1e-12), (row.submission, row.tier, key)
    full = rate_table(resolved, ids, verdicts, tiers, n_boot=0, min_clean=0, min_resolved_clean=0)
    assert full.attrs["n_not_covered"] == 0
    assert not table["original_rate"].equals(full["original_rate"])
    with pytest.raises(DataError, match="not-an-id"):
        rate_table(resolved, ids, verdicts, tiers, n_boot=0, covered=[ids[0], "not-an-id"])


def _two_boards():
    """Boards A (30 own + 10 shared instances) and B (20 own + the 10 shared), two tiers; A1, A2
    on A, B1 on B; seeded verdicts and resolved lists within each board."""
    rng = np.random.default_rng(12)
    shared = [f"s{k}" for k in range(10)]
    board = {"A": [f"a{k}" for k in range(30)] + shared, "B": [f"b{k}" for k in range(20)] + shared}
    ids = list(dict.fromkeys(board["A"] + board["B"]))
    tiers = {iid: ("easy", "hard")[int(rng.integers(0, 2))] for iid in ids}
    word = (Verdict.CLEAN, Verdict.CONTAMINATED, Verdict.UNDECIDED)
    of = {"A1": "A", "A2": "A", "B1": "B"}
    resolved = {s: [i for i in board[b] if rng.random() < 0.5] for s, b in of.items()}
    verdicts = {s: {i: word[int(rng.choice(3, p=[0.6, 0.3, 0.1]))] for i in board[b]}
                for s, b in of.items()}
    return board, ids, tiers, of, resolved, verdicts


def test_boards_rated_together_keep_each_submission_to_its_own_instances():
    """Several boards pooled: a submission is rated over its own board's instances (its counts,
    rates and drop equal a run over that board alone), and a pooled cell is Mantel-Haenszel over
    submission x tier strata whose sizes are each submission's own instances of the tier."""
    from benchchecker_plugin.scoring import rate_and_pool

    board, ids, tiers, of, resolved, verdicts = _two_boards()
    lists = {s: board[b] for s, b in of.items()}
    table, summary = rate_and_pool(resolved, ids, verdicts, tiers, groups={"pool": ["A1", "B1"]},
                                   lists=lists, n_boot=50, min_clean=0, min_resolved_clean=0)
    point = ["n_instances", "n_clean", "n_resolved_clean", "n_undecided", "original_rate",
             "clean_rate", "relative_drop", "clean_vs_contaminated"]
    for b in ("A", "B"):
        subs = [s for s in of if of[s] == b]
        alone, _ = rate_and_pool({s: resolved[s] for s in subs}, board[b],
                                 {s: verdicts[s] for s in subs}, tiers, groups={"all": subs},
                                 n_boot=50, min_clean=0, min_resolved_clean=0)
        got = table[table["submission"].isin(subs)].reset_index(drop=True)
        pd.testing.assert_frame_equal(got[point], alone[point])
    strata = []
    for s in ("A1", "B1"):
        for t in ("easy", "hard"):
            own = [i for i in board[of[s]] if tiers[i] == t]
            c = sum(verdicts[s][i] is Verdict.CLEAN for i in own)
            r = sum(i in resolved[s] for i in own)
            rc = sum(i in resolved[s] and verdicts[s][i] is Verdict.CLEAN for i in own)
            strata.append((rc, c, r, len(own)))
    row = summary[(summary["group"] == "pool") & (summary["tier"] == "all")].iloc[0]
    assert row["relative_drop"] == pytest.approx(_mh_drop(strata))
    assert row["n_instances"] == 60 and row["n_submissions"] == 2
    assert row["drop_ci_low"] <= row["relative_drop"] <= row["drop_ci_high"]


def test_a_resolved_id_outside_its_own_list_is_refused_and_the_mde_respects_the_lists():
    from benchchecker_plugin.scoring import MdeConfig, rate_and_pool

    board, ids, tiers, of, resolved, verdicts = _two_boards()
    lists = {s: board[b] for s, b in of.items()}
    stray = dict(resolved, B1=[*resolved["B1"], "a0"])
    with pytest.raises(DataError, match="submission B1: resolved instances outside its own "
                                        "instance list: a0"):
        rate_and_pool(stray, ids, verdicts, tiers, groups={}, lists=lists, n_boot=10)
    with pytest.raises(InputError, match="instance lists name unknown submissions: C9"):
        rate_and_pool(resolved, ids, verdicts, tiers, groups={}, lists={"C9": ids}, n_boot=10)
    table, summary = rate_and_pool(resolved, ids, verdicts, tiers, groups={"pool": list(of)},
                                   lists=lists, n_boot=40, min_clean=0, min_resolved_clean=0,
                                   mde=MdeConfig(n_sims=20, n_boot=40, steps=4))
    mde = pd.concat([table["mde"], summary["mde"]]).dropna()
    assert len(mde) and ((mde > 0) & (mde <= 1)).all()
