"""The four logit membership-inference scores, all from one :class:`TokenScores` per text.

Every score is oriented so that higher means "more likely a training member":

* ``loss``      — mean token log-probability (negative loss; Yeom et al. 2018);
* ``zlib``      — ``-(mean NLL / zlib-compressed length in bytes)`` (Carlini et al. 2021);
* ``min_k``     — mean of the lowest ``k`` fraction of token log-probabilities (Shi et al. 2024);
* ``min_k_pp``  — the same on ``(log p(x_t) - mu_t) / sigma_t``, mu/sigma the mean and standard
  deviation of log p(z) under p at each position (Min-K%++, Zhang et al. 2024).

A text with no scored token gives ``nan`` (with a warning), never a made-up value.
"""

from __future__ import annotations

import math
import warnings
import zlib
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..models import TokenScores

METHODS = ("loss", "zlib", "min_k", "min_k_pp")


@dataclass(frozen=True)
class LogitScores:
    """The four scores of one text and the number of tokens they rest on."""

    loss: float
    zlib: float
    min_k: float
    min_k_pp: float
    n_tokens: int

    def get(self, method: str) -> float:
        if method not in METHODS:
            raise InputError(f"unknown baseline {method!r} (choose from {', '.join(METHODS)})")
        return float(getattr(self, method))


def _lowest_mean(values: np.ndarray, k: float) -> float:
    n = max(1, int(math.ceil(k * values.size)))
    return float(np.mean(np.sort(values)[:n]))


def min_k(logprobs: np.ndarray, k: float = 0.2) -> float:
    """Mean of the lowest ``ceil(k * n)`` log-probabilities."""
    if not 0 < k <= 1:
        raise InputError(f"min_k: k must be in (0, 1], got {k}")
    return _lowest_mean(np.asarray(logprobs, dtype=float), k)


def min_k_plus_plus(logprobs: np.ndarray, mu: np.ndarray, sigma: np.ndarray, k: float = 0.2) -> float:
    """Min-K%++: lowest-``k`` mean of ``(logprob - mu) / sigma`` (sigma floored at 1e-6)."""
    if not 0 < k <= 1:
        raise InputError(f"min_k_plus_plus: k must be in (0, 1], got {k}")
    lp, m, s = (np.asarray(a, dtype=float) for a in (logprobs, mu, sigma))
    if not (lp.shape == m.shape == s.shape):
        raise InputError(f"logprobs, mu and sigma differ in length: {lp.size}, {m.size}, {s.size}")
    return _lowest_mean((lp - m) / np.maximum(s, 1e-6), k)


def logit_scores_of(scores: TokenScores, text: str, *, k: float = 0.2) -> LogitScores:
    """All four scores of ``text`` from its token scores."""
    lp = np.asarray(scores.logprobs, dtype=float)
    if lp.size == 0:
        warnings.warn(f"text of {len(text)} characters has no scored token; its scores are nan",
                      RuntimeWarning, stacklevel=2)
        return LogitScores(math.nan, math.nan, math.nan, math.nan, 0)
    nll = float(-lp.mean())
    zbytes = len(zlib.compress(text.encode("utf-8")))
    mpp = math.nan
    if np.asarray(scores.mu).size == lp.size and np.asarray(scores.sigma).size == lp.size:
        mpp = min_k_plus_plus(lp, scores.mu, scores.sigma, k)
    return LogitScores(-nll, -nll / zbytes, min_k(lp, k), mpp, int(lp.size))
