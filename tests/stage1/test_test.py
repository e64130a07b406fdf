import math
import random

import pytest
from scipy import stats

from benchchecker_plugin.stage1 import (
    DEFAULT_P0,
    binomial_test,
    calibrate_p0,
    presence_test,
    weighted_binomial_test,
)


@pytest.mark.parametrize("hits,n,p0", [(0, 10, 0.08), (3, 10, 0.08), (10, 10, 0.2), (7, 40, 0.2),
                                       (1, 1, 0.5), (25, 100, 0.08)])
def test_binomial_matches_scipy_binomtest(hits, n, p0):
    ref = stats.binomtest(hits, n, p0, alternative="greater").pvalue
    assert binomial_test(hits, n, p0) == pytest.approx(ref, rel=1e-12)


def test_binomial_hand_computed():
    # P(X >= 2), X ~ Bin(3, 0.5) = (3 + 1) / 8
    assert binomial_test(2, 3, 0.5) == pytest.approx(0.5)
    assert binomial_test(0, 5, 0.08) == pytest.approx(1.0)


def test_zero_queries_is_nan_with_warning():
    with pytest.warns(RuntimeWarning, match="zero queries"):
        assert math.isnan(binomial_test(0, 0, 0.08))
    with pytest.warns(RuntimeWarning, match="undecided"):
        res = presence_test([], None, p0=0.08)
    assert res.contaminated is None and math.isnan(res.hit_rate)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1])
def test_bad_p0_rejected(bad):
    with pytest.raises(ValueError, match="p0"):
        binomial_test(1, 2, bad)


def test_weighted_with_equal_weights_is_the_binomial_test():
    rng = random.Random(1)
    for _ in range(20):
        n = rng.randint(1, 30)
        flags = [rng.random() < 0.3 for _ in range(n)]
        ref = stats.binomtest(sum(flags), n, 0.08, alternative="greater").pvalue
        assert weighted_binomial_test(flags, [2.5] * n, 0.08) == pytest.approx(ref, rel=1e-9)


def test_weighted_matches_brute_force_enumeration():
    """Exact reference: enumerate all 2^n hit patterns with the quantised weights."""
    import itertools

    weights = [1.0, 3.0, 10.0, 5.0, 7.0]
    q = [max(1, round(10 * w / 10.0)) for w in weights]
    flags = [False, True, True, False, False]
    p0 = 0.2
    observed = sum(qi for qi, f in zip(q, flags) if f)
    ref = 0.0
    for pattern in itertools.product([0, 1], repeat=len(q)):
        if sum(qi * b for qi, b in zip(q, pattern)) >= observed:
            ref += math.prod(p0 if b else 1 - p0 for b in pattern)
    assert weighted_binomial_test(flags, weights, p0) == pytest.approx(ref, rel=1e-12)


def test_weighted_rewards_hits_on_high_entropy_targets():
    flags = [True, False, False, False, False, False]
    high = weighted_binomial_test(flags, [9, 1, 1, 1, 1, 1], 0.1)
    low = weighted_binomial_test(flags, [1, 9, 9, 9, 9, 9], 0.1)
    assert high < low


def test_presence_decision_and_defaults():
    assert DEFAULT_P0 == {"python": 0.08, "java": 0.2}
    res = presence_test([True] * 5 + [False] * 5, None, p0=0.08, alpha=0.05)
    assert res.hits == 5 and res.queries == 10 and res.contaminated is True
    res = presence_test([True] + [False] * 9, None, p0=0.08)
    assert res.contaminated is False


def test_calibration_pools_repositories():
    cal = calibrate_p0([(1, 20), (3, 30)])
    assert cal.hits == 4 and cal.queries == 50 and cal.repos == 2
    assert cal.p0 == pytest.approx(4.5 / 51)
    assert cal.upper == pytest.approx(stats.binomtest(4, 50).proportion_ci(0.95, "exact").high)
    assert calibrate_p0([(0, 10)]).p0 > 0
    with pytest.raises(ValueError, match="no usable queries"):
        calibrate_p0([(0, 0)])
