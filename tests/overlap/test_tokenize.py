"""The one-pass kernel equals the step-by-step reference of the normaliser on every document:
token hashes, and raw spans that quote the text as stored."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchchecker_plugin.overlap._normalize import ngram_key, token_hash, token_spans, tokens
from benchchecker_plugin.overlap._tokenize import tokenize_texts

#: pieces that start (or break) every construct the normaliser reads through
FRAGMENTS = ["a", "B", "z9", " ", "\t", "\n", "\r", "\r\n", "-", "\u2010", "\\", "\\\\", "u", "U",
             "x", "n", "00e9", "d83d", "\\ude00", "0041", "0001F600", "&", "amp;", "lt;", "gt;",
             "#", "#x", "27;", "8217;", "fjlig;", "acE;", "nbsp;", ";", "<", ">", "/", "!", "?",
             "]", "(", ")", "[", "Ã", "©", "â", "€", "™", "Õ", "Ò", "Ð", "s", "é", "e\u0301",
             "\u0301", "½", "ﬁ", "ß", "Ⅻ", "３", "٣", "\u00ad", "\u200b", "\ud800", "😀", "中",
             "\u093f", "—", "“", "_", "'", "\"", "p", "br", "-\n", "re-\n  make", "a-\r\nb", ",", "1",
             "23", "400,000", "7,12", "1,2345"]


def _spans(tok, d: int) -> list[tuple[int, int, int]]:
    return [(int(tok.th[i]), int(tok.ts[i]), int(tok.te[i]))
            for i in range(int(tok.doc_tok[d]), int(tok.doc_tok[d + 1]))]


def _reference(text: str) -> list[tuple[int, int, int]]:
    return [(token_hash(t.token), t.start, t.end) for t in token_spans(text)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join), min_size=1, max_size=4))
def test_kernel_equals_reference(texts: list[str]) -> None:
    tok = tokenize_texts(texts)
    for d, text in enumerate(texts):
        assert _spans(tok, d) == _reference(text), text


def test_a_document_of_more_tokens_than_bytes() -> None:
    text = "\ufdfa" * 50
    tok = tokenize_texts([text])
    assert _spans(tok, 0) == _reference(text) and len(_spans(tok, 0)) == 151   # words run together


def test_hand_cases() -> None:
    cases = {
        "The ﬁrst  Straße, (is) don't_stop! ３": ["the", "first", "strasse", "is", "don", "t", "stop", "3"],
        "caf\\u00e9 \\\\u00e9t\\u00c9": ["cafe", "etE".lower()],
        "line\\nThe end": ["line", "the", "end"],
        "&lt;b&gt;bold&lt;/b&gt; x&amp;y &#8217;s &#x41;": ["bold", "x", "y", "s", "a"],
        "<p class=\"q\">Which <em>planet</em></p>": ["which", "planet"],
        "see [the docs](https://x.org/a) now": ["see", "the", "docs", "now"],
        "contami-\nnation and well-\n  known, but Smith-\nJones": ["contamination", "and", "wellknown",
                                                                  "but", "smith", "jones"],
        "neighborÕs ÒquoteÓ": ["neighbor", "s", "quote"],
        "donâ€™t Ã©t\u00e9": ["don", "t", "ete"],
        "e\u0301te\u0301 ½": ["ete", "1", "2"],
        "soft\u00adhy\u200bphen": ["softhyphen"],
        "$400,000 and 1,2,3 or 12,3456": ["400000", "and", "1", "2", "3", "or", "12", "3456"],
    }
    for text, expected in cases.items():
        assert tokens(text) == expected, text
        tok = tokenize_texts([text])
        assert _spans(tok, 0) == _reference(text)


def test_raw_spans_quote_the_stored_text() -> None:
    item = "Which element has the symbol ‘Fe’? — iron (α-ferrite)"
    stored = [json.dumps(item), json.dumps(item, ensure_ascii=False), json.dumps(json.dumps(item)),
              f"<td>{item.replace('‘', '&lsquo;')}</td>",
              item.replace("symbol ", "sym-\nbol ")]
    want = tokens(item)
    tok = tokenize_texts(stored)
    for d, raw in enumerate(stored):
        got = _spans(tok, d)
        assert [h for h, _, _ in got] == [token_hash(t) for t in want], raw
        assert tokens(" ".join(raw[s:e] for _, s, e in got)) == want
    assert [stored[0][s:e] for _, s, e in _spans(tok, 0)][-2:] == ["\\u03b1", "ferrite"]


def test_fnv_is_stable() -> None:
    assert token_hash("") == 0xCBF29CE484222325
    assert token_hash("a") == 0xAF63DC4C8601EC8C   # FNV-1a 64 test vector
    assert ngram_key([1, 2]) != ngram_key([2, 1]) and ngram_key([]) != 0


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD"])
def test_unicode_forms_of_one_text_agree(form: str) -> None:
    text = "Ångström's naïve café: ﬁve Ⅻ déjà-vu, Straße"
    assert tokens(unicodedata.normalize(form, text)) == tokens(text)
