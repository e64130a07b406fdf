"""ROC curve, AUC, TPR at a fixed FPR, and rates at a decision threshold, equal to scikit-learn.

Each public function validates its input, then runs a numba kernel of :mod:`._kernels` on
contiguous arrays (imported on first use, :func:`kernels`: importing the scoring face loads no
numba). Results equal ``sklearn.metrics`` to ~1e-12 (ties and sample weights included;
samples of weight zero are dropped first, as scikit-learn does). Degenerate input (a single class,
an empty sample) gives ``nan`` and an :class:`UndefinedMetricWarning`, never a made-up value.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError

if TYPE_CHECKING:
    from types import ModuleType


def kernels() -> ModuleType:
    """The numba kernels (:mod:`._kernels`), imported on first use."""
    from . import _kernels

    return _kernels


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for the given data (e.g. AUC with one class); its value is ``nan``."""


@dataclass(frozen=True)
class RocCurve:
    """Points of a ROC curve, from the strictest threshold (``inf``) to the loosest."""

    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray


@dataclass(frozen=True)
class Rates:
    """Confusion rates of a binary decision (weights summed; ``nan`` where a denominator is 0)."""

    tpr: float
    fpr: float
    precision: float
    tp: float
    fp: float
    tn: float
    fn: float


@dataclass(frozen=True)
class _Prepared:
    """Validated data sorted by descending score, ties grouped."""

    order: np.ndarray | None  # sorted position -> item (only when asked for)
    ends: np.ndarray
    keys: np.ndarray  # sorted descending-score keys (see _kernels.desc_keys)
    y: np.ndarray  # sorted, uint8
    w: np.ndarray  # sorted, float64
    n_pos: float
    n_neg: float


def as_labels(y_true: Any, name: str = "y_true") -> np.ndarray:
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise InputError(f"{name} must be one-dimensional, got shape {y.shape}")
    if y.dtype == bool:
        return y.astype(np.uint8)
    if y.dtype.kind in "iu" and y.size:
        ok = y.min() >= 0 and y.max() <= 1
    else:
        ok = bool(((y == 0) | (y == 1)).all()) if y.dtype.kind in "iuf" else False
    if y.size and not ok:
        bad = sorted({repr(v.item()) for v in np.unique(y) if v not in (0, 1)})[:5]
        raise InputError(f"{name} must hold only 0/1 or booleans, found {', '.join(bad)}")
    return y.astype(np.uint8)


def _as_scores(y_score: Any, n: int, name: str = "y_score") -> np.ndarray:
    s = np.ascontiguousarray(np.asarray(y_score, dtype=np.float64))
    if s.ndim != 1 or s.size != n:
        raise InputError(f"{name} must be one-dimensional with {n} values (as y_true), "
                         f"got shape {s.shape}")
    if not np.isfinite(s).all():
        raise InputError(f"{name} holds {int((~np.isfinite(s)).sum())} non-finite values "
                         "(nan or inf)")
    return s


def _as_weights(sample_weight: Any, n: int) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n, np.float64)
    w = np.ascontiguousarray(np.asarray(sample_weight, dtype=np.float64))
    if w.ndim != 1 or w.size != n:
        raise InputError(f"sample_weight must be one-dimensional with {n} values, got shape {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise InputError("sample_weight must be finite and non-negative")
    return w


def prepare_scores(y_true: Any, y_score: Any, sample_weight: Any = None, extra: Any = None,
             need_order: bool = False) -> tuple[_Prepared, np.ndarray | None]:
    """Validate, drop zero weights, sort by descending score (radix sort), group ties.

    Without ``extra`` / ``need_order`` the sort carries the signed weights (``+w`` positive,
    ``-w`` negative) as payload, so no random-access gather follows the sort.
    """
    y = as_labels(y_true)
    s = _as_scores(y_score, y.size)
    w = _as_weights(sample_weight, y.size)
    if sample_weight is not None:
        keep = w != 0
        if not keep.all():
            y, s, w = y[keep], s[keep], w[keep]
            extra = None if extra is None else np.asarray(extra)[keep]
    keys = kernels().desc_keys(s)
    order = None
    if extra is None and not need_order:
        sorted_keys, signed = kernels().radix_sort(keys, np.where(y == 1, w, -w))
        ys = (signed > 0).view(np.uint8)
        ws = np.abs(signed)
    else:
        sorted_keys, order = kernels().radix_sort(keys, np.arange(y.size))
        ys = np.ascontiguousarray(y[order])
        ws = np.ascontiguousarray(w[order])
        extra = None if extra is None else np.ascontiguousarray(np.asarray(extra)[order])
    ends = kernels().group_ends(sorted_keys) if y.size else np.empty(0, np.int64)
    pos = float(ws[ys == 1].sum())
    prep = _Prepared(order=order, ends=ends, keys=sorted_keys, y=ys, w=ws, n_pos=pos,
                     n_neg=float(ws.sum()) - pos)
    return prep, extra


def _warn(message: str) -> None:
    warnings.warn(message, UndefinedMetricWarning, stacklevel=3)


def _why_undefined(n_pos: float, n_neg: float, n: int) -> str | None:
    if n == 0:
        return "no samples (of non-zero weight)"
    if n_pos <= 0:
        return "no positive samples in y_true"
    if n_neg <= 0:
        return "no negative samples in y_true"
    return None


def degenerate(prep: _Prepared) -> str | None:
    return _why_undefined(prep.n_pos, prep.n_neg, prep.y.size)


def _split_sorted(y_true: Any, y_score: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validated positive and negative scores, each sorted ascending (unweighted fast path)."""
    y = as_labels(y_true)
    s = _as_scores(y_score, y.size)
    mask = y.view(bool)
    return np.sort(s[mask]), np.sort(s[~mask])


def _empty_curve() -> RocCurve:
    _warn("ROC curve undefined: no samples (of non-zero weight)")
    nan = np.array([np.nan])
    return RocCurve(fpr=nan, tpr=nan, thresholds=np.array([np.inf]))


def roc_curve(y_true: Any, y_score: Any, *, sample_weight: Any = None,
              drop_intermediate: bool = True) -> RocCurve:
    """ROC curve as ``sklearn.metrics.roc_curve`` (same points, thresholds and dropping rule).

    With one class only, the undefined rate is all ``nan`` (with a warning), as in scikit-learn.
    """
    if sample_weight is None:
        pos, neg = _split_sorted(y_true, y_score)
        if pos.size + neg.size == 0:
            return _empty_curve()
        thresholds, fps, tps = kernels().merge_curve(pos, neg)
    else:
        prep, _ = prepare_scores(y_true, y_score, sample_weight)
        if prep.y.size == 0:
            return _empty_curve()
        fps, tps = kernels().clf_curve(prep.ends, prep.y, prep.w)
        thresholds = kernels().keys_to_scores(prep.keys[prep.ends - 1])
    if drop_intermediate and fps.size > 2:
        keep = np.where(np.r_[True, np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), True])[0]
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    fps = np.r_[0.0, fps]
    tps = np.r_[0.0, tps]
    thresholds = np.r_[np.inf, thresholds]
    if fps[-1] <= 0:
        _warn("No negative samples in y_true, false positive rate is undefined (nan)")
        fpr = np.full(fps.shape, np.nan)
    else:
        fpr = fps / fps[-1]
    if tps[-1] <= 0:
        _warn("No positive samples in y_true, true positive rate is undefined (nan)")
        tpr = np.full(tps.shape, np.nan)
    else:
        tpr = tps / tps[-1]
    return RocCurve(fpr=fpr, tpr=tpr, thresholds=thresholds)


def roc_auc_score(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Area under the ROC curve (ties count one half), as ``sklearn.metrics.roc_auc_score``.

    Returns ``nan`` with an :class:`UndefinedMetricWarning` when only one class is present
    (scikit-learn raises instead).
    """
    if sample_weight is None:
        pos, neg = _split_sorted(y_true, y_score)
        why = _why_undefined(pos.size, neg.size, pos.size + neg.size)
        if why:
            _warn(f"AUC is undefined ({why}); returning nan")
            return float("nan")
        return float(kernels().merge_auc(pos, neg) / (float(pos.size) * float(neg.size)))
    prep, _ = prepare_scores(y_true, y_score, sample_weight)
    why = degenerate(prep)
    if why:
        _warn(f"AUC is undefined ({why}); returning nan")
        return float("nan")
    flags = np.zeros(prep.y.size, np.uint8)
    return float(kernels().metrics(prep.ends, prep.y, prep.w, flags, 0.0)[0])


def tpr_at_fpr(y_true: Any, y_score: Any, fpr: float = 0.05, *, sample_weight: Any = None) -> float:
    """The highest TPR among ROC points whose FPR is at most ``fpr`` (no interpolation).

    Equals ``tpr[searchsorted(fpr_curve, fpr, side="right") - 1]`` on scikit-learn's full curve.
    ``nan`` with a warning for a single class.
    """
    if not 0.0 <= float(fpr) <= 1.0:
        raise InputError(f"fpr must lie in [0, 1], got {fpr}")
    prep, _ = prepare_scores(y_true, y_score, sample_weight)
    why = degenerate(prep)
    if why:
        _warn(f"TPR at FPR={fpr} is undefined ({why}); returning nan")
        return float("nan")
    flags = np.zeros(prep.y.size, np.uint8)
    return float(kernels().metrics(prep.ends, prep.y, prep.w, flags, float(fpr))[1])


def rates_at_threshold(y_true: Any, y_score: Any = None, *, threshold: float | None = None,
                       flags: Any = None, sample_weight: Any = None) -> Rates:
    """TPR, FPR and precision of a decision: ``y_score >= threshold``, or boolean ``flags``.

    Give exactly one of ``threshold`` (with ``y_score``) or ``flags``. An undefined rate is ``nan``
    with a warning.
    """
    y = as_labels(y_true)
    if (threshold is None) == (flags is None):
        raise InputError("give exactly one of threshold= (with y_score) or flags=")
    if flags is not None:
        pred = np.asarray(flags)
        if pred.shape != y.shape:
            raise InputError(f"flags must have the shape of y_true {y.shape}, got {pred.shape}")
        pred = as_labels(pred, "flags").astype(bool)
    else:
        if y_score is None:
            raise InputError("threshold= needs y_score")
        assert threshold is not None  # checked above: exactly one of threshold and flags
        pred = _as_scores(y_score, y.size) >= float(threshold)
    w = _as_weights(sample_weight, y.size)
    pos = y == 1
    tp = float(w[pos & pred].sum())
    fn = float(w[pos & ~pred].sum())
    fp = float(w[~pos & pred].sum())
    tn = float(w[~pos & ~pred].sum())

    def ratio(a: float, b: float, what: str) -> float:
        if b <= 0:
            _warn(f"{what} is undefined (zero denominator); returning nan")
            return float("nan")
        return a / b

    return Rates(tpr=ratio(tp, tp + fn, "TPR"), fpr=ratio(fp, fp + tn, "FPR"),
                 precision=ratio(tp, tp + fp, "precision"), tp=tp, fp=fp, tn=tn, fn=fn)
