"""Exact (Clopper–Pearson) rates and what they rule out, against hand-computed values."""

from __future__ import annotations

import math

import pytest

from benchchecker_plugin.check import exact_rate, queries_to_rule_out
from benchchecker_plugin.errors import InputError


def test_zero_of_n_gives_the_closed_form_upper_bound() -> None:
    r = exact_rate(0, 200)
    assert r.upper == pytest.approx(1 - 0.05 ** (1 / 200))          # 1.487%
    assert r.low == 0.0 and r.high == pytest.approx(1 - 0.025 ** (1 / 200))
    assert r.sentence() == "0 of 200 guessed: at most 1.5% at 95%"
    assert exact_rate(0, 10).sentence("hits") == "0 of 10 hits: at most 25.9% at 95%"


def test_interval_matches_the_beta_quantiles() -> None:
    from scipy import stats

    r = exact_rate(3, 200)
    assert r.low == pytest.approx(stats.beta.ppf(0.025, 3, 198))
    assert r.high == pytest.approx(stats.beta.ppf(0.975, 4, 197))
    assert r.sentence() == "3 of 200 guessed: 1.5% [0.31%, 4.3%] at 95%"
    assert exact_rate(5, 5).upper == 1.0


def test_queries_needed_and_degenerate_input() -> None:
    assert queries_to_rule_out(0.05) == 59       # 0.95**58 = 0.0510 > 0.05 >= 0.95**59
    assert 0.95 ** 58 > 0.05 >= 0.95 ** 59
    with pytest.warns(RuntimeWarning, match="n = 0"):
        assert math.isnan(exact_rate(0, 0).rate)
    with pytest.raises(InputError, match="need 0 <= k <= n, got k=3, n=2"):
        exact_rate(3, 2)
