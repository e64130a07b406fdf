"""Rates a model card can quote: exact (Clopper–Pearson) intervals and what they rule out.

"0 of 200 guessed" alone says nothing about a rate; "at most 1.5% at 95%" does. A Stage I
repository with no hits in a few queries is not evidence of absence: :func:`queries_to_rule_out`
says how many queries it would take before "no hits" rules a hit rate out.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from scipy import stats

from ..errors import InputError


@dataclass(frozen=True)
class ExactRate:
    """``k`` of ``n`` with a two-sided exact interval and a one-sided upper bound (both at ``level``)."""

    k: int
    n: int
    level: float
    low: float
    high: float
    upper: float

    @property
    def rate(self) -> float:
        return self.k / self.n if self.n else float("nan")

    def sentence(self, what: str = "guessed") -> str:
        """``"0 of 200 guessed: at most 1.5% at 95%"``; ``"3 of 200 guessed: 1.5% [0.31%, 4.3%] at 95%"``."""
        pct = f"{self.level:.0%}"
        if self.n == 0:
            return f"0 of 0 {what}: too few (n=0) for a rate"
        if self.k == 0:
            return f"0 of {self.n} {what}: at most {_pct(self.upper)} at {pct}"
        return f"{self.k} of {self.n} {what}: {_pct(self.rate)} [{_pct(self.low)}, {_pct(self.high)}] at {pct}"

    def to_json(self) -> dict[str, float | int | None]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 6)
        return {"k": self.k, "n": self.n, "rate": num(self.rate), "level": self.level,
                "low": num(self.low), "high": num(self.high), "at_most": num(self.upper)}


def _pct(x: float) -> str:
    return f"{100 * x:.2g}%" if x < 0.1 else f"{100 * x:.1f}%"


def exact_rate(k: int, n: int, level: float = 0.95) -> ExactRate:
    """Clopper–Pearson interval of ``k`` successes in ``n`` (scipy's ``binomtest``, method exact).

    ``upper`` is the one-sided bound: for ``k = 0`` it is ``1 - (1 - level) ** (1 / n)``. ``n = 0``
    gives ``nan`` with a warning.
    """
    if not 0 < level < 1:
        raise InputError(f"level must be in (0, 1), got {level}")
    if n < 0 or not 0 <= k <= max(n, 0):
        raise InputError(f"exact_rate: need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        warnings.warn("exact_rate: n = 0, the rate and its interval are nan", RuntimeWarning, stacklevel=2)
        nan = float("nan")
        return ExactRate(k, n, level, nan, nan, nan)
    test = stats.binomtest(k, n)
    two = test.proportion_ci(level, method="exact")
    upper = 1.0 if k == n else float(stats.beta.ppf(level, k + 1, n - k))
    return ExactRate(k, n, level, float(two.low), float(two.high), upper)


def queries_to_rule_out(rate: float, level: float = 0.95) -> int:
    """Queries with no hit needed before a hit rate of ``rate`` is ruled out at ``level``
    (``ceil(log(1 - level) / log(1 - rate))``: 59 for 5% at 95%)."""
    if not 0 < rate < 1:
        raise InputError(f"rate must be in (0, 1), got {rate}")
    return math.ceil(math.log(1 - level) / math.log(1 - rate))
