import math

import numpy as np
import pytest

from benchchecker_plugin.baselines import baseline_flags, logit_scores, repo_logit_scores
from benchchecker_plugin.models import TokenScores


class CharModel:
    """A stand-in LogprobModel: every character is a token with log p = -len(text)/10."""

    spec = "char"

    def __init__(self, fail_on=None):
        self.calls = []
        self.fail_on = fail_on

    def generate(self, prompts, params):
        raise NotImplementedError

    def token_scores(self, texts):
        self.calls.append(list(texts))
        if self.fail_on and any(self.fail_on in t for t in texts):
            raise RuntimeError("out of memory")
        return [TokenScores(tuple(t[1:]), tuple((i, i + 1) for i in range(1, len(t))),
                            np.full(len(t) - 1, -len(t) / 10), np.zeros(len(t) - 1),
                            np.ones(len(t) - 1)) for t in texts]


def test_one_forward_pass_per_batch_serves_all_four():
    m = CharModel()
    out = logit_scores(m, ["aaaa", "bb", "cccccc"], batch_size=2)
    assert m.calls == [["aaaa", "bb"], ["cccccc"]]
    assert [s.loss for s in out] == pytest.approx([-0.4, -0.2, -0.6])


def test_failed_batch_gives_nan_not_a_value():
    with pytest.warns(RuntimeWarning, match="token scoring failed"):
        out = logit_scores(CharModel(fail_on="bad"), ["good", "bad!"], batch_size=1)
    assert out[0].loss == pytest.approx(-0.4) and math.isnan(out[1].loss)


def test_repo_aggregation_is_token_weighted_and_flags():
    res = repo_logit_scores(CharModel(), {"r1": ["aa", "aaaaa"], "r2": ["zzz"]})
    # r1: file losses -0.2 (1 token) and -0.5 (4 tokens)
    assert res[0].scores["loss"] == pytest.approx((-0.2 * 1 + -0.5 * 4) / 5)
    assert res[0].n_tokens == 5 and res[1].files == 1
    flags = baseline_flags(res, model="char")
    assert {f.method for f in flags} == {"benchchecker.baseline.loss", "benchchecker.baseline.zlib",
                                         "benchchecker.baseline.min_k", "benchchecker.baseline.min_k_pp"}
    assert all(f.benchmark == "repo" and f.contaminated is None for f in flags)
    assert {f.instance_id for f in flags} == {"r1", "r2"}
