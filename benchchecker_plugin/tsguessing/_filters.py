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
- fewer than three wrong options exist (``min_wrong``: fewer for other tasks, see
  ``task_rules.yaml``), or one is empty (:attr:`DropReason.TOO_FEW_OPTIONS`).

Once the option to hide is drawn (:mod:`._probes`):

- two options (Winogrande, PIQA): the one wrong option is hidden and the correct one shown; when
  the question itself holds the wrong option's words (Winogrande's sentence names both
  candidates), writing it back proves nothing (:attr:`DropReason.OPTION_IN_QUESTION`);
- the hidden option is longer than the benchmark's ``max_hidden_words`` (HellaSwag's long endings
  do not fit in the 32-token reply) (:attr:`DropReason.LONG_OPTION`).

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
from collections.abc import Sequence
from functools import lru_cache

from ._data import BenchmarkItem
from ._scoring import normalize, rouge_l_f1

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
    OPTION_IN_QUESTION = "option_in_question"
    LONG_OPTION = "long_option"


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


# rouge-score's tokens (``DefaultTokenizer`` without stemming: lower-case, every run of characters
# other than a-z/0-9 is a separator), found in one pass; tests pin the equality with rouge-score.
_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")
# An option whose normalised words are all yes/no/true/false has only these rouge tokens
# (articles are dropped by ``normalize`` but are tokens).
_VERDICT_TOKENS = frozenset({"yes", "no", "true", "false", "a", "an", "the"})
_SLACK = 1e-9


def _rouge_tokens(text: str) -> list[str]:
    return _ROUGE_TOKEN.findall(text.lower())


# (the rouge tokens, the distinct ones, their counts or None when no token repeats)
_Bag = tuple[list[str], frozenset[str], "Counter[str] | None"]


def _bag(text: str) -> _Bag:
    """The rouge-score tokens of ``text``, also as a multiset."""
    tokens = _rouge_tokens(text)
    distinct = frozenset(tokens)
    return tokens, distinct, (Counter(tokens) if len(distinct) < len(tokens) else None)


# For :func:`similar`, which sees the same options again when choosing among many (TruthfulQA).
# Kept small: a large cache of containers makes the garbage collector slower than recomputing.
_recent_bag = lru_cache(maxsize=256)(_bag)


def _bounded_verdict(a: _Bag, b: _Bag, threshold: float) -> bool | None:
    """Whether Rouge-L F1 of the texts with bags ``a`` and ``b`` reaches ``threshold``, when cheap
    bounds of their longest common subsequence decide it; ``None`` when they do not.

    Rouge-L F1 = 2 LCS / (|a| + |b|), and common prefix + common suffix <= LCS <= multiset
    overlap <= min(|a|, |b|). Each bound is moved by :data:`_SLACK` towards "undecided" so that
    rounding in rouge-score's float F1 cannot matter.
    """
    (ta, sa, ca), (tb, sb, cb) = a, b
    na, nb = len(ta), len(tb)
    if not na or not nb:
        return threshold <= 0  # rouge-score's F1 is 0 when a side has no token
    if 2 * min(na, nb) < (threshold - _SLACK) * (na + nb):
        return False
    common = sa & sb
    # a common token counts once unless it repeats on both sides
    overlap = len(common) if ca is None or cb is None else sum(min(ca[t], cb[t]) for t in common)
    if 2 * overlap < (threshold - _SLACK) * (na + nb):
        return False
    shortest = min(na, nb)
    prefix = 0
    while prefix < shortest and ta[prefix] == tb[prefix]:
        prefix += 1
    suffix = 0
    while suffix < shortest - prefix and ta[-1 - suffix] == tb[-1 - suffix]:
        suffix += 1
    if 2 * (prefix + suffix) >= (threshold + _SLACK) * (na + nb):
        return True
    return None


def _similar(a: str, bag_a: _Bag, b: str, bag_b: _Bag, threshold: float) -> bool:
    verdict = _bounded_verdict(bag_a, bag_b, threshold)
    return rouge_l_f1(a, b) >= threshold if verdict is None else verdict


def _two_numeric(options: Sequence[str]) -> bool:
    """Whether at least two of ``options`` are numeric (stops as soon as that is decided)."""
    found = 0
    for k, option in enumerate(options):
        if _is_numeric(option):
            found += 1
            if found == 2:
                return True
        elif found + len(options) - k - 1 < 2:
            return False
    return False


def similar(a: str, b: str, threshold: float = SIMILARITY_THRESHOLD) -> bool:
    """Whether Rouge-L F1 of ``a`` and ``b`` is at least ``threshold``.

    Exact, but fast: the longest common subsequence is at most the multiset overlap of the two
    token lists and at least their common prefix plus suffix, so cheap F1 bounds decide most
    pairs and ``rouge-score`` is called only for the others.
    """
    return _similar(a, _recent_bag(a), b, _recent_bag(b), threshold)


def _words(option: str) -> list[str]:
    return normalize(option).split()


def option_filter(options: Sequence[str], answer: int | None = None, *,
                  min_wrong: int = 3) -> DropReason | None:
    """The first rule ``options`` break (checked in the order of :class:`DropReason`), or ``None``.

    ``answer`` (the correct option's index) is only used to count the wrong options, which must
    be at least ``min_wrong``.
    """
    wrong = len(options) - (1 if answer is not None else 0)
    if wrong < min_wrong or any(not o.strip() for o in options):
        return DropReason.TOO_FEW_OPTIONS
    bags = [_bag(o) for o in options]
    # Normalising is needed only where every rouge token is a verdict word or an article: each
    # normalised word holds the tokens inside it, so a yes/no/true/false word is one such token.
    words = [_words(o) if bag[1] <= _VERDICT_TOKENS else None for o, bag in zip(options, bags)]
    if any(w in (["yes"], ["no"]) for w in words):
        return DropReason.YES_NO
    if any(w and set(w) <= {"true", "false"} for w in words):
        return DropReason.TRUE_FALSE
    # Both patterns need the token "of" or "above" (their letters match no other characters).
    if any(("of" in bag[1] or "above" in bag[1]) and _ABOVE.search(o) for o, bag in zip(options, bags)):
        return DropReason.ALL_NONE_OF_ABOVE
    if _two_numeric(options):
        return DropReason.NUMERIC
    for (a, bag_a), (b, bag_b) in itertools.combinations(zip(options, bags), 2):
        if _similar(a, bag_a, b, bag_b, SIMILARITY_THRESHOLD):
            return DropReason.SIMILAR_OPTIONS
    return None


def option_in_question(option: str, question: str) -> bool:
    """Whether the normalised words of ``option`` occur, in order and together, in ``question``."""
    words = normalize(option)
    return bool(words) and f" {words} " in f" {normalize(question)} "


def question_filter(item: BenchmarkItem) -> DropReason | None:
    """Whether ``item``'s question can carry a guessable masked word (before choosing it)."""
    if len(item.question.split()) < MIN_QUESTION_WORDS:
        return DropReason.TOO_SHORT
    if item.benchmark == "truthfulqa" and item.metadata.get("category") in MEANINGLESS_CATEGORIES:
        return DropReason.MEANINGLESS_CATEGORY
    return None
