"""The minimum detectable drop (scoring.power) against a brute-force simulation through the public
estimator, and its promise on a simulated leaderboard of the real size (issue 34, item 1)."""

from __future__ import annotations

import numpy as np
import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.scoring import MdeConfig, minimum_detectable_drop, pooled_summary, rate_and_pool

TIERS = ("a", "b")


def _table(rng: np.random.Generator, subs: int, m: int, clean_share: float,
           n_tiers: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """resolved (subs x m, instance difficulty shared by all submissions), codes, tier index."""
    diff = rng.normal(0.0, 1.2, m)
    skill = rng.normal(0.0, 0.7, subs)
    p = 1.0 / (1.0 + np.exp(-(diff[None] + skill[:, None])))
    res = rng.random((subs, m)) < p
    codes = np.where(rng.random(m) < clean_share, 0, 1)[None].repeat(subs, axis=0)
    return res, codes, np.arange(m) % n_tiers


def _plant(rng: np.random.Generator, res: np.ndarray, codes: np.ndarray, tier_idx: np.ndarray,
           drop: float) -> tuple[np.ndarray, np.ndarray]:
    """One null world with ``drop`` planted, written out plainly: verdict columns permuted within
    each tier, then each resolved clean cell unresolved with its stratum's probability."""
    perm = np.arange(res.shape[1])
    for t in np.unique(tier_idx):
        where = np.flatnonzero(tier_idx == t)
        perm[where] = rng.permutation(where)
    codes = codes[:, perm]
    out = res.copy()
    for s in range(res.shape[0]):
        for t in np.unique(tier_idx):
            where = np.flatnonzero(tier_idx == t)
            c = float((codes[s, where] == 0).mean())
            thin = drop / (1.0 - c * (1.0 - drop))
            for i in where:
                if codes[s, i] == 0 and res[s, i] and rng.random() < thin:
                    out[s, i] = False
    return out, codes


def _brute_power(res: np.ndarray, codes: np.ndarray, tier_idx: np.ndarray, drop: float,
                 sims: int, n_boot: int, seed: int) -> float:
    """The share of fresh worlds in which ``pooled_summary`` (the published estimator, its own
    bootstrap) finds the planted drop's interval above 0."""
    rng = np.random.default_rng(seed)
    ids = [f"i{k}" for k in range(res.shape[1])]
    subs = [f"s{k}" for k in range(res.shape[0])]
    tiers = {i: TIERS[t] for i, t in zip(ids, tier_idx)}
    hits = 0
    for k in range(sims):
        planted, world = _plant(rng, res, codes, tier_idx, drop)
        resolved = {s: [ids[i] for i in np.flatnonzero(planted[j])] for j, s in enumerate(subs)}
        verdicts = {s: {i: bool(world[j, n]) for n, i in enumerate(ids)} for j, s in enumerate(subs)}
        row = pooled_summary(resolved, ids, verdicts, tiers, groups={"g": subs}, n_boot=n_boot,
                             seed=seed * 1000 + k, min_clean=0, min_resolved_clean=0).iloc[0]
        hits += bool(row["drop_ci_low"] > 0)
    return hits / sims


@pytest.mark.slow   # ~600 brute-force worlds through pooled_summary (~15 s)
def test_the_mde_equals_a_brute_force_simulation_within_its_monte_carlo_error() -> None:
    res, codes, tier_idx = _table(np.random.default_rng(3), subs=3, m=120, clean_share=0.4)
    cfg = MdeConfig(n_sims=200, n_boot=200, seed=1)
    mde = float(minimum_detectable_drop(res, codes, tier_idx, 2, np.arange(2), [np.arange(3)], cfg)[0])
    assert 0.1 < mde < 0.9
    # at the MDE the brute force detects in 80% of the worlds, within 3 binomial standard errors
    # of 200 worlds (0.085) plus the MDE's own bisection step and simulation error (~0.03)
    at = _brute_power(res, codes, tier_idx, mde, sims=200, n_boot=200, seed=11)
    assert abs(at - 0.8) <= 0.115, (mde, at)
    # and power moves the way it must on either side
    assert _brute_power(res, codes, tier_idx, max(mde - 0.15, 0.0), 200, 200, 12) < 0.8 < \
        _brute_power(res, codes, tier_idx, min(mde + 0.15, 1.0), 200, 200, 13)


def test_per_submission_cells_equal_each_cell_alone() -> None:
    res, codes, tier_idx = _table(np.random.default_rng(5), subs=3, m=90, clean_share=0.5)
    cfg = MdeConfig(n_sims=40, n_boot=60, steps=6, seed=2)
    together = minimum_detectable_drop(res, codes, tier_idx, 2, np.arange(2),
                                       [np.array([0]), np.array([1]), np.array([2])], cfg)
    from benchchecker_plugin.scoring._power import draw_worlds

    worlds = draw_worlds(res, tier_idx, 2, cfg)
    alone = [minimum_detectable_drop(res, codes, tier_idx, 2, np.arange(2), [np.array([k])], cfg,
                                     worlds)[0] for k in range(3)]
    np.testing.assert_array_equal(together, alone)
    # seeded: the same call gives the same figures
    np.testing.assert_array_equal(together, minimum_detectable_drop(
        res, codes, tier_idx, 2, np.arange(2), [np.array([0]), np.array([1]), np.array([2])], cfg))


def test_a_cell_with_nothing_clean_resolved_has_no_mde() -> None:
    res, codes, tier_idx = _table(np.random.default_rng(6), subs=2, m=40, clean_share=0.5)
    res[:, :] = False
    cfg = MdeConfig(n_sims=10, n_boot=20, steps=3)
    out = minimum_detectable_drop(res, codes, tier_idx, 2, np.arange(2), [np.arange(2)], cfg)
    assert np.isnan(out[0])


def test_bad_inputs_name_themselves() -> None:
    with pytest.raises(InputError, match="MdeConfig.n_sims must be a positive integer, got 0"):
        MdeConfig(n_sims=0)
    res, codes, tier_idx = _table(np.random.default_rng(7), subs=2, m=10, clean_share=0.5)
    with pytest.raises(InputError, match="cells must not share submissions"):
        minimum_detectable_drop(res, codes, tier_idx, 2, np.arange(2),
                                [np.array([0, 1]), np.array([1])], MdeConfig(n_sims=2, n_boot=2))


@pytest.mark.slow   # 200 leaderboards of 49 submissions x 500 instances through rate_and_pool (~60 s)
def test_a_planted_30_percent_drop_is_detected_in_80_percent_of_200_real_size_leaderboards() -> None:
    rng = np.random.default_rng(34)
    subs, m = 49, 500
    ids = [f"i{k}" for k in range(m)]
    names = [f"s{k}" for k in range(subs)]
    tier_idx = np.arange(m) % 4
    tiers = {i: "abcd"[t] for i, t in zip(ids, tier_idx)}
    diff = rng.normal(-0.3, 1.5, m)
    skill = rng.normal(0.0, 0.8, subs)
    clean = rng.random(m) < 0.12     # about 60 clean instances, as at the 2024-25 cutoffs
    p = 1.0 / (1.0 + np.exp(-(diff[None] + skill[:, None])))

    def board(drop: float) -> tuple[dict[str, list[str]], dict[str, bool]]:
        c = clean.mean()
        thin = drop / (1.0 - c * (1.0 - drop))
        res = (rng.random((subs, m)) < p) & ~(clean[None] & (rng.random((subs, m)) < thin))
        return ({s: [ids[i] for i in np.flatnonzero(res[k])] for k, s in enumerate(names)},
                {i: not bool(c) for i, c in zip(ids, clean)})

    resolved, verdicts = board(0.0)
    _, summary = rate_and_pool(resolved, ids, verdicts, tiers, groups={"all": names}, n_boot=200,
                               min_clean=20, min_resolved_clean=10,
                               mde=MdeConfig(n_sims=100, n_boot=200, seed=0))
    mde = float(summary.loc[(summary["group"] == "all") & (summary["tier"] == "all"), "mde"].iloc[0])
    assert mde <= 0.30, mde      # the premise of the acceptance point
    hits = 0
    for k in range(200):
        resolved, verdicts = board(0.30)
        row = pooled_summary(resolved, ids, verdicts, tiers, groups={"all": names}, n_boot=200,
                             seed=k, min_clean=20, min_resolved_clean=10).iloc[0]
        hits += bool(row["drop_ci_low"] > 0)
    assert hits >= 160, hits
