"""The lm-evaluation-harness 13-gram rule, as its ``decontamination`` Janitor computes it: the
baseline the controlled evaluation measures our metrics against, in the same run.

lm-eval (``lm_eval/decontamination/janitor.py`` and ``decontaminate.py``): ASCII upper case is
lowered and ``string.punctuation`` is *deleted* (``"don't"`` -> ``"dont"``), words are split on
white space, and a benchmark item is contaminated when any of its 13-grams occurs in the corpus.
There is no template masking (a 13-gram shared by many items flags all of them) and no whole-item
rule: an item of fewer than 13 words has no 13-gram and is never flagged. Pure Python, one thread,
as the original.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence


class Janitor:
    """Every item's 13-grams in a dict; :meth:`scan` marks the items whose 13-gram a document holds."""

    def __init__(self, texts: Sequence[str], n: int = 13) -> None:
        self.n = n
        self._table = str.maketrans(string.ascii_uppercase, string.ascii_lowercase, string.punctuation)
        self._items: dict[str, list[int]] = {}
        self.visible = [False] * len(texts)
        for index, text in enumerate(texts):
            for gram in self.ngrams(text):
                self.visible[index] = True
                owners = self._items.setdefault(gram, [])
                if not owners or owners[-1] != index:
                    owners.append(index)
        self.hit = [False] * len(texts)
        self.chars = 0

    def ngrams(self, text: str) -> list[str]:
        words = text.translate(self._table).split()
        return [" ".join(words[i:i + self.n]) for i in range(len(words) - self.n + 1)]

    def scan(self, documents: Iterable[str]) -> None:
        items = self._items
        for doc in documents:
            self.chars += len(doc)
            for gram in self.ngrams(doc):
                owners = items.get(gram)
                if owners is not None:
                    for index in owners:
                        self.hit[index] = True
