"""The item filters: each rule fires on a hand-made item, and the fast paths (similarity bounds,
pre-checks on rouge tokens) agree with the plain rules and ``rouge-score``."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rouge_score import tokenize as rouge_tokenize

from benchchecker_plugin.tsguessing import (
    SIMILARITY_THRESHOLD,
    BenchmarkItem,
    DropReason,
    normalize,
    option_filter,
    question_filter,
    rouge_l_f1,
    similar,
)
from benchchecker_plugin.tsguessing import _filters as filters

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


# ------------------------------------------------------ the fast paths equal the plain rules

_PIECES = ["yes", "No", "true", "FALSE", "the", "a", "an", "of", "all", "none", "both", "above", "these",
           "theſe", "THOSE", "them", "İ", "ı", "K", "I", "II", "iv", "x", "12", "3.5", "٣", "$4", "10%", "kg",
           "cat", "dog", "red", "runs", "wrong", "Wrong", "not", "é", "_", "-", ",", ".", "(", ")", "!", ";"]
_SEPARATORS = ["", " ", "  ", "\t", ", ", "-", "\n"]
_texts = st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_SEPARATORS)), max_size=9).map(
    lambda parts: "".join(p + s for p, s in parts))
# phrases near each rule, with articles, punctuation, case and look-alike letters around them
_PHRASES = ["yes", "no", "true", "false", "true, false", "False false", "all of the above", "all the above",
            "none of these", "Both of them", "neither of those", "any of theſe", "all of them", "12",
            "3 to 5", "I and III only", "$4.50", "1945", "ıı", "İ and V", "٣ kg", "the cat runs",
            "a red dog", "Wrong, Not wrong", "Wrong, Wrong", "not wrong"]
_phrase_options = st.builds(lambda pre, phrase, end, upper: (pre + phrase + end).upper() if upper
                            else pre + phrase + end,
                            st.sampled_from(["", "a ", "an ", "the ", "The ", "(", "-", "_", "all "]),
                            st.sampled_from(_PHRASES),
                            st.sampled_from(["", ".", "!", " ", ")", "é", " the", " x", " 7"]), st.booleans())
_options = st.one_of(_phrase_options, _texts)


def _reference_option_filter(options: list[str], answer: int) -> DropReason | None:
    """The rules of :func:`option_filter` applied plainly: every option, every pair, rouge-score."""
    if len(options) - 1 < 3 or any(not o.strip() for o in options):
        return DropReason.TOO_FEW_OPTIONS
    words = [normalize(o).split() for o in options]
    if any(w in (["yes"], ["no"]) for w in words):
        return DropReason.YES_NO
    if any(w and set(w) <= {"true", "false"} for w in words):
        return DropReason.TRUE_FALSE
    if any(filters._ABOVE.search(o) for o in options):
        return DropReason.ALL_NONE_OF_ABOVE
    if sum(filters._is_numeric(o) for o in options) >= 2:
        return DropReason.NUMERIC
    if any(rouge_l_f1(a, b) >= SIMILARITY_THRESHOLD for a, b in itertools.combinations(options, 2)):
        return DropReason.SIMILAR_OPTIONS
    return None


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(), _texts))
def test_tokens_are_rouge_scores_tokens(text: str) -> None:
    assert filters._rouge_tokens(text) == rouge_tokenize.tokenize(text, None)


@settings(max_examples=500, deadline=None)
@example(options=["The yes.", "the liver", "the kidney", "the spleen"])
@example(options=["the liver", "a No", "the kidney", "the spleen"])
@example(options=["the liver", "the kidney", "An true, the false!", "the spleen"])
@example(options=["the liver", "the kidney", "the spleen", "(ALL THE ABOVE)"])
@given(options=st.lists(_options, min_size=3, max_size=5))
def test_option_filter_equals_the_plain_rules(options: list[str]) -> None:
    assert option_filter(options, answer=0) is _reference_option_filter(options, 0)


_similar_texts = st.one_of(*[
    st.lists(st.tuples(st.sampled_from(words), st.sampled_from([" ", ", ", "-", "."])), max_size=12).map(
        lambda parts: "".join(p + s for p, s in parts))
    for words in (["cat", "dog"], ["cat", "dog", "Red", "the", "wrong", "not", "runs", "7"])])


@settings(max_examples=600, deadline=None)
@example(a="cat dog cat", b="cat", threshold=SIMILARITY_THRESHOLD)  # prefix and suffix must not overlap
@given(a=_similar_texts, b=_similar_texts,
       threshold=st.one_of(st.just(SIMILARITY_THRESHOLD), st.floats(0.0, 1.0),
                           st.sampled_from([0.0, 0.5, 0.8, 1.0])))
def test_pruned_decision_equals_rouge_score(a: str, b: str, threshold: float) -> None:
    """Soundness of the bounds: when they decide, rouge-score decides the same."""
    plain = rouge_l_f1(a, b) >= threshold
    assert similar(a, b, threshold) is plain
    verdict = filters._bounded_verdict(filters._bag(a), filters._bag(b), threshold)
    assert verdict is None or verdict is plain


def test_pruning_at_the_threshold_boundary() -> None:
    # b shares a prefix (or a suffix) of `shared` tokens with a, so F1 = 2 shared / (na + nb) exactly:
    # every size up to 14 + 14 steps F1 across the threshold, and some land on it (13/20 = 0.65).
    for na, nb in itertools.product(range(1, 15), repeat=2):
        a = [f"w{i}" for i in range(na)]
        for shared in range(min(na, nb) + 1):
            prefix = " ".join(a[:shared] + [f"v{i}" for i in range(nb - shared)])
            suffix = " ".join([f"v{i}" for i in range(nb - shared)] + a[na - shared:])
            for b in (prefix, suffix):
                assert similar(" ".join(a), b) is (rouge_l_f1(" ".join(a), b) >= SIMILARITY_THRESHOLD), b


def test_bounds_decide_without_rouge_score_where_they_can() -> None:
    bag = filters._bag
    # prefix + suffix = 2 of 2 and 3 tokens: F1 >= 0.8
    assert filters._bounded_verdict(bag("Wrong, Wrong"), bag("Wrong, Not wrong"), 0.65) is True
    # no shared token
    assert filters._bounded_verdict(bag("the liver"), bag("a big kidney"), 0.65) is False
    # shared tokens in a different order: only the LCS decides
    assert filters._bounded_verdict(bag("red dog cat"), bag("cat dog red"), 0.65) is None
