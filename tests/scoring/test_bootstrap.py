"""Bootstrap by resample-count weights: each resample equals scikit-learn on the explicit resample;
seeded, reproducible, independent of the thread count."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from sklearn import metrics as skm

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.scoring import UndefinedMetricWarning, _kernels, bootstrap_auc, detection_metrics
from benchchecker_plugin.scoring._bootstrap import seed_key
from benchchecker_plugin.scoring._roc import prepare_scores


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + 0.8 * y, 1)
    flags = (s > 0.5).astype(np.uint8)
    return y, s, flags


def test_each_resample_equals_sklearn_on_the_explicit_resample():
    y, s, flags = _data()
    prep, flag_sorted = prepare_scores(y, s, None, extra=flags, need_order=True)
    key = seed_key(11)
    boots = _kernels.bootstrap_metrics(prep.ends, prep.y, prep.w, flag_sorted, 0.1, 25, key)
    counts = _kernels.count_matrix(len(y), 0, 25, key)
    assert (counts.sum(axis=1) == len(y)).all()
    for b in range(25):
        # counts are over positions in descending-score order: map them back to items
        idx = prep.order[np.repeat(np.arange(len(y)), counts[b].astype(int))]
        yb, sb, fb = y[idx], s[idx], flags[idx]
        assert boots[b, 0] == pytest.approx(skm.roc_auc_score(yb, sb), abs=1e-12)
        fpr, tpr, _ = skm.roc_curve(yb, sb, drop_intermediate=False)
        assert boots[b, 1] == pytest.approx(tpr[np.searchsorted(fpr, 0.1, side="right") - 1], abs=1e-12)
        assert boots[b, 2] == pytest.approx(skm.recall_score(yb, fb), abs=1e-12)
        assert boots[b, 4] == pytest.approx(skm.precision_score(yb, fb), abs=1e-12)
        assert boots[b, 3] == pytest.approx(((fb == 1) & (yb == 0)).sum() / (yb == 0).sum(), abs=1e-12)


def test_counts_are_uniform_multinomial():
    counts = _kernels.count_matrix(50, 0, 4000, seed_key(1))
    assert counts.sum() == 50 * 4000
    # each item drawn 1 time on average, variance (1 - 1/n) ~ 0.98
    assert abs(counts.mean(axis=0) - 1).max() < 0.08
    assert abs(counts.var() - 0.98) < 0.05


def test_reproducible_and_thread_independent():
    y, s, flags = _data(500, 3)
    a = detection_metrics(y, s, flags=flags, n_boot=300, seed=5)
    b = detection_metrics(y, s, flags=flags, n_boot=300, seed=5)
    assert a == b
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        c = detection_metrics(y, s, flags=flags, n_boot=300, seed=5)
    finally:
        numba.set_num_threads(old)
    assert a == c
    assert detection_metrics(y, s, flags=flags, n_boot=300, seed=6).auc != a.auc


def test_interval_brackets_the_estimate_and_matches_sklearn_point():
    y, s, _ = _data(400, 4)
    iv = bootstrap_auc(y, s, n_boot=500, seed=0)
    assert iv.estimate == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    assert iv.low < iv.estimate < iv.high
    assert iv.high - iv.low < 0.2 and iv.n_undefined == 0


def test_single_class_resamples_are_counted_and_warned():
    y = np.array([1] + [0] * 9)
    s = np.arange(10.0)
    with pytest.warns(UndefinedMetricWarning, match="drew a single class"):
        iv = bootstrap_auc(y, s, n_boot=200, seed=0)
    # P(no positive drawn) = 0.9^10 ~ 0.35
    assert 30 < iv.n_undefined < 110
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        iv = bootstrap_auc([1, 1], [0.2, 0.3], n_boot=10)
    assert np.isnan(iv.estimate) and np.isnan(iv.low)


def test_pinned_errors():
    with pytest.raises(InputError, match="n_boot must be a positive integer, got 0"):
        bootstrap_auc([0, 1], [0.1, 0.2], n_boot=0)
    with pytest.raises(InputError, match="seed must be a non-negative integer, got -1"):
        bootstrap_auc([0, 1], [0.1, 0.2], seed=-1)


# ----------------------------------------------------------------------------- Wilson interval
@pytest.mark.parametrize(("k", "n"), [(0, 1), (1, 1), (0, 4), (4, 4), (2, 4), (3, 7), (0, 50),
                                      (50, 50), (17, 120)])
@pytest.mark.parametrize("ci", [0.9, 0.95])
def test_wilson_equals_scipy(k, n, ci):
    from scipy.stats import binomtest

    from benchchecker_plugin.scoring import wilson_interval

    want = binomtest(k, n).proportion_ci(confidence_level=ci, method="wilson")
    low, high = wilson_interval(k, n, ci)
    assert (float(low), float(high)) == pytest.approx((want.low, want.high), abs=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 9])
def test_wilson_never_has_width_zero_on_small_all_equal_samples(n):
    """All-0 and all-1 outcomes on a handful of instances: a bootstrap would give [p, p]."""
    from benchchecker_plugin.scoring import wilson_interval

    z2 = 1.959963984540054 ** 2
    low, high = wilson_interval([0, n], [n, n])
    assert low[0] == 0.0 and high[0] == pytest.approx(z2 / (n + z2))
    assert low[1] == pytest.approx(n / (n + z2)) and high[1] == 1.0
    assert (high - low > 0.2).all()


def test_wilson_edge_cases_and_errors():
    from benchchecker_plugin.scoring import wilson_interval

    low, high = wilson_interval(0, 0)
    assert np.isnan(low) and np.isnan(high)
    with pytest.raises(InputError, match="0 <= successes <= n"):
        wilson_interval(5, 4)
    with pytest.raises(InputError, match="ci must lie strictly between 0 and 1"):
        wilson_interval(1, 4, ci=1.0)
