"""Bootstrap intervals for AUC, TPR at a fixed FPR, and the TPR / FPR / precision of flags.

The data are sorted once; each resample is then a vector of resample *counts* (how often each item
was drawn) used as weights in one linear pass over the sorted data: no re-sorting per resample. The
resamples run in parallel (numba ``prange``); resample ``b`` draws from its own random stream
seeded by ``(seed, b)``, so results are reproducible and independent of the thread count.

Intervals are percentile intervals; resamples in which a metric is undefined (one class drawn) are
left out of that metric's interval and counted in ``n_undefined`` (with a warning).

A plain proportion (a resolution rate) gets a Wilson score interval instead
(:func:`wilson_interval`): closed form, and never of width 0, where a bootstrap of a handful of
equal outcomes (all resolved, or none) resamples the same value every time.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from ..errors import InputError
from ..rescore_options import DEFAULT_N_BOOT, DEFAULT_SEED
from ._roc import UndefinedMetricWarning, as_labels, degenerate, kernels, prepare_scores

METRIC_NAMES = ("auc", "tpr_at_fpr", "tpr", "fpr", "precision")


@dataclass(frozen=True)
class BootstrapInterval:
    """A point estimate with a percentile bootstrap interval."""

    estimate: float
    low: float
    high: float
    n_boot: int
    n_undefined: int = 0

    def to_dict(self) -> dict[str, float | int]:
        return {"estimate": self.estimate, "ci_low": self.low, "ci_high": self.high,
                "n_boot": self.n_boot, "n_undefined": self.n_undefined}


@dataclass(frozen=True)
class DetectionMetrics:
    """How well scores and flags find the truly contaminated instances, each with an interval."""

    auc: BootstrapInterval
    tpr_at_fpr: BootstrapInterval
    tpr: BootstrapInterval
    fpr: BootstrapInterval
    precision: BootstrapInterval
    fpr_target: float
    n: int
    n_positive: int
    n_negative: int

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: getattr(self, name).to_dict() for name in METRIC_NAMES}
        out.update(fpr_target=self.fpr_target, n=self.n, n_positive=self.n_positive,
                   n_negative=self.n_negative)
        return out


def seed_key(seed: int) -> np.uint64:
    """The 64-bit stream key of an integer seed (via numpy's SeedSequence)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0]


def _check_boot(n_boot: int, ci: float) -> None:
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise InputError(f"n_boot must be a positive integer, got {n_boot!r}")
    if not 0.0 < ci < 1.0:
        raise InputError(f"ci must lie strictly between 0 and 1, got {ci!r}")


def percentile_interval(samples: np.ndarray, ci: float, axis: int = -1
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval over ``axis``, ignoring nan; all-nan slices give nan (no warning)."""
    alpha = (1.0 - ci) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-nan slices: nan is the answer
        q = np.nanquantile(samples, [alpha, 1.0 - alpha], axis=axis)
    return q[0], q[1]


def detection_metrics(y_true: Any, y_score: Any, *, flags: Any = None, fpr: float = 0.05,
                      sample_weight: Any = None, n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULT_SEED,
                      ci: float = 0.95) -> DetectionMetrics:
    """AUC, TPR at FPR <= ``fpr``, and TPR / FPR / precision of boolean ``flags`` (if given), each
    with a bootstrap interval from ``n_boot`` resamples of the items."""
    _check_boot(n_boot, ci)
    if not 0.0 <= float(fpr) <= 1.0:
        raise InputError(f"fpr must lie in [0, 1], got {fpr}")
    y = as_labels(y_true)
    if flags is None:
        flag_arr = np.zeros(y.size, np.uint8)
    else:
        flag_arr = np.asarray(flags)
        if flag_arr.shape != y.shape:
            raise InputError(f"flags must have the shape of y_true {y.shape}, got {flag_arr.shape}")
        flag_arr = as_labels(flag_arr, "flags")
    prep, flag_sorted = prepare_scores(y, y_score, sample_weight, extra=flag_arr)
    assert flag_sorted is not None
    why = degenerate(prep)
    if why:
        warnings.warn(f"detection metrics are undefined ({why}); returning nan",
                      UndefinedMetricWarning, stacklevel=2)
    point = kernels().metrics(prep.ends, prep.y, prep.w, flag_sorted, float(fpr))
    boots = kernels().bootstrap_metrics(prep.ends, prep.y, prep.w, flag_sorted, float(fpr),
                                       int(n_boot), seed_key(seed))
    low, high = percentile_interval(boots, ci, axis=0)
    undefined = np.isnan(boots).sum(axis=0)
    if not why and undefined[0]:
        warnings.warn(f"{int(undefined[0])} of {n_boot} resamples drew a single class; they are "
                      "left out of the AUC interval", UndefinedMetricWarning, stacklevel=2)
    intervals = {}
    for k, name in enumerate(METRIC_NAMES):
        est = float(point[k])
        if flags is None and name in ("tpr", "fpr", "precision"):
            intervals[name] = BootstrapInterval(float("nan"), float("nan"), float("nan"), int(n_boot),
                                                int(n_boot))
            continue
        intervals[name] = BootstrapInterval(est, float(low[k]), float(high[k]), int(n_boot),
                                            int(undefined[k]))
    return DetectionMetrics(**intervals, fpr_target=float(fpr), n=int(prep.y.size),
                            n_positive=int((prep.y == 1).sum()), n_negative=int((prep.y == 0).sum()))


def bootstrap_auc(y_true: Any, y_score: Any, *, sample_weight: Any = None, n_boot: int = DEFAULT_N_BOOT,
                  seed: int = DEFAULT_SEED, ci: float = 0.95) -> BootstrapInterval:
    """AUC with a percentile bootstrap interval (``n_boot`` resamples, reproducible by ``seed``)."""
    return detection_metrics(y_true, y_score, sample_weight=sample_weight, n_boot=n_boot,
                             seed=seed, ci=ci).auc


def wilson_interval(successes: Any, n: Any, ci: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of the proportion ``successes / n`` (scalars or arrays, broadcast).

    With ``z`` the normal quantile of ``(1 + ci) / 2`` and ``p = successes / n``::

        centre = (p + z²/2n) / (1 + z²/n),  half = z / (1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)

    The interval lies in [0, 1] and has positive width for every ``n >= 1``: 0 of ``n`` gives
    ``[0, z²/(n + z²)]``, ``n`` of ``n`` gives ``[n/(n + z²), 1]``. ``n = 0`` gives ``nan``.
    """
    if not 0.0 < ci < 1.0:
        raise InputError(f"ci must lie strictly between 0 and 1, got {ci!r}")
    k = np.asarray(successes, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    if np.any(m < 0) or np.any(k < 0) or np.any(k > m):
        raise InputError("wilson_interval needs 0 <= successes <= n")
    z = NormalDist().inv_cdf(0.5 + ci / 2.0)
    z2 = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / m
        denom = 1.0 + z2 / m
        centre = (p + z2 / (2.0 * m)) / denom
        half = z / denom * np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m))
        low = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return low, high
