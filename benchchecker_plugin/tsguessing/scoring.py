"""Scoring a model's guess against the *masked* text: exact match and Rouge-L F1.

The guess is compared with what was hidden (the masked wrong option, or the masked word), never
with the question's correct answer: a model that reproduces a hidden wrong option can only have
seen the item (one peer implementation scores against the correct answer, which measures
question answering instead).

Thresholds (``contaminated`` in the flags):

- multichoice: ``rouge_l >= 0.8`` (exact match implies ``rouge_l == 1``); ``score`` is Rouge-L F1.
- question: exact match of the normalised word; ``score`` is EM (0 or 1).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "MULTICHOICE_THRESHOLD",
    "GuessScore",
    "clean_answer",
    "exact_match",
    "normalize",
    "rouge_l_f1",
    "score_guess",
]

MULTICHOICE_THRESHOLD = 0.8

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans({c: " " for c in string.punctuation})
_PREFIX = re.compile(
    r"^\s*(?:answer|option\s+[a-d]|hidden option(?:\s+[a-d])?|hidden word|missing word|[a-d])\s*[:.)]\s*",
    re.IGNORECASE)


@dataclass(frozen=True)
class GuessScore:
    """The cleaned guess, and its exact match (0/1) and Rouge-L F1 against the masked text."""

    answer: str
    exact_match: float
    rouge_l: float


def clean_answer(text: str) -> str:
    """The first line of a completion (empty when it starts with a newline, as a harness that
    stops at ``"\n"`` returns it), without a leading ``Answer:``/``B:`` label or quotes."""
    line = text.split("\n", 1)[0].strip()
    line = _PREFIX.sub("", line, count=1).strip()
    if len(line) >= 2 and line[0] == line[-1] and line[0] in "\"'`":
        line = line[1:-1].strip()
    return line


def normalize(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces (SQuAD-style)."""
    text = text.lower().translate(_PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(answer: str, target: str) -> float:
    """1.0 when the normalised texts are equal (and not empty), else 0.0."""
    a, t = normalize(answer), normalize(target)
    return float(bool(t) and a == t)


@lru_cache(maxsize=1)
def _scorer():  # type: ignore[no-untyped-def]
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


def rouge_l_f1(answer: str, target: str) -> float:
    """Rouge-L F1 (``rouge-score``, no stemming); 0.0 when either side has no token."""
    return float(_scorer().score(target, answer)["rougeL"].fmeasure)


def score_guess(completion: str, target: str) -> GuessScore:
    """Clean ``completion`` and score it against the masked ``target``."""
    answer = clean_answer(completion)
    return GuessScore(answer, exact_match(answer, target), rouge_l_f1(answer, target))
