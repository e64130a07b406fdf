"""Choosing what to hide: one wrong option (multichoice) or one content word (question).

Both choices are deterministic: the option is drawn with ``random.Random(f"{seed}:{instance_id}")``
(a string seed, hashed with SHA-512 by :mod:`random`, so the same on every machine and
independent of the order or subset of items), and the word by fixed rules.

Content words. No part-of-speech tagger with its model data is installed offline (nltk is, but
its tagger data is a separate download), so content words are found with a stop-word list
(scikit-learn's ``ENGLISH_STOP_WORDS`` plus question words of benchmarks) and a heuristic:
alphabetic words of at least three letters that occur once in the question. Proper nouns
(capitalised words not at the start of a sentence, and acronyms) come first. Among the remaining
candidates the word a reference model finds least predictable is chosen when a
:class:`~benchchecker_plugin.models.LogprobModel` is given (lowest mean token log-probability in
the question); otherwise the longest word (ties: the first), a frequency proxy for surprise.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from .data import BenchmarkItem

if TYPE_CHECKING:
    from ..models import LogprobModel

__all__ = [
    "MASK",
    "MaskedOption",
    "STOP_WORDS",
    "MaskedWord",
    "content_words",
    "mask_option",
    "mask_word",
    "select_options",
]

MASK = "[MASK]"
_EXTRA_STOP = frozenset({
    "following", "which", "what", "statement", "statements", "true", "false", "correct",
    "incorrect", "best", "describes", "question", "answer", "does", "did", "would", "could",
    "should", "shall", "will", "can", "may", "might", "must", "has", "have", "had", "was", "were",
    "are", "is", "been", "being", "get", "got", "let", "make", "say", "says", "said", "like", "just",
    "there", "that", "this", "these", "those", "one", "two", "many", "much", "most", "more",
    "some", "any", "also", "true", "happens", "happen", "people", "really", "why", "how",
})
STOP_WORDS = frozenset(ENGLISH_STOP_WORDS) | _EXTRA_STOP
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*[A-Za-z]|[A-Za-z]")
_SENTENCE_ENDS = ".!?:\"(\n"


@dataclass(frozen=True)
class MaskedOption:
    """Multichoice masking: ``shown`` indexes the item's options in display order; ``masked``
    (a wrong option) is replaced by :data:`MASK`; ``answer`` is the correct option's index."""

    shown: tuple[int, ...]
    masked: int
    answer: int

    @property
    def masked_position(self) -> int:
        """Position of the masked option among the shown ones (0 = letter A)."""
        return self.shown.index(self.masked)


@dataclass(frozen=True)
class MaskedWord:
    """Question masking: ``word`` at ``start`` in the question was replaced by :data:`MASK`."""

    word: str
    start: int
    masked_question: str
    proper_noun: bool


def _rng(seed: int, instance_id: str) -> random.Random:
    return random.Random(f"{seed}:{instance_id}")


def select_options(item: BenchmarkItem, seed: int = 0, n_wrong: int = 3,
                   similar: Callable[[str, str], bool] | None = None) -> tuple[int, ...]:
    """The correct option plus ``n_wrong`` wrong ones (all if fewer), in the item's order.

    Items with more wrong options than that (TruthfulQA) get them in a seeded random order,
    taking each one that is not ``similar`` to an option already taken, then (if still short)
    the skipped ones in the same order; the option filter judges the result.
    """
    wrong = [i for i in range(len(item.options)) if i != item.answer]
    if len(wrong) > n_wrong:
        order = _rng(seed, item.instance_id + "#options").sample(wrong, len(wrong))
        taken: list[int] = []
        for i in order:
            if len(taken) < n_wrong and not (similar and any(
                    similar(item.options[i], item.options[j]) for j in [item.answer, *taken])):
                taken.append(i)
        taken += [i for i in order if i not in taken][: n_wrong - len(taken)]
        wrong = taken
    return tuple(sorted([item.answer, *wrong]))


def mask_option(item: BenchmarkItem, seed: int = 0, shown: Sequence[int] | None = None) -> MaskedOption:
    """Hide one *wrong* option among ``shown`` (default :func:`select_options`), drawn with the seed.

    The correct option is never hidden.
    """
    shown = tuple(shown) if shown is not None else select_options(item, seed)
    wrong = [i for i in shown if i != item.answer]
    if not wrong:
        raise ValueError(f"{item.benchmark} instance {item.instance_id}: no wrong option to mask")
    return MaskedOption(shown, _rng(seed, item.instance_id).choice(wrong), item.answer)


@dataclass(frozen=True)
class _Candidate:
    word: str
    start: int
    proper_noun: bool


def content_words(question: str) -> list[_Candidate]:
    """Maskable words of ``question``, in order (see the module docstring for the rules)."""
    matches = list(_WORD.finditer(question))
    counts: dict[str, int] = {}
    for m in matches:
        counts[m.group().lower()] = counts.get(m.group().lower(), 0) + 1
    out = []
    for m in matches:
        word = m.group()
        low = word.lower()
        if len(word) < 3 or low in STOP_WORDS or counts[low] > 1 or "'" in word:
            continue
        before = question[max(0, m.start() - 8): m.start()].rstrip(" \t")
        at_start = m.start() == 0 or not before or before[-1] in _SENTENCE_ENDS
        proper = (word.isupper() and len(word) >= 2) or (word[0].isupper() and not at_start)
        out.append(_Candidate(word, m.start(), proper))
    return out


def _surprise(question: str, candidates: list[_Candidate], reference: "LogprobModel") -> list[float]:
    scores = reference.token_scores([question])[0]
    out = []
    for c in candidates:
        end = c.start + len(c.word)
        lps = [lp for (a, b), lp in zip(scores.offsets, scores.logprobs) if a < end and b > c.start]
        out.append(-sum(lps) / len(lps) if lps else float("-inf"))
    return out


def mask_word(question: str, reference: "LogprobModel | None" = None) -> MaskedWord | None:
    """Hide one content word of ``question``; ``None`` when there is none."""
    candidates = content_words(question)
    if not candidates:
        return None
    proper = [c for c in candidates if c.proper_noun]
    pool = proper or candidates
    if reference is not None:
        surprise = _surprise(question, pool, reference)
        best = pool[max(range(len(pool)), key=lambda i: (surprise[i], -i))]
    else:
        best = pool[max(range(len(pool)), key=lambda i: (len(pool[i].word), -i))]
    masked = question[: best.start] + MASK + question[best.start + len(best.word):]
    return MaskedWord(best.word, best.start, masked, best.proper_noun)
