"""The kernels' token stream and n-gram keys equal the pure-Python reference of normalize."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from benchchecker_plugin.overlap import _kernels as K
from benchchecker_plugin.overlap.normalize import ngram_key, normalize, token_hash, tokens
from benchchecker_plugin.overlap.scan import _powers, _tokenize


def test_normalisation_hand_cases() -> None:
    assert tokens("The ﬁrst  Straße, (is) don't_stop! ３") == ["the", "first", "strasse", "is", "don",
                                                               "t", "stop", "3"]
    assert normalize("Hello,World") == "hello world"


def test_fnv_is_stable() -> None:
    assert token_hash("") == 0xCBF29CE484222325
    assert token_hash("a") == 0xAF63DC4C8601EC8C   # FNV-1a 64 test vector


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("abcXYZ09 ,.!_-éÉßﬁ\n")), max_size=60),
                min_size=1, max_size=5))
def test_kernel_tokens_and_keys_equal_reference(texts: list[str]) -> None:
    th, _, _, doc_tok, _ = _tokenize(texts)
    pre = np.empty(th.size + 1, np.uint64)
    K.prefix(th, th.size, pre)
    powers = _powers(4)
    for d, text in enumerate(texts):
        ref = [token_hash(t) for t in tokens(text)]
        got = [int(h) for h in th[doc_tok[d]:doc_tok[d + 1]]]
        assert got == ref
        for k in range(1, 5):
            starts = np.arange(max(0, len(ref) - k + 1), dtype=np.int64)
            out = np.empty(starts.size, np.uint64)
            K.window_keys(pre, powers, doc_tok[d] + starts, np.full(starts.size, k, np.int64), out)
            assert [int(x) for x in out] == [ngram_key(ref[s:s + k]) for s in starts]
