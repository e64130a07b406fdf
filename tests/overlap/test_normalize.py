"""The kernels' token stream and n-gram keys equal the pure-Python reference of normalize."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from benchchecker_plugin.overlap import _kernels as K
from benchchecker_plugin.overlap import ngram_key, normalize, token_hash, tokens
from benchchecker_plugin.overlap._scan import _powers, _tokenize


def test_normalisation_hand_cases() -> None:
    assert tokens("The ﬁrst  Straße, (is) don't_stop! ３") == ["the", "first", "strasse", "is", "don",
                                                               "t", "stop", "3"]
    assert normalize("Hello,World") == "hello world"


def test_fnv_is_stable() -> None:
    assert token_hash("") == 0xCBF29CE484222325
    assert token_hash("a") == 0xAF63DC4C8601EC8C   # FNV-1a 64 test vector


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("abcXYZ09 ,.!_-éÉßﬁ\n—“”·３٣\u0301中\U0001d400😀\ud800")),
                        max_size=60), min_size=1, max_size=5))
def test_kernel_tokens_and_keys_equal_reference(texts: list[str]) -> None:
    tok = _tokenize(texts)
    th, doc_tok, pre = tok.th, tok.doc_tok, tok.pre
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


def test_alnum_table_is_the_regex_on_every_code_point() -> None:
    import re

    from benchchecker_plugin.overlap._normalize import alnum_bits

    bits = np.unpackbits(alnum_bits().view(np.uint8), bitorder="little").astype(bool)
    keep = re.compile(r"[\W_]")
    sample = list(range(0, 0x3000)) + list(range(0xD7F0, 0xE010)) + list(range(0x10FF00, 0x110000))
    assert [bool(bits[c]) for c in sample] == [keep.match(chr(c)) is None for c in sample]
    assert bits.size == 0x110000 and int(bits.sum()) == sum(chr(c).isalnum() for c in range(0x110000))
