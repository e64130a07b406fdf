"""ROC / AUC kernels against scikit-learn, an O(n^2) pairwise reference, and hand-computed cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.scoring import (
    UndefinedMetricWarning,
    _kernels,
    rates_at_threshold,
    roc_auc_score,
    roc_curve,
    tpr_at_fpr,
)


def pairwise_auc(y, s, w=None):
    """Obviously-correct O(n^2) AUC: P(score_pos > score_neg) + 1/2 P(tie), weighted."""
    y = np.asarray(y)
    s = np.asarray(s, float)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    num = den = 0.0
    for i in np.flatnonzero(y == 1):
        for j in np.flatnonzero(y == 0):
            den += w[i] * w[j]
            num += w[i] * w[j] * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
    return num / den


def _random_case(rng, n):
    y = rng.integers(0, 2, n)
    y[0], y[-1] = 0, 1
    s = np.round(rng.normal(size=n), 1)  # many ties
    w = rng.random(n) * (rng.random(n) > 0.15)  # some zero weights
    w[0] = w[-1] = 1.0
    return y, s, w


@pytest.mark.parametrize("seed", range(8))
def test_matches_sklearn_with_ties_and_weights(seed):
    rng = np.random.default_rng(seed)
    y, s, w = _random_case(rng, int(rng.integers(2, 400)))
    assert abs(roc_auc_score(y, s) - skm.roc_auc_score(y, s)) < 1e-12
    assert abs(roc_auc_score(y, s, sample_weight=w) - skm.roc_auc_score(y, s, sample_weight=w)) < 1e-12
    for weight in (None, w):
        for drop in (True, False):
            ours = roc_curve(y, s, sample_weight=weight, drop_intermediate=drop)
            fpr, tpr, thr = skm.roc_curve(y, s, sample_weight=weight, drop_intermediate=drop)
            np.testing.assert_allclose(ours.fpr, fpr, rtol=0, atol=1e-12)
            np.testing.assert_allclose(ours.tpr, tpr, rtol=0, atol=1e-12)
            np.testing.assert_array_equal(ours.thresholds, thr)


@pytest.mark.parametrize("seed", range(4))
def test_matches_pairwise_reference(seed):
    rng = np.random.default_rng(100 + seed)
    y, s, w = _random_case(rng, 120)
    assert abs(roc_auc_score(y, s, sample_weight=w) - pairwise_auc(y, s, w)) < 1e-12


@pytest.mark.parametrize("target", [0.0, 0.05, 0.2, 0.5, 1.0])
def test_tpr_at_fpr_matches_full_sklearn_curve(target):
    rng = np.random.default_rng(7)
    y, s, w = _random_case(rng, 300)
    fpr, tpr, _ = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    expected = tpr[np.searchsorted(fpr, target, side="right") - 1]
    assert tpr_at_fpr(y, s, target, sample_weight=w) == pytest.approx(expected, abs=1e-12)


def test_hand_computed():
    # pairs (pos, neg): (0.35>0.1) (0.35<0.4) (0.8>0.1) (0.8>0.4) -> 3/4
    assert roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75
    # one tie between a positive and a negative counts one half
    assert roc_auc_score([0, 1], [0.5, 0.5]) == 0.5
    assert tpr_at_fpr([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], 0.0) == 0.5
    assert tpr_at_fpr([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], 0.5) == 1.0


def test_constant_scores_give_one_half():
    assert roc_auc_score([0, 1, 1, 0, 1], [3.0] * 5) == 0.5
    curve = roc_curve([0, 1, 1, 0, 1], [3.0] * 5)
    np.testing.assert_array_equal(curve.fpr, [0.0, 1.0])
    np.testing.assert_array_equal(curve.tpr, [0.0, 1.0])


@pytest.mark.parametrize("y,s", [([1, 1, 1], [0.1, 0.5, 0.2]), ([0, 0], [1.0, 2.0]), ([1], [0.3]),
                                 ([], [])])
def test_one_class_or_tiny_is_nan_with_warning(y, s):
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        assert np.isnan(roc_auc_score(y, s))
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(tpr_at_fpr(y, s, 0.05))


def test_one_class_curve_like_sklearn():
    with pytest.warns(UndefinedMetricWarning, match="No negative samples"):
        curve = roc_curve([1, 1, 1], [0.1, 0.5, 0.2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fpr, tpr, thr = skm.roc_curve([1, 1, 1], [0.1, 0.5, 0.2])
    np.testing.assert_array_equal(curve.tpr, tpr)
    assert np.isnan(curve.fpr).all() and np.isnan(fpr).all()


def test_negative_zero_ties_with_zero_and_extremes_order():
    s = np.array([-0.0, 0.0, -1e308, 1e308, -5e-324, 5e-324])
    y = np.array([1, 0, 0, 1, 0, 1])
    assert roc_auc_score(y, s) == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    keys = _kernels.desc_keys(s)
    assert keys[0] == keys[1]


@pytest.mark.parametrize("seed", range(3))
def test_radix_sort_is_stable_descending(seed):
    rng = np.random.default_rng(seed)
    s = np.concatenate([np.round(rng.normal(size=5000), 2), rng.normal(size=5000) * 1e6,
                        -rng.random(100)])
    _, order = _kernels.radix_sort(_kernels.desc_keys(s), np.arange(s.size))
    np.testing.assert_array_equal(order, np.argsort(-s, kind="stable"))


def test_rates_at_threshold_and_flags_match_sklearn():
    rng = np.random.default_rng(3)
    y, s, w = _random_case(rng, 200)
    r = rates_at_threshold(y, s, threshold=0.2, sample_weight=w)
    pred = (s >= 0.2).astype(int)
    tn, fp, fn, tp = skm.confusion_matrix(y, pred, sample_weight=w).ravel()
    assert (r.tp, r.fp, r.tn, r.fn) == pytest.approx((tp, fp, tn, fn), abs=1e-12)
    assert r.tpr == pytest.approx(skm.recall_score(y, pred, sample_weight=w), abs=1e-12)
    assert r.precision == pytest.approx(skm.precision_score(y, pred, sample_weight=w), abs=1e-12)
    assert r.fpr == pytest.approx(fp / (fp + tn), abs=1e-12)
    assert rates_at_threshold(y, flags=pred.astype(bool), sample_weight=w) == r


def test_rates_undefined_precision_warns():
    with pytest.warns(UndefinedMetricWarning, match="precision"):
        r = rates_at_threshold([0, 1], flags=[False, False])
    assert np.isnan(r.precision) and r.tpr == 0.0 and r.fpr == 0.0


def test_pinned_input_errors():
    with pytest.raises(InputError, match=r"y_true must hold only 0/1 or booleans, found 2"):
        roc_auc_score([0, 2], [0.1, 0.2])
    with pytest.raises(InputError, match=r"y_score holds 1 non-finite values"):
        roc_auc_score([0, 1], [0.1, np.nan])
    with pytest.raises(InputError, match=r"y_score must be one-dimensional with 2 values"):
        roc_auc_score([0, 1], [0.1])
    with pytest.raises(InputError, match=r"sample_weight must be finite and non-negative"):
        roc_auc_score([0, 1], [0.1, 0.2], sample_weight=[1, -1])
    with pytest.raises(InputError, match=r"give exactly one of threshold="):
        rates_at_threshold([0, 1], [0.1, 0.2])
