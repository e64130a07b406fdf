"""Choosing what to hide: one wrong option (multichoice) or one content word (question).

Both choices are deterministic: the option is drawn with ``random.Random(f"{seed}:{key}")``
where ``key`` is :func:`content_key` of the item, the SHA-256 of its question and options
(Unicode NFC, runs of white space made one space, ends stripped). The draw depends on what the
item says, not on what a harness calls it (lm-eval numbers documents ``0, 1, ...``, an Inspect
dataset may call the same question ``q001``), so every harness probes an item the same way and
their prompts meet in the response cache; it is the same on every machine (a string seed, hashed
with SHA-512 by :mod:`random`) and independent of the order or subset of items. The word is
chosen by fixed rules.

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

import functools
import hashlib
import json
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import DataError
from ._data import BenchmarkItem

if TYPE_CHECKING:
    from ..models import LogprobModel

MASK = "[MASK]"
_EXTRA_STOP = frozenset({
    "following", "which", "what", "statement", "statements", "true", "false", "correct",
    "incorrect", "best", "describes", "question", "answer", "does", "did", "would", "could",
    "should", "shall", "will", "can", "may", "might", "must", "has", "have", "had", "was", "were",
    "are", "is", "been", "being", "get", "got", "let", "make", "say", "says", "said", "like", "just",
    "there", "that", "this", "these", "those", "one", "two", "many", "much", "most", "more",
    "some", "any", "also", "happens", "happen", "people", "really", "why", "how",
})


@functools.cache
def stop_words() -> frozenset[str]:
    """scikit-learn's ``ENGLISH_STOP_WORDS`` plus question words of benchmarks; scikit-learn (about
    a second to import) is imported on the first call, not with this module."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS) | _EXTRA_STOP


def __getattr__(name: str) -> frozenset[str]:
    """``STOP_WORDS``: :func:`stop_words`, built on first use."""
    if name == "STOP_WORDS":
        return stop_words()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*[A-Za-z]|[A-Za-z]")
_SENTENCE_ENDS = ".!?:\"(\n"
_GROUP = re.Match.group


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


_SPACE = re.compile(r"\s+")


def _normalised(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def content_key(item: BenchmarkItem) -> str:
    """The SHA-256 (hex) of the item's normalised question and options, in order: what seeds
    its masking (see the module docstring). The benchmark and the instance id take no part."""
    text = json.dumps([_normalised(item.question), [_normalised(o) for o in item.options]],
                      ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _rng(seed: int, key: str) -> random.Random:
    return random.Random(f"{seed}:{key}")


def select_options(item: BenchmarkItem, seed: int = 0, n_wrong: int = 3,
                   similar: Callable[[str, str], bool] | None = None) -> tuple[int, ...]:
    """The correct option plus ``n_wrong`` wrong ones (all if fewer), in the item's order.

    Items with more wrong options than that (TruthfulQA) get them in a seeded random order,
    taking each one that is not ``similar`` to an option already taken, then (if still short)
    the skipped ones in the same order; the option filter judges the result.
    """
    wrong = [i for i in range(len(item.options)) if i != item.answer]
    if len(wrong) > n_wrong:
        order = _rng(seed, content_key(item) + "#options").sample(wrong, len(wrong))
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
        raise DataError(f"{item.benchmark} instance {item.instance_id}: no wrong option to mask "
                        f"(options shown: {list(shown)}, answer {item.answer})")
    return MaskedOption(shown, _rng(seed, content_key(item)).choice(wrong), item.answer)


@dataclass(frozen=True)
class _Candidate:
    word: str
    start: int
    proper_noun: bool


def _maskable(question: str) -> tuple[list[str], list[re.Match[str]], list[int]]:
    """The words of ``question``, their matches, and the indexes of the maskable ones (in order)."""
    matches = list(_WORD.finditer(question))
    words = list(map(_GROUP, matches))
    if not words:
        return words, matches, []
    # ASCII-only words without spaces: one lower() and split() over all of them keeps the count.
    lows = " ".join(words).lower().split(" ")
    counts = Counter(lows)
    keep = [k for k, low in enumerate(lows)
            if len(low) >= 3 and counts[low] == 1 and "'" not in low and low not in stop_words()]
    return words, matches, keep


def _is_proper(question: str, word: str, start: int) -> bool:
    """An acronym, or a capitalised word not at the start of a sentence."""
    if word.isupper() and len(word) >= 2:
        return True
    if not word[0].isupper():
        return False
    before = question[max(0, start - 8): start].rstrip(" \t")
    return not (start == 0 or not before or before[-1] in _SENTENCE_ENDS)


def content_words(question: str) -> list[_Candidate]:
    """Maskable words of ``question``, in order (see the module docstring for the rules)."""
    words, matches, keep = _maskable(question)
    starts = [matches[k].start() for k in keep]
    return [_Candidate(words[k], start, _is_proper(question, words[k], start))
            for k, start in zip(keep, starts)]


def _surprise(question: str, candidates: list[_Candidate], reference: LogprobModel) -> list[float]:
    scores = reference.token_scores([question])[0]
    out = []
    for c in candidates:
        end = c.start + len(c.word)
        lps = [lp for (a, b), lp in zip(scores.offsets, scores.logprobs) if a < end and b > c.start]
        out.append(-sum(lps) / len(lps) if lps else float("-inf"))
    return out


def mask_word(question: str, reference: LogprobModel | None = None) -> MaskedWord | None:
    """Hide one content word of ``question``; ``None`` when there is none."""
    words, matches, keep = _maskable(question)
    if not keep:
        return None
    # only a capitalised word can be a proper noun: the others need no start position here
    proper = [k for k in keep if words[k][0].isupper() and _is_proper(question, words[k], matches[k].start())]
    pool = proper or keep
    if reference is not None:
        candidates = [_Candidate(words[k], matches[k].start(), bool(proper)) for k in pool]
        surprise = _surprise(question, candidates, reference)
        best = pool[max(range(len(pool)), key=lambda i: (surprise[i], -i))]
    else:
        best = max(pool, key=lambda k: len(words[k]))  # the first of the longest
    word, start = words[best], matches[best].start()
    masked = question[:start] + MASK + question[start + len(word):]
    return MaskedWord(word, start, masked, bool(proper))
