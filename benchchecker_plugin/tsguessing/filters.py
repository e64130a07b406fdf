"""Which items TS-Guessing can use, and why the others are dropped.

Multichoice (applied to the four options shown: the correct one, the masked wrong one and two
other wrong ones): options that can be inferred from each other make a correct guess meaningless,
so an item is dropped when

- an option is ``yes``/``no`` (:attr:`DropReason.YES_NO`);
- an option is made only of ``true``/``false`` words (``"True, False"``) (:attr:`DropReason.TRUE_FALSE`);
- an option says all/none/both/neither of the above (:attr:`DropReason.ALL_NONE_OF_ABOVE`);
- two or more options are numbers, numeric ranges or sequences, including roman-numeral
  combinations such as ``"I and III only"`` (:attr:`DropReason.NUMERIC`);
- two options have Rouge-L F1 >= 0.65 (:attr:`DropReason.SIMILAR_OPTIONS`);
- fewer than three wrong options exist, or one is empty (:attr:`DropReason.TOO_FEW_OPTIONS`).

Question mode: an item is dropped when the question has at most four words
(:attr:`DropReason.TOO_SHORT`), for TruthfulQA when its category makes the question depend on
when/where/who asks (:data:`MEANINGLESS_CATEGORIES`, :attr:`DropReason.MEANINGLESS_CATEGORY`), or
when no content word can be masked (:attr:`DropReason.NO_CONTENT_WORD`, decided in masking).
"""

from __future__ import annotations

import enum
import itertools
import re
from collections import Counter
from functools import lru_cache
from typing import Sequence

from .data import BenchmarkItem
from .scoring import normalize, rouge_l_f1

__all__ = [
    "MEANINGLESS_CATEGORIES",
    "MIN_QUESTION_WORDS",
    "SIMILARITY_THRESHOLD",
    "DropReason",
    "option_filter",
    "question_filter",
    "similar",
]

SIMILARITY_THRESHOLD = 0.65
MIN_QUESTION_WORDS = 5
MEANINGLESS_CATEGORIES = frozenset({
    "Indexical Error: Identity",
    "Indexical Error: Location",
    "Indexical Error: Other",
    "Indexical Error: Time",
})


class DropReason(enum.Enum):
    """Why an item was not used."""

    YES_NO = "yes_no"
    TRUE_FALSE = "true_false"
    ALL_NONE_OF_ABOVE = "all_none_of_the_above"
    NUMERIC = "numeric"
    SIMILAR_OPTIONS = "similar_options"
    TOO_FEW_OPTIONS = "too_few_options"
    TOO_SHORT = "too_short"
    MEANINGLESS_CATEGORY = "meaningless_category"
    NO_CONTENT_WORD = "no_content_word"


_ABOVE = re.compile(r"\b(all|none|both|neither|any)\s+of\s+(the\s+)?(above|these|them|those)\b"
                    r"|\ball\s+the\s+above\b", re.IGNORECASE)
# Numbers (with signs, decimals, fractions, exponents, %, $), roman numerals, and the glue of
# ranges and sequences. Units of up to 3 letters (kg, m/s, ft) are allowed after a number.
_NUMERIC_TOKEN = re.compile(
    r"^(?:[-+\u2212]?[$\u00a3\u20ac]?\d[\d,]*(?:\.\d+)?(?:/\d+)?(?:e[-+]?\d+)?%?|[ivx]+|and|or|to|only|"
    r"through|between|from|than|less|more|about|approximately|[a-z]{1,3}|[a-z]{1,3}/[a-z]{1,3}|"
    r"[-\u2013\u2014,;:()\[\]^*=<>.]+)$", re.IGNORECASE)
_DIGIT_OR_ROMAN = re.compile(r"\d|^[ivx]+$", re.IGNORECASE)
_ANY_DIGIT_OR_ROMAN = re.compile(r"\d|\b[ivx]+\b", re.IGNORECASE)


def _is_numeric(option: str) -> bool:
    if not _ANY_DIGIT_OR_ROMAN.search(option):
        return False
    tokens = re.findall(r"[^\s,;()\[\]]+", option.strip())
    if not tokens or not any(_DIGIT_OR_ROMAN.search(t.strip(".:")) for t in tokens):
        return False
    return all(_NUMERIC_TOKEN.match(t) or _NUMERIC_TOKEN.match(t.strip(".:")) for t in tokens)


@lru_cache(maxsize=1)
def _tokenizer():  # type: ignore[no-untyped-def]
    from rouge_score.tokenizers import DefaultTokenizer

    return DefaultTokenizer(use_stemmer=False)


@lru_cache(maxsize=1 << 16)
def _bag(text: str) -> tuple[int, Counter[str]]:
    tokens = _tokenizer().tokenize(text)
    return len(tokens), Counter(tokens)


def similar(a: str, b: str, threshold: float = SIMILARITY_THRESHOLD) -> bool:
    """Whether Rouge-L F1 of ``a`` and ``b`` is at least ``threshold``.

    Exact, but fast: the longest common subsequence is at most the multiset overlap of the two
    token lists, so the (cheap) overlap F1 bounds Rouge-L F1 from above and ``rouge-score`` is
    called only when that bound reaches the threshold.
    """
    (na, ca), (nb, cb) = _bag(a), _bag(b)
    if not na or not nb or 2 * min(na, nb) / (na + nb) < threshold:
        return False
    overlap = sum((ca & cb).values())
    if 2 * overlap / (na + nb) < threshold:
        return False
    return rouge_l_f1(a, b) >= threshold


def _words(option: str) -> list[str]:
    return normalize(option).split()


def option_filter(options: Sequence[str], answer: int | None = None) -> DropReason | None:
    """The first rule ``options`` break (checked in the order of :class:`DropReason`), or ``None``.

    ``answer`` (the correct option's index) is only used to count the wrong options.
    """
    wrong = len(options) - (1 if answer is not None else 0)
    if wrong < 3 or any(not o.strip() for o in options):
        return DropReason.TOO_FEW_OPTIONS
    words = [_words(o) for o in options]
    if any(w in (["yes"], ["no"]) for w in words):
        return DropReason.YES_NO
    if any(w and set(w) <= {"true", "false"} for w in words):
        return DropReason.TRUE_FALSE
    if any(_ABOVE.search(o) for o in options):
        return DropReason.ALL_NONE_OF_ABOVE
    if sum(_is_numeric(o) for o in options) >= 2:
        return DropReason.NUMERIC
    for a, b in itertools.combinations(options, 2):
        if similar(a, b):
            return DropReason.SIMILAR_OPTIONS
    return None


def question_filter(item: BenchmarkItem) -> DropReason | None:
    """Whether ``item``'s question can carry a guessable masked word (before choosing it)."""
    if len(item.question.split()) < MIN_QUESTION_WORDS:
        return DropReason.TOO_SHORT
    if item.benchmark == "truthfulqa" and item.metadata.get("category") in MEANINGLESS_CATEGORIES:
        return DropReason.MEANINGLESS_CATEGORY
    return None
