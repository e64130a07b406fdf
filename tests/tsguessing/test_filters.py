"""The item filters: each rule fires on a hand-made item, and the fast similarity check agrees
with plain ``rouge-score``."""

from __future__ import annotations

import itertools
import random

import pytest

from benchchecker_plugin.tsguessing import (BenchmarkItem, DropReason, option_filter, question_filter,
                                            rouge_l_f1, similar)

CLEAN = ["a protruding mandible", "a recessive maxilla", "an enlarged frontal bone",
         "defective sinus development"]


@pytest.mark.parametrize("options, reason", [
    (["Yes", "the liver", "the kidney", "the spleen"], DropReason.YES_NO),
    (["no.", "the liver", "the kidney", "the spleen"], DropReason.YES_NO),
    (["True, True", "False, False", "the kidney", "the spleen"], DropReason.TRUE_FALSE),
    (["false", "the liver", "the kidney", "the spleen"], DropReason.TRUE_FALSE),
    (["All of the above", "the liver", "the kidney", "the spleen"], DropReason.ALL_NONE_OF_ABOVE),
    (["the liver", "none of these", "the kidney", "the spleen"], DropReason.ALL_NONE_OF_ABOVE),
    (["Both of the above", "the liver", "the kidney", "the spleen"], DropReason.ALL_NONE_OF_ABOVE),
    (["12", "the liver", "15 kg", "the spleen"], DropReason.NUMERIC),
    (["3 to 5", "6 - 8", "the kidney", "the spleen"], DropReason.NUMERIC),
    (["I and II only", "III only", "the kidney", "the spleen"], DropReason.NUMERIC),
    (["1, 2 and 3", "$4.50", "the kidney", "the spleen"], DropReason.NUMERIC),
    (["the left kidney is larger", "the right kidney is larger", "the liver", "the spleen"],
     DropReason.SIMILAR_OPTIONS),
    (["the liver", "the kidney", "the spleen"], DropReason.TOO_FEW_OPTIONS),
    (["the liver", "  ", "the kidney", "the spleen"], DropReason.TOO_FEW_OPTIONS),
])
def test_each_option_rule_fires(options: list[str], reason: DropReason) -> None:
    assert option_filter(options, answer=0) is reason


def test_clean_options_pass_and_one_numeric_option_is_fine() -> None:
    assert option_filter(CLEAN, answer=0) is None
    assert option_filter(["the liver", "12 apples", "the kidney", "the spleen"], answer=0) is None
    assert option_filter(["the liver", "1945", "the kidney", "the spleen"], answer=0) is None


def test_similarity_threshold_is_inclusive() -> None:
    # LCS 2 of 3 tokens each side: Rouge-L F1 = 2/3 >= 0.65 -> similar; 0.6 < 0.65 -> not.
    assert rouge_l_f1("red big dog", "red small dog") == pytest.approx(2 / 3)
    assert similar("red big dog", "red small dog")
    assert rouge_l_f1("a b c d e", "a b c x y") == pytest.approx(0.6)
    assert not similar("a b c d e", "a b c x y")


def test_fast_similarity_equals_rouge_score_on_random_pairs() -> None:
    rng = random.Random(3)
    vocab = ["cat", "dog", "red", "blue", "the", "runs", "fast", "slow", "big"]
    texts = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 6))) for _ in range(60)]
    for a, b in itertools.combinations(texts, 2):
        assert similar(a, b) == (rouge_l_f1(a, b) >= 0.65), (a, b)


def _item(question: str, benchmark: str = "truthfulqa", category: str = "Misconceptions") -> BenchmarkItem:
    return BenchmarkItem(benchmark, "0", question, ("x", "y", "z", "w"), 0, {"category": category})


def test_question_rules() -> None:
    assert question_filter(_item("Who wrote Hamlet, really?")) is DropReason.TOO_SHORT  # 4 words
    assert question_filter(_item("Who wrote the play Hamlet?")) is None  # 5 words
    assert question_filter(_item("What time is it right now?", category="Indexical Error: Time")) \
        is DropReason.MEANINGLESS_CATEGORY
    # The category rule is TruthfulQA's only.
    assert question_filter(_item("What time is it right now?", "mmlu", "Indexical Error: Time")) is None
