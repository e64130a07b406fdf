"""How benchmark items are planted into background documents: the forms items take on the web.

==================  ===========================================================================
form                what is inserted into a copy of a background document
==================  ===========================================================================
``verbatim``        question, newline, gold answer: its own paragraph between two paragraphs
``mid_paragraph``   question and gold answer on one line, spliced into a paragraph at a word
                    boundary (no break before or after: the item runs into the host's words)
``perturbed``       question and answer with word edits at :data:`PERTURB_RATE` per word (at
                    least one): a word dropped, two neighbours swapped, or a word substituted
                    (a small table of near-synonyms of function words, else its plural/singular
                    form); plus surface noise the normalisation absorbs (one word's case, ``?``
                    and commas dropped, a line break for a space)
``question_only``   the question alone (a page that asks but does not answer)
``quiz_page``       as quiz sites print it: ``Question 7: ...`` then ``A) ... B) ...`` options
                    and ``Answer: C`` (TruthfulQA: the best answer among up to three incorrect
                    ones, shuffled)
``csv_row``         a row of the benchmark's own CSV file as copied into repositories (MMLU:
                    question, four options, letter; TruthfulQA: type, category, question, best
                    answer, incorrect answers)
==================  ===========================================================================

Every choice (positions, edits, option order) comes from the ``numpy`` generator passed in:
the same seed gives the same documents.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from enum import StrEnum

import numpy as np

from ..tsguessing import BenchmarkItem

PERTURB_RATE = 0.05
LETTERS = "ABCDEFGH"
SUBSTITUTES = {
    "which": "what", "what": "which", "the": "a", "a": "the", "an": "the", "is": "was",
    "was": "is", "are": "were", "were": "are", "following": "below", "of": "for", "in": "within",
    "on": "upon", "and": "plus", "or": "and", "to": "towards", "from": "out of", "with": "using",
    "by": "through", "for": "of", "not": "never", "most": "best", "can": "could", "will": "would",
    "would": "will", "has": "had", "have": "had", "this": "that", "that": "this", "be": "become",
    "true": "correct", "false": "incorrect", "statement": "claim", "do": "does", "does": "do",
}


class Form(StrEnum):
    VERBATIM = "verbatim"
    MID_PARAGRAPH = "mid_paragraph"
    PERTURBED = "perturbed"
    QUESTION_ONLY = "question_only"
    QUIZ_PAGE = "quiz_page"
    CSV_ROW = "csv_row"


def _substitute(word: str) -> str:
    core = word.rstrip(".,;:?!")
    tail = word[len(core):]
    low = core.lower()
    if low in SUBSTITUTES:
        new = SUBSTITUTES[low]
        return (new.capitalize() if core[:1].isupper() else new) + tail
    if len(core) > 3 and low.endswith("s") and not low.endswith("ss"):
        return core[:-1] + tail
    return core + "s" + tail


def perturb(text: str, rng: np.random.Generator, rate: float = PERTURB_RATE) -> str:
    """``text`` with ``max(1, round(rate * words))`` word edits (none at ``rate`` 0) and surface
    noise (see the module)."""
    words = text.split()
    if not words:
        return text
    for _ in range(max(1, round(rate * len(words))) if rate > 0 else 0):
        op = int(rng.integers(3)) if len(words) > 3 else 2
        i = int(rng.integers(len(words)))
        if op == 0:
            del words[i]
        elif op == 1 and i + 1 < len(words):
            words[i], words[i + 1] = words[i + 1], words[i]
        else:
            words[i] = _substitute(words[i])
    j = int(rng.integers(len(words)))
    words[j] = words[j].upper() if rng.random() < 0.5 else words[j].title()
    words = [c for c in (w.replace("?", "").replace(",", "") for w in words) if c]
    if len(words) > 8:   # a line break where a page wrapped it
        k = int(rng.integers(1, len(words)))
        return " ".join(words[:k]) + "\n" + " ".join(words[k:])
    return " ".join(words)


def _options(item: BenchmarkItem, rng: np.random.Generator) -> tuple[list[str], int]:
    """The options as a quiz page shows them and the gold one's position: MMLU in its own order;
    TruthfulQA the best answer and up to three incorrect ones, shuffled."""
    if item.benchmark != "truthfulqa":
        return list(item.options), item.answer
    wrong = [o for k, o in enumerate(item.options) if k != item.answer][:3]
    shown = [item.options[item.answer], *wrong]
    order = rng.permutation(len(shown))
    return [shown[k] for k in order], int(np.flatnonzero(order == 0)[0])


def _csv_row(item: BenchmarkItem) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if item.benchmark == "truthfulqa":
        wrong = [o for k, o in enumerate(item.options) if k != item.answer]
        writer.writerow([item.metadata.get("type", ""), item.metadata.get("category", ""),
                         item.question, item.options[item.answer], "; ".join(wrong)])
    else:
        writer.writerow([item.question, *item.options, LETTERS[item.answer]])
    return buf.getvalue()


def render(form: Form, item: BenchmarkItem, rng: np.random.Generator, *,
           rate: float = PERTURB_RATE) -> str:
    """The text ``form`` inserts for ``item`` (see the module table)."""
    answer = item.options[item.answer]
    if form is Form.VERBATIM:
        return f"{item.question}\n{answer}"
    if form is Form.MID_PARAGRAPH:
        return re.sub(r"\s+", " ", f"{item.question} {answer}").strip()
    if form is Form.PERTURBED:
        return perturb(f"{item.question}\n{answer}", rng, rate)
    if form is Form.QUESTION_ONLY:
        return item.question
    if form is Form.QUIZ_PAGE:
        shown, gold = _options(item, rng)
        lines = [f"Question {int(rng.integers(1, 60))}: {item.question}"]
        lines += [f"{LETTERS[k]}) {o}" for k, o in enumerate(shown)]
        return "\n".join([*lines, f"Answer: {LETTERS[gold]}"])
    return _csv_row(item)


def _word_gaps(text: str) -> list[int]:
    """Offsets of single spaces between two letters/digits (places inside a paragraph)."""
    return [m.start() for m in re.finditer(r"(?<=\w) (?=\w)", text)]


def plant(host: str, snippets: Sequence[tuple[Form, str]], rng: np.random.Generator) -> str:
    """A copy of ``host`` holding every snippet: a ``mid_paragraph`` one at a word boundary inside
    the host's text, the others at a paragraph break (or the end) as their own paragraph."""
    breaks = [m.end() for m in re.finditer(r"\n\s*\n", host)] or [len(host)]
    gaps = _word_gaps(host)
    inserts: list[tuple[int, str]] = []
    for form, text in snippets:
        if form is Form.MID_PARAGRAPH and gaps:
            at = gaps[int(rng.integers(len(gaps)))]
            inserts.append((at, f" {text}"))
        else:
            at = breaks[int(rng.integers(len(breaks)))]
            inserts.append((at, f"\n\n{text}\n\n"))
    out = host
    for at, text in sorted(inserts, key=lambda x: x[0], reverse=True):
        out = out[:at] + text + out[at:]
    return out
