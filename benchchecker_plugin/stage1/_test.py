"""The decision: are there more exact hits than chance allows?

Under the null hypothesis (the model never saw the repository) each query is a hit independently
with probability ``p0``: 0.08 for Python and 0.2 for Java by default (:data:`DEFAULT_P0`), or
calibrated per model on repositories known to be excluded from its training data
(:func:`calibrate_p0`). The one-sided binomial test gives ``P(X >= hits)``.

The entropy-weighted variant weights each hit by its target's entropy, quantised to integers
``1..levels`` (relative to the largest), so that the null distribution of the weighted hit sum is
computed exactly by convolution rather than approximated. With equal weights it is the binomial test.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..errors import DataError, InputError

DEFAULT_P0 = {"python": 0.08, "java": 0.2}


def _check_p0(p0: float) -> None:
    if not 0.0 < p0 < 1.0:
        raise InputError(f"p0 must be in (0, 1), got {p0}")


def binomial_test(hits: int, n: int, p0: float) -> float:
    """One-sided p-value ``P(Binomial(n, p0) >= hits)``; ``nan`` with a warning when ``n == 0``."""
    _check_p0(p0)
    if n < 0 or hits < 0 or hits > n:
        raise InputError(f"need 0 <= hits <= n, got hits={hits}, n={n}")
    if n == 0:
        warnings.warn("binomial test on zero queries: p-value is nan", RuntimeWarning, stacklevel=2)
        return math.nan
    return float(stats.binom.sf(hits - 1, n, p0))


def weighted_binomial_test(hit_flags: Sequence[bool], weights: Sequence[float], p0: float, *,
                           levels: int = 10) -> float:
    """Exact one-sided p-value of the weighted hit sum ``sum(w_i * hit_i)`` under independent
    Bernoulli(``p0``) hits, weights quantised to ``1..levels``; ``nan`` (warning) with no queries."""
    _check_p0(p0)
    h = np.asarray(hit_flags, dtype=bool)
    w = np.asarray(weights, dtype=float)
    if h.shape != w.shape:
        raise InputError(f"{h.size} hit flags but {w.size} weights")
    if h.size == 0:
        warnings.warn("weighted test on zero queries: p-value is nan", RuntimeWarning, stacklevel=2)
        return math.nan
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InputError("weights must be finite and >= 0")
    top = w.max()
    q = np.ones(w.size, dtype=np.int64) if top == 0 else \
        np.maximum(1, np.rint(levels * w / top)).astype(np.int64)
    dist = np.zeros(int(q.sum()) + 1)
    dist[0] = 1.0
    reach = 0
    for wi in q:
        new = dist[:reach + wi + 1] * 0.0
        new[:reach + 1] += dist[:reach + 1] * (1.0 - p0)
        new[wi:reach + wi + 1] += dist[:reach + 1] * p0
        reach += int(wi)
        dist[:reach + 1] = new
    observed = int(q[h].sum())
    return float(min(1.0, dist[observed:].sum()))


@dataclass(frozen=True)
class TestResult:
    """Outcome of the presence test on one repository."""

    __test__ = False  # not a pytest class

    hits: int
    queries: int
    p0: float
    p_value: float
    weighted_p_value: float
    alpha: float

    @property
    def hit_rate(self) -> float:
        return self.hits / self.queries if self.queries else math.nan

    @property
    def contaminated(self) -> bool | None:
        """``True`` when ``p_value < alpha``; ``None`` when there were no usable queries."""
        if math.isnan(self.p_value):
            return None
        return self.p_value < self.alpha


def presence_test(hit_flags: Sequence[bool], weights: Sequence[float] | None, *, p0: float,
                  alpha: float = 0.05) -> TestResult:
    """Both tests on one repository's query outcomes (``weights=None``: all equal)."""
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must be in (0, 1), got {alpha}")
    flags = [bool(h) for h in hit_flags]
    w = [1.0] * len(flags) if weights is None else [float(x) for x in weights]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = binomial_test(sum(flags), len(flags), p0)
        wp = weighted_binomial_test(flags, w, p0)
    if not flags:
        warnings.warn("no usable queries: the presence test is undecided", RuntimeWarning,
                      stacklevel=2)
    return TestResult(sum(flags), len(flags), p0, p, wp, alpha)


@dataclass(frozen=True)
class Calibration:
    """``p0`` estimated from repositories known to be excluded from a model's training data.

    ``p0`` is the pooled hit rate with a Jeffreys prior, ``(hits + 0.5) / (queries + 1)`` (never 0,
    so the test stays defined); ``upper`` is the 95% Clopper–Pearson upper bound of the rate, a
    conservative choice when few queries were available.
    """

    p0: float
    upper: float
    hits: int
    queries: int
    repos: int


def calibrate_p0(hits_per_repo: Sequence[tuple[int, int]]) -> Calibration:
    """Pool ``(hits, queries)`` of each excluded repository into a :class:`Calibration`."""
    if not hits_per_repo:
        raise InputError("calibration needs at least one excluded repository (hits_per_repo is empty)")
    hits = sum(h for h, _ in hits_per_repo)
    n = sum(q for _, q in hits_per_repo)
    if n == 0:
        raise DataError(f"calibration repositories produced no usable queries (0 queries over "
                        f"{len(hits_per_repo)} repositories)")
    upper = float(stats.binomtest(hits, n).proportion_ci(0.95, method="exact").high)
    return Calibration((hits + 0.5) / (n + 1), upper, hits, n, len(hits_per_repo))
