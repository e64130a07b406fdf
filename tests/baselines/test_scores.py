import math
import zlib

import numpy as np
import pytest

from benchchecker_plugin.baselines import LogitScores, logit_scores_of, min_k, min_k_plus_plus
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.models import TokenScores


def _ts(lp, mu=None, sigma=None):
    n = len(lp)
    return TokenScores(tuple("t" * n), tuple((i, i + 1) for i in range(n)), np.array(lp, float),
                       np.array(mu if mu is not None else [0.0] * n, float),
                       np.array(sigma if sigma is not None else [1.0] * n, float))


def test_min_k_hand_computed():
    lp = [-1.0, -5.0, -0.5, -3.0, -2.0, -0.1, -0.2, -4.0, -0.3, -0.4]
    assert min_k(lp, 0.2) == pytest.approx((-5.0 - 4.0) / 2)
    assert min_k(lp, 1.0) == pytest.approx(np.mean(lp))
    assert min_k([-2.0], 0.2) == -2.0  # at least one token


def test_min_k_plus_plus_hand_computed():
    lp = [-1.0, -2.0, -3.0, -4.0, -5.0]
    mu = [-1.0, -1.0, -1.0, -1.0, -1.0]
    sigma = [1.0, 2.0, 1.0, 4.0, 2.0]
    z = [0.0, -0.5, -2.0, -0.75, -2.0]
    assert min_k_plus_plus(lp, mu, sigma, 0.4) == pytest.approx(np.mean(sorted(z)[:2]))
    with pytest.raises(ValueError, match="differ in length"):
        min_k_plus_plus(lp, mu[:2], sigma, 0.2)


def test_all_four_from_one_token_scores():
    text = "def f(x):\n    return x + 1\n"
    lp = [-0.5, -2.0, -1.0, -0.25]
    s = logit_scores_of(_ts(lp, mu=[-1.0] * 4, sigma=[0.5] * 4), text, k=0.5)
    nll = -np.mean(lp)
    assert s.loss == pytest.approx(-nll)
    assert s.zlib == pytest.approx(-nll / len(zlib.compress(text.encode())))
    assert s.min_k == pytest.approx(-1.5)
    assert s.min_k_pp == pytest.approx(np.mean([(-2.0 + 1) / 0.5, (-1.0 + 1) / 0.5]))
    assert s.n_tokens == 4 and s.get("min_k") == s.min_k
    with pytest.raises(InputError, match="unknown baseline 'perplexity'"):
        s.get("perplexity")


def test_memorised_text_scores_higher_on_every_method():
    seen = logit_scores_of(_ts([-0.1] * 10, mu=[-2.0] * 10, sigma=[1.0] * 10), "a" * 40)
    unseen = logit_scores_of(_ts([-3.0] * 10, mu=[-2.0] * 10, sigma=[1.0] * 10), "a" * 40)
    for m in ("loss", "zlib", "min_k", "min_k_pp"):
        assert seen.get(m) > unseen.get(m)


def test_empty_text_is_nan_with_warning():
    with pytest.warns(RuntimeWarning, match="no scored token"):
        s = logit_scores_of(_ts([]), "x")
    assert isinstance(s, LogitScores) and math.isnan(s.loss) and s.n_tokens == 0
