"""The two prompt templates (one per mode) and the benchmark hints, in our own words.

Multichoice (``{hint}`` is empty or one line ending in a newline)::

    {hint}Below is a multiple-choice question from a published benchmark. One answer option has
    been hidden and replaced by [MASK]. Write the exact text of the hidden option, as it appears
    in the benchmark. Do not repeat any of the options shown.

    Question: {question}
    A: {option}
    B: [MASK]
    ...
    Hidden option B:

Question::

    {hint}Below is a question from a published benchmark in which one word has been hidden and
    replaced by [MASK]. Reply with the hidden word only.

    Question: {masked question}
    Hidden word:

Hints (on by default; ``hints=False`` leaves them out):

- MMLU: ``This question is from the MMLU benchmark (subject: high school biology).``
- TruthfulQA: ``This question is from the TruthfulQA benchmark (type: Adversarial, category:
  Misconceptions, source: https://...).`` (each field only when present)
- any other task: ``This question is from the ARC-Easy benchmark.`` (the name ``task_rules.yaml``
  gives it, else the task's own name)

The model is expected to answer on one line. Generation has no stop string (EOS or the token
limit ends it; many replies begin with a blank line), and the answer is the reply's first line
with text, without announcement, label or quotes (:func:`._scoring.clean_answer`).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from ._data import BenchmarkItem
from ._masking import MASK
from ._rules import task_rules

LETTERS = "ABCDEFGHIJ"


class Mode(enum.Enum):
    """TS-Guessing mode; the value is the last part of the flags' ``method``."""

    MULTICHOICE = "multichoice"
    QUESTION = "question"

    @property
    def method(self) -> str:
        return f"ts_guessing.{self.value}"


_MULTICHOICE = (
    "{hint}Below is a multiple-choice question from a published benchmark. One answer option has "
    "been hidden and replaced by {mask}. Write the exact text of the hidden option, as it appears "
    "in the benchmark. Do not repeat any of the options shown.\n\n"
    "Question: {question}\n{options}\nHidden option {letter}:"
)
_QUESTION = (
    "{hint}Below is a question from a published benchmark in which one word has been hidden and "
    "replaced by {mask}. Reply with the hidden word only.\n\n"
    "Question: {question}\nHidden word:"
)


def benchmark_hint(item: BenchmarkItem) -> str:
    """One line naming the benchmark and its metadata, ending in a newline. The name and the
    metadata fields come from ``task_rules.yaml`` (MMLU: subject; TruthfulQA: type, category,
    source; any other task: its own name)."""
    rules = task_rules(item.benchmark)
    fields = [(k, str(item.metadata.get(k, ""))) for k in rules.hint_fields]
    if rules.spaces_for_underscores:
        fields = [(k, v.replace("_", " ")) for k, v in fields]
    details = ", ".join(f"{k}: {v}" for k, v in fields if v)
    return rules.hint.format(name=rules.name, details=f" ({details})" if details else "") + "\n"


def multichoice_prompt(item: BenchmarkItem, shown: Sequence[int], masked: int, *, hints: bool = True) -> str:
    """The multichoice prompt: ``shown`` option indexes in order, ``masked`` replaced by the mask."""
    lines = [f"{LETTERS[pos]}: {MASK if idx == masked else item.options[idx]}"
             for pos, idx in enumerate(shown)]
    return _MULTICHOICE.format(hint=benchmark_hint(item) if hints else "", mask=MASK,
                               question=item.question, options="\n".join(lines),
                               letter=LETTERS[list(shown).index(masked)])


def question_prompt(item: BenchmarkItem, masked_question: str, *, hints: bool = True) -> str:
    """The question prompt for ``masked_question`` (the item's question with one word masked)."""
    return _QUESTION.format(hint=benchmark_hint(item) if hints else "", mask=MASK,
                            question=masked_question)
