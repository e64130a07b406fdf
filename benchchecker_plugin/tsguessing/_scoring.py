"""Scoring a model's guess against the *masked* text: exact match and Rouge-L F1.

The guess is compared with what was hidden (the masked wrong option, or the masked word), never
with the question's correct answer: a model that reproduces a hidden wrong option can only have
seen the item (one peer implementation scores against the correct answer, which measures
question answering instead).

Thresholds (``contaminated`` in the flags):

- multichoice: ``rouge_l >= 0.8`` (exact match implies ``rouge_l == 1``); ``score`` is Rouge-L F1.
- question: exact match of the normalised word; ``score`` is EM (0 or 1).

The answer (:func:`clean_answer`) is read from the whole reply, which every harness generates
without a stop string (EOS or the token limit ends it): the first line that still has text once
a leading announcement (``The answer is``, ``Answer:``, ``Hidden option B:``, ``The hidden word
is``), an option label (``B:``, ``B)``, ``B.``) and surrounding quotes are removed. Blank lines
and lines that hold only such a label are skipped, so ``"\\n\\nThe answer is:\\nC: foo\\n..."``
gives ``"foo"``. All harnesses apply this same function to the raw reply.
"""

from __future__ import annotations

import re
import string
import warnings
from dataclasses import dataclass
from functools import lru_cache

MULTICHOICE_THRESHOLD = 0.8
#: tokens of each side Rouge-L compares (see :func:`rouge_l_f1`): a 512 x 512 table at most
ROUGE_MAX_TOKENS = 512

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans({c: " " for c in string.punctuation})
# "The answer is", "Answer:", "The answer to this question is:", "Hidden option B:", "The hidden
# word is", "Option C)": an announcement ends with "is" or with ":" / ")" (a bare "Answer" or
# "Word" is left alone: it may be the hidden word itself).
_ANNOUNCE = re.compile(
    r"^(?:the\s+)?(?:correct\s+|hidden\s+|missing\s+|masked\s+)?(?:answer|option|word)\b"
    r"(?:\s+to\s+(?:this|the)\s+question)?(?:\s+\(?[a-j]\)?(?![\w']))?(?:\s+is\b\s*:?|\s*[:)])\s*",
    re.IGNORECASE)
# An option label, A-J as in prompts.LETTERS (small models go on past D): "B:", "B)", "(B)", "B."
# (a "." only when a space or the end follows: not "a.m.").
_LABEL = re.compile(r"^\(?[a-j](?:\s*[:)]|\.(?=\s|$))\s*", re.IGNORECASE)
_QUOTES = "\"'`"


@dataclass(frozen=True)
class GuessScore:
    """The cleaned guess, and its exact match (0/1) and Rouge-L F1 against the masked text."""

    answer: str
    exact_match: float
    rouge_l: float


def _clean_line(line: str) -> str:
    line = _ANNOUNCE.sub("", line.strip(), count=1)
    line = _LABEL.sub("", line, count=1).strip()
    quoted = line[:-1] if line[-1:] == "." and line[-2:-1] in tuple(_QUOTES) else line  # '"foo".'
    if len(quoted) >= 2 and quoted[0] == quoted[-1] and quoted[0] in _QUOTES:
        line = quoted[1:-1].strip()
    return line


def clean_answer(text: str) -> str:
    """The answer in a raw reply: its first line with text once a leading announcement
    (``The answer is``, ``Hidden option B:``), an option label (``B:``) and quotes are removed;
    ``""`` when no line has any (see the module docstring)."""
    for line in text.split("\n"):
        answer = _clean_line(line)
        if answer:
            return answer
    return ""


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
def _scorer():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


def _capped(text: str) -> tuple[str, bool]:
    """``text`` cut to its first :data:`ROUGE_MAX_TOKENS` Rouge tokens within its first
    ``64 x ROUGE_MAX_TOKENS`` characters (rejoined with spaces, which rouge-score tokenises back
    to the same tokens), and whether anything was cut."""
    from rouge_score.tokenize import tokenize

    limit = 64 * ROUGE_MAX_TOKENS
    tokens = tokenize(text[:limit], None)
    if len(tokens) <= ROUGE_MAX_TOKENS and len(text) <= limit:
        return text, False
    return " ".join(tokens[:ROUGE_MAX_TOKENS]), True


def rouge_l_f1(answer: str, target: str) -> float:
    """Rouge-L F1 (``rouge-score``, no stemming); 0.0 when either side has no token.

    Its longest-common-subsequence table grows with the product of the two lengths (two 1 MB
    options exhausted memory): each side is compared on its first :data:`ROUGE_MAX_TOKENS`
    tokens (within its first ``64 x ROUGE_MAX_TOKENS`` characters), with a warning saying so
    when a side is longer."""
    if len(answer) > ROUGE_MAX_TOKENS or len(target) > ROUGE_MAX_TOKENS:   # cheap pre-check
        (answer, cut_a), (target, cut_t) = _capped(answer), _capped(target)
        if cut_a or cut_t:
            warnings.warn(f"Rouge-L compared the first {ROUGE_MAX_TOKENS} tokens of a longer "
                          "text (its cost grows with the product of the two lengths)",
                          RuntimeWarning, stacklevel=2)
    return float(_scorer().score(target, answer)["rougeL"].fmeasure)


def score_guess(completion: str, target: str) -> GuessScore:
    """Clean ``completion`` and score it against the masked ``target``.

    A target that itself begins with what cleaning removes (an option whose text is ``(C)
    Decreased``) is also compared as cleaning leaves it: a verbatim reproduction loses its label
    to :func:`clean_answer`, and is still an exact match."""
    answer = clean_answer(completion)
    em, rouge = exact_match(answer, target), rouge_l_f1(answer, target)
    bare = _clean_line(target)
    if bare and bare != target.strip():
        em, rouge = max(em, exact_match(answer, bare)), max(rouge, rouge_l_f1(answer, bare))
    return GuessScore(answer, em, rouge)
