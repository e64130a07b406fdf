"""Masking: seeded, order-independent, never the correct option; content-word choice."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchchecker_plugin.models import TokenScores
from benchchecker_plugin.tsguessing import (
    MASK,
    STOP_WORDS,
    BenchmarkItem,
    MaskedWord,
    content_key,
    content_words,
    mask_option,
    mask_word,
    select_options,
    similar,
)


def _item(n_options: int = 4, answer: int = 2, iid: str = "anatomy/7") -> BenchmarkItem:
    return BenchmarkItem("mmlu", iid, "Which bone is largest?",
                         tuple(f"option {i}" for i in range(n_options)),
                         answer, {"subject": "anatomy"})


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**9), answer=st.integers(0, 3), iid=st.text(min_size=1, max_size=12))
def test_never_masks_the_correct_option(seed: int, answer: int, iid: str) -> None:
    m = mask_option(_item(answer=answer, iid=iid), seed)
    assert m.masked != answer and m.answer == answer
    assert m.shown == (0, 1, 2, 3)


def test_seeded_deterministic_and_varies_with_seed() -> None:
    item = _item()
    assert mask_option(item, 5) == mask_option(item, 5)
    assert len({mask_option(item, s).masked for s in range(40)}) == 3  # every wrong option occurs


def test_choice_does_not_depend_on_other_items() -> None:
    a = _item(iid="x/1")
    assert mask_option(a, 0) == mask_option(a, 0, None)
    assert mask_option(a, 0).masked in (0, 1, 3)


def test_the_draw_is_keyed_by_the_items_content_not_its_id() -> None:
    """Harnesses name one question differently (lm-eval ``1``, Inspect ``q001``): same probe."""
    ids = ["1", "q001", "anatomy/7", "Mercury_7001"]
    assert len({mask_option(_item(iid=i), s) for i in ids for s in (0,)}) == 1
    assert len({select_options(_item(6, iid=i), 3) for i in ids}) == 1
    spaced = BenchmarkItem("other", "q9", "  Which   bone\nis largest? ",
                           tuple(f"option  {i} " for i in range(4)), 2)
    assert content_key(spaced) == content_key(_item())
    # pinned: the SHA-256 of the JSON of the normalised question and options
    text = json.dumps(["Which bone is largest?", [f"option {i}" for i in range(4)]])
    assert content_key(_item()) == hashlib.sha256(text.encode()).hexdigest()
    # other content draws independently: over 60 questions every wrong option is masked
    drawn = Counter(mask_option(BenchmarkItem("mmlu", "0", f"Question {k}?",
                                              tuple(f"option {i}" for i in range(4)), 2), 0).masked
                    for k in range(60))
    assert set(drawn) == {0, 1, 3}


def test_select_options_for_many_options_keeps_correct_and_avoids_similar() -> None:
    item = BenchmarkItem("truthfulqa", "3", "q", ("right answer here", "you get sick", "you get very sick",
                                                  "nothing at all", "you die", "watermelons grow"), 0)
    for seed in range(20):
        shown = select_options(item, seed, similar=similar)
        assert shown[0] == 0 and len(shown) == 4 and list(shown) == sorted(shown)
        texts = [item.options[i] for i in shown]
        assert not ("you get sick" in texts and "you get very sick" in texts)
        assert mask_option(item, seed, shown).masked in shown[1:]


def test_content_words_and_proper_nouns() -> None:
    words = content_words("Who composed the Moonlight Sonata? Beethoven did, in Vienna.")
    assert [(c.word, c.proper_noun) for c in words] == [
        ("composed", False), ("Moonlight", True), ("Sonata", True), ("Beethoven", False), ("Vienna", True)]


def test_mask_word_prefers_proper_nouns_then_longest() -> None:
    m = mask_word("What happens to you if you eat watermelon seeds?")
    assert m is not None and m.word == "watermelon" and not m.proper_noun
    assert m.masked_question == f"What happens to you if you eat {MASK} seeds?"
    m = mask_word("Which element did scientists at Berkeley discover?")
    assert m is not None and m.word == "Berkeley" and m.proper_noun
    assert mask_word("What is it that you do?") is None


def test_repeated_words_are_not_masked() -> None:
    m = mask_word("The enzyme amylase breaks starch; which enzyme breaks protein?")
    assert m is not None and m.word != "enzyme"


class _Reference:
    """A stand-in reference LM with hand-set per-character log-probabilities."""

    spec = "test/reference"

    def __init__(self, surprising: str) -> None:
        self.surprising = surprising

    def generate(self, prompts, params):  # pragma: no cover - not used
        raise NotImplementedError

    def token_scores(self, texts):
        text = texts[0]
        start = text.index(self.surprising)
        offsets = tuple((i, i + 1) for i in range(1, len(text)))
        lps = np.array([-9.0 if start <= a < start + len(self.surprising) else -1.0 for a, _ in offsets])
        return [TokenScores(tuple(text[a:b] for a, b in offsets), offsets, lps)]


def test_reference_model_picks_least_predictable_word() -> None:
    q = "What happens to you if you eat watermelon seeds?"
    assert mask_word(q, _Reference("seeds")).word == "seeds"
    assert mask_word(q, _Reference("eat")).word == "eat"
    assert mask_word(q, _Reference("you")).word != "you"  # a stop word is never a candidate


# --------------------------------------------- content words: the fast path equals the rules

_Q_PIECES = ["Which", "the", "Paris", "paris", "NASA", "enzyme", "Enzyme", "don't", "well-known", "x", "ab",
             "cell", "cell-", "'tis", "A", "I", "DNA", "Mr", "Who", "watermelon", "é", "İ", "K", "42", "_",
             "   ", "\t"]
_Q_SEPARATORS = [" ", "  ", ". ", "? ", ": ", "(", "\n", "\t", ", ", "\"", "-", "'", ""]
_questions = st.lists(st.tuples(st.sampled_from(_Q_PIECES), st.sampled_from(_Q_SEPARATORS)), max_size=14).map(
    lambda parts: "".join(p + s for p, s in parts))


def _reference_content_words(question: str) -> list[tuple[str, int, bool]]:
    """The rules of the masking module's docstring, applied word by word."""
    matches = list(re.finditer(r"[A-Za-z][A-Za-z'\-]*[A-Za-z]|[A-Za-z]", question))
    counts = Counter(m.group().lower() for m in matches)
    out = []
    for m in matches:
        word = m.group()
        if len(word) < 3 or word.lower() in STOP_WORDS or counts[word.lower()] > 1 or "'" in word:
            continue
        before = question[max(0, m.start() - 8): m.start()].rstrip(" \t")
        at_start = m.start() == 0 or not before or before[-1] in ".!?:\"(\n"
        proper = (word.isupper() and len(word) >= 2) or (word[0].isupper() and not at_start)
        out.append((word, m.start(), proper))
    return out


@settings(max_examples=500, deadline=None)
@example(question="Which city is     \t Berlin in?")  # the word before is 7 characters back ...
@example(question="Which city is   \t    Berlin in?")  # ... or 9, past the 8 looked at
@given(question=st.one_of(_questions, st.text(max_size=60)))
def test_content_words_and_mask_word_follow_the_rules(question: str) -> None:
    expected = _reference_content_words(question)
    assert [(c.word, c.start, c.proper_noun) for c in content_words(question)] == expected
    masked = mask_word(question)
    if not expected:
        assert masked is None
        return
    pool = [c for c in expected if c[2]] or expected
    word, start, proper = max(pool, key=lambda c: len(c[0]))  # the first of the longest
    assert masked == MaskedWord(word, start, question[:start] + MASK + question[start + len(word):], proper)
