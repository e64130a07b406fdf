"""Issue 37: Rouge-L over two 1 MB options made of the same words built a table of the product
of their lengths and exhausted memory. Each side is now compared on its first
``ROUGE_MAX_TOKENS`` tokens, with a warning saying so."""

from __future__ import annotations

import time

import pytest

from benchchecker_plugin.tsguessing._scoring import ROUGE_MAX_TOKENS, rouge_l_f1, score_guess


def test_two_megabyte_options_are_compared_in_bounded_time() -> None:
    big = "alpha beta " * 100_000   # ~1.1 MB, 200k tokens
    rouge_l_f1("warm", "up")   # rouge-score's import (nltk) is no part of the comparison
    start = time.perf_counter()
    with pytest.warns(RuntimeWarning, match=f"first {ROUGE_MAX_TOKENS} tokens of a longer text"):
        value = rouge_l_f1(big, big)
    assert value == 1.0 and time.perf_counter() - start < 5.0


def test_a_long_answer_is_capped_too() -> None:
    with pytest.warns(RuntimeWarning, match="Rouge-L compared the first"):
        score = score_guess("x " * 5000, "x " * 3)
    assert score.rouge_l == pytest.approx(2 * 3 / (3 + ROUGE_MAX_TOKENS))


def test_short_texts_are_scored_as_before(recwarn: pytest.WarningsRecorder) -> None:
    assert rouge_l_f1("the cat sat", "the cat sat on the mat") == pytest.approx(2 * 0.5 / 1.5)
    text = "w " * ROUGE_MAX_TOKENS
    assert rouge_l_f1(text, text) == 1.0
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
