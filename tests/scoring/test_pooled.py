"""The pooled, tier-stratified drop: hand computations, a plain-Python Mantel-Haenszel reference,
the cluster bootstrap against explicit resamples, the minimums, and simulated leaderboards with a
known effect (none, and a planted 25% drop)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import Verdict
from benchchecker_plugin.scoring import (
    UndefinedMetricWarning,
    mantel_haenszel_ratio,
    pooled_summary,
    rate_and_pool,
    rate_table,
)
from tests.helpers.bootstrap import resample_counts
from tests.helpers.leaderboard_sim import simulate

C, X, U = Verdict.CLEAN, Verdict.CONTAMINATED, Verdict.UNDECIDED


def _board():
    """Two submissions, two tiers; counts chosen to make the hand computation short.

    t1-easy (10 instances): e0-e5 clean, e6-e8 contaminated, e9 undecided
    t2-hard (10 instances): h0-h1 clean, h2-h7 contaminated, h8-h9 undecided
    A resolves e0-e4 (5 clean), e6-e9, h0, h2-h4; B resolves e0-e2, e6, h2."""
    ids = [f"e{k}" for k in range(10)] + [f"h{k}" for k in range(10)]
    tiers = {i: ("t1-easy" if i[0] == "e" else "t2-hard") for i in ids}
    v = {**{f"e{k}": C for k in range(6)}, **{f"e{k}": X for k in (6, 7, 8)}, "e9": U,
         **{f"h{k}": C for k in (0, 1)}, **{f"h{k}": X for k in range(2, 8)}, "h8": U, "h9": U}
    resolved = {"A": {"e0", "e1", "e2", "e3", "e4", "e6", "e7", "e8", "e9", "h0", "h2", "h3", "h4"},
                "B": {"e0", "e1", "e2", "e6", "h2"}}
    return ids, tiers, v, resolved


def test_hand_computed_pooled_drop_over_submission_by_tier_strata():
    ids, tiers, v, resolved = _board()
    out = pooled_summary(resolved, ids, v, tiers, groups={"both": ["A", "B"]}, n_boot=0,
                         min_clean=0, min_resolved_clean=0)
    row = out[out["tier"] == "all"].iloc[0]
    # strata (sub, tier): RC, C, R, N
    strata = [(5, 6, 9, 10), (1, 2, 4, 10), (3, 6, 4, 10), (0, 2, 1, 10)]
    num = sum(rc * n / (c + n) for rc, c, r, n in strata)
    den = sum(r * c / (c + n) for rc, c, r, n in strata)
    # 5*10/16 + 1*10/12 + 3*10/16 + 0  over  9*6/16 + 4*2/12 + 4*6/16 + 1*2/12
    assert num == pytest.approx(50 / 16 + 10 / 12 + 30 / 16)
    assert row["relative_drop"] == pytest.approx(1 - num / den)
    assert row["original_rate"] == pytest.approx(18 / 40)       # pooled counts, not a mean
    assert row["clean_rate"] == pytest.approx(9 / 16)
    assert row["contaminated_rate"] == pytest.approx((3 + 3 + 1 + 1) / 18)
    assert row["undecided_rate"] == pytest.approx(1 / 6)
    # tier-standardised clean rate: pooled per tier (8/12, 1/4), weighted 20:20
    assert row["clean_rate_std"] == pytest.approx((8 / 12 + 1 / 4) / 2)
    assert (row["n_submissions"], row["n_instances"], row["n_clean"], row["n_resolved_clean"]) == (
        2, 20, 8, 6)   # distinct instances: e0-e5, h0-h1 clean; e0-e4 and h0 resolved by one
    # clean vs contaminated: MH of clean against contaminated, same strata
    cx = [(5, 6, 3, 3), (1, 2, 3, 6), (3, 6, 1, 3), (0, 2, 1, 6)]
    want = 1 - (sum(rc * x / (c + x) for rc, c, rx, x in cx)
                / sum(rx * c / (c + x) for rc, c, rx, x in cx))
    assert row["clean_vs_contaminated"] == pytest.approx(want)


def test_one_stratum_is_the_plain_relative_drop():
    ids, tiers, v, resolved = _board()
    table = rate_table(resolved, ids, v, tiers, n_boot=0, min_clean=0, min_resolved_clean=0)
    easy_a = table[(table["submission"] == "A") & (table["tier"] == "t1-easy")].iloc[0]
    assert easy_a["relative_drop"] == pytest.approx((9 / 10 - 5 / 6) / (9 / 10))
    all_a = table[(table["submission"] == "A") & (table["tier"] == "all")].iloc[0]
    # the "all" row of one submission is stratified by tier (MH over its two tiers)
    want = 1 - (5 * 10 / 16 + 1 * 10 / 12) / (9 * 6 / 16 + 4 * 2 / 12)
    assert all_a["relative_drop"] == pytest.approx(want)
    raw = (13 / 20 - 6 / 8) / (13 / 20)
    assert not math.isclose(all_a["relative_drop"], raw)


def _mh_reference(a, n1, b, n0):
    num = den = 0.0
    for ai, n1i, bi, n0i in zip(a, n1, b, n0):
        if n1i and n0i:
            num += ai * n0i / (n1i + n0i)
            den += bi * n1i / (n1i + n0i)
    return num / den if den else math.nan


@pytest.mark.parametrize("seed", range(5))
def test_mantel_haenszel_equals_the_plain_reference(seed):
    rng = np.random.default_rng(seed)
    n1 = rng.integers(0, 30, 12)
    n0 = rng.integers(0, 30, 12)
    a = rng.integers(0, n1 + 1)
    b = rng.integers(0, n0 + 1)
    assert mantel_haenszel_ratio(a, n1, b, n0) == pytest.approx(_mh_reference(a, n1, b, n0))


def test_mantel_haenszel_degenerate_is_nan_with_a_warning_and_bad_counts_are_refused():
    with pytest.warns(UndefinedMetricWarning, match="Mantel-Haenszel ratio undefined"):
        assert math.isnan(mantel_haenszel_ratio([1], [2], [0], [3]))
    with pytest.raises(InputError, match="0 <= events <= size"):
        mantel_haenszel_ratio([3], [2], [0], [3])


def test_cluster_bootstrap_equals_explicit_resamples():
    """Resample b of the estimator is the estimator on the data drawn with b's counts: every
    submission's result on a drawn instance comes with it, within its tier."""
    ids, tiers, v, resolved = _board()
    out = pooled_summary(resolved, ids, v, tiers, groups={"both": ["A", "B"]}, n_boot=50, seed=3,
                         min_clean=0, min_resolved_clean=0)
    from benchchecker_plugin.scoring._bootstrap import seed_key
    tier_idx = np.array([0 if tiers[i] == "t1-easy" else 1 for i in ids])
    per_tier = resample_counts(tier_idx, 2, 50, int(seed_key(3) % (2**63)))
    counts = np.zeros((51, len(ids)))
    for t in (0, 1):
        counts[:, tier_idx == t] = per_tier[t]
    drops = []
    for w in counts[1:]:
        num = den = 0.0
        for sub in ("A", "B"):
            for t in (0, 1):
                sel = [k for k in range(len(ids)) if tier_idx[k] == t]
                n = sum(w[k] for k in sel)
                c = sum(w[k] for k in sel if v[ids[k]] is C)
                rc = sum(w[k] for k in sel if v[ids[k]] is C and ids[k] in resolved[sub])
                r = sum(w[k] for k in sel if ids[k] in resolved[sub])
                if c and n:
                    num += rc * n / (c + n)
                    den += r * c / (c + n)
        drops.append(1 - num / den if den else math.nan)
    lo, hi = np.nanquantile(drops, [0.025, 0.975])
    row = out[out["tier"] == "all"].iloc[0]
    assert (row["drop_ci_low"], row["drop_ci_high"]) == pytest.approx((lo, hi))
    for t in (0, 1):   # each tier keeps its size in every resample
        assert (counts[1:, tier_idx == t].sum(axis=1) == (tier_idx == t).sum()).all()


def test_too_few_says_so_with_both_counts():
    ids, tiers, v, resolved = _board()
    out = pooled_summary(resolved, ids, v, tiers, groups={"A": ["A"]}, n_boot=20)
    row = out[out["tier"] == "all"].iloc[0]
    assert row["note"] == "too few (clean n=8, resolved n=6)"
    assert math.isnan(row["relative_drop"]) and math.isnan(row["drop_ci_low"])
    out = pooled_summary(resolved, ids, v, tiers, groups={"A": ["A"]}, n_boot=20, min_clean=8,
                         min_resolved_clean=6)
    note = out.iloc[0]["note"]
    assert not isinstance(note, str) or "too few" not in note
    assert np.isfinite(out.iloc[0]["relative_drop"])


def test_an_interval_that_cannot_vary_is_not_printed_as_x_x():
    """Every clean and every other instance resolved: each resample gives drop 0."""
    ids = [f"i{k}" for k in range(30)]
    v = {i: (C if k < 20 else X) for k, i in enumerate(ids)}
    out = pooled_summary({"A": set(ids)}, ids, v, None, groups={"A": ["A"]}, n_boot=100)
    row = out.iloc[0]
    assert row["relative_drop"] == 0.0
    assert math.isnan(row["drop_ci_low"]) and math.isnan(row["drop_ci_high"])
    assert "no drop interval: every resample gives 0.000" in row["note"]


def test_pinned_errors():
    ids, tiers, v, resolved = _board()
    with pytest.raises(InputError, match="group 'x' names unknown submissions: C"):
        pooled_summary(resolved, ids, v, tiers, groups={"x": ["A", "C"]}, n_boot=0)
    with pytest.raises(InputError, match="min_resolved_clean must be a non-negative integer"):
        pooled_summary(resolved, ids, v, tiers, groups={"x": ["A"]}, min_resolved_clean=-1)


def _coverage(n_sims: int, n_boot: int) -> tuple[float, float, float]:
    covered, pooled, mean_of_ratios = 0, [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for seed in range(n_sims):
            b = simulate(seed)
            row = pooled_summary(b.resolved, b.ids, b.verdicts, b.tiers,
                                 groups={"all": list(b.resolved)}, n_boot=n_boot, seed=seed).iloc[0]
            covered += row["drop_ci_low"] <= 0.0 <= row["drop_ci_high"]
            pooled.append(row["relative_drop"])
            per = rate_table(b.resolved, b.ids, b.verdicts, None, n_boot=0)
            mean_of_ratios.append(per["relative_drop"].mean())
    return covered / n_sims, float(np.mean(pooled)), float(np.mean(mean_of_ratios))


def test_no_effect_the_interval_covers_zero_small():
    """20 simulated leaderboards (the full 200 run in the slow tier)."""
    cover, pooled, mor = _coverage(20, 200)
    assert cover >= 0.85
    assert abs(pooled) < 0.03
    assert mor < -0.05   # the mean of unstratified ratios reads confounding as a negative drop


@pytest.mark.slow
def test_no_effect_the_interval_covers_zero_in_200_simulated_leaderboards():
    cover, pooled, mor = _coverage(200, 400)
    print(f"coverage of 0: {cover:.3f}; mean pooled drop {pooled:+.3f}; mean of per-submission "
          f"unstratified ratios {mor:+.3f}")
    assert cover >= 0.93
    assert abs(pooled) < 0.02


@pytest.mark.parametrize("n_sims", [pytest.param(10, id="small"),
                                    pytest.param(100, id="full", marks=pytest.mark.slow)])
def test_a_planted_25_percent_drop_is_recovered(n_sims):
    est = []
    for seed in range(n_sims):
        b = simulate(10_000 + seed, effect=0.25)
        row = pooled_summary(b.resolved, b.ids, b.verdicts, b.tiers,
                             groups={"all": list(b.resolved)}, n_boot=0).iloc[0]
        est.append(row["relative_drop"])
    assert np.mean(est) == pytest.approx(0.25, abs=0.05)
    assert all(abs(e - 0.25) <= 0.10 for e in est)


def test_rate_and_pool_equals_rate_table_and_pooled_summary():
    """One prepared input and one bootstrap for both tables: the same tables as two calls."""
    board = simulate(3, effect=0.2, n_submissions=8)
    names = sorted(board.resolved)
    groups = {"all": names, "first half": names[:4]}
    options = dict(n_boot=200, seed=7, min_clean=20, min_resolved_clean=10)
    args = (board.resolved, board.ids, board.verdicts, board.tiers)
    models = {s: f"model-{s}" for s in names}
    table, summary = rate_and_pool(*args, groups=groups, models=models, **options)
    pd.testing.assert_frame_equal(table, rate_table(*args, models=models, **options))
    pd.testing.assert_frame_equal(summary, pooled_summary(*args, groups=groups, **options))
    assert table.attrs == rate_table(*args, **options).attrs
    assert summary.attrs == pooled_summary(*args, groups=groups, **options).attrs
    assert table["relative_drop"].notna().any() and summary["relative_drop"].notna().any()
