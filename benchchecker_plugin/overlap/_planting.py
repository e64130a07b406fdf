"""How benchmark items are planted into background documents: the forms items take on the web, in
repositories and in training sets.

=================  ===========================================================================
form               what is inserted into a copy of a background document
=================  ===========================================================================
``verbatim``       question, newline, gold answer: its own paragraph
``mid_paragraph``  question and gold answer spliced into a paragraph at a word boundary
``perturbed``      question and gold answer with a word edit in twenty (at least one): a word
                   dropped, two neighbours swapped, or a word substituted; plus case and
                   punctuation noise and a line break
``question_only``  the question alone (a page that asks but does not answer)
``quiz_page``      ``Question 7: ...``, ``A) ...`` options, ``Answer: C``
``reordered``      a quiz with the options shuffled (the letters follow)
``answer_key``     a numbered quiz item with ``(a)``-``(d)`` options and the key after the host's
                   next paragraphs
``csv_row``        a row of the benchmark's own CSV file (MMLU: question, four options, index)
``json_dump``      a JSON Lines record ``{"question", "choices", "answer"}`` with non-ASCII escaped
                   (``\\u2019``), half of them escaped a second time (a JSON string of the line)
``chat``           a chat fine-tuning record (user: question and lettered options; assistant:
                   ``The answer is (B) ...``), as JSON
``html``           the item as an HTML fragment (``<p>``, ``<ol><li>``, entities, ``&nbsp;``)
``markdown``       a Markdown report: heading, bold letters, a link, a quoted answer
``python``         a Python test: the question as string literals split across lines
``wrapped``        question, options and answer hard-wrapped at 40-72 columns, long words
                   hyphenated at line ends
``mojibake``       a quiz page whose UTF-8 was read as Windows-1252 (``’`` -> ``â€™``)
``mmlu_pro``       an MMLU-Pro-style record: ten options (six from other items), shuffled
=================  ===========================================================================

Every choice (positions, edits, option order, wrap width) comes from the ``numpy`` generator
passed in: the same seed gives the same documents.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import textwrap
from collections.abc import Sequence
from enum import StrEnum

import numpy as np

from ..tsguessing import BenchmarkItem

PERTURB_RATE = 0.05
LETTERS = "ABCDEFGHIJ"
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
    REORDERED = "reordered"
    ANSWER_KEY = "answer_key"
    CSV_ROW = "csv_row"
    JSON_DUMP = "json_dump"
    CHAT = "chat"
    HTML = "html"
    MARKDOWN = "markdown"
    PYTHON = "python"
    WRAPPED = "wrapped"
    MOJIBAKE = "mojibake"
    MMLU_PRO = "mmlu_pro"


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


def _shuffled(options: list[str], gold: int, rng: np.random.Generator) -> tuple[list[str], int]:
    order = rng.permutation(len(options))
    return [options[k] for k in order], int(np.flatnonzero(order == gold)[0])


def _csv_row(item: BenchmarkItem) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if item.benchmark == "truthfulqa":
        wrong = [o for k, o in enumerate(item.options) if k != item.answer]
        writer.writerow([item.metadata.get("type", ""), item.metadata.get("category", ""),
                         item.question, item.options[item.answer], "; ".join(wrong)])
    else:
        writer.writerow([item.question, *item.options, item.answer])
    return buf.getvalue()


def _quiz(item: BenchmarkItem, rng: np.random.Generator, shuffle: bool = False) -> str:
    shown, gold = _options(item, rng)
    if shuffle:
        shown, gold = _shuffled(shown, gold, rng)
    lines = [f"Question {int(rng.integers(1, 60))}: {item.question}"]
    lines += [f"{LETTERS[k]}) {o}" for k, o in enumerate(shown)]
    return "\n".join([*lines, f"Answer: {LETTERS[gold]}"])


def _wrap(text: str, rng: np.random.Generator) -> str:
    """Hard-wrapped at a random width, a long word at a line end hyphenated."""
    width = int(rng.integers(40, 73))
    out = []
    for line in textwrap.wrap(text, width=width, break_long_words=False, break_on_hyphens=False):
        out.append(line)
    joined = "\n".join(out)
    # hyphenate the first long word that starts a line (as a typesetter would at the line before)
    lines = joined.split("\n")
    for k in range(1, len(lines)):
        first = lines[k].split(" ", 1)
        if len(first[0]) >= 8 and first[0].isalpha() and first[0].islower():
            cut = len(first[0]) // 2
            lines[k - 1] += " " + first[0][:cut] + "-"
            lines[k] = first[0][cut:] + (" " + first[1] if len(first) > 1 else "")
            break
    return "\n".join(lines)


def _python(item: BenchmarkItem, shown: list[str], gold: int) -> str:
    words = item.question.split(" ")
    half = max(1, len(words) // 2)
    first, second = " ".join(words[:half]) + " ", " ".join(words[half:])
    return (f"def test_item():\n    question = (\n        {first!r}\n        {second!r}\n    )\n"
            f"    choices = {shown!r}\n    assert grade(question, choices) == {gold}\n")


def render(form: Form, item: BenchmarkItem, rng: np.random.Generator, *,
           rate: float = PERTURB_RATE, others: Sequence[BenchmarkItem] = ()) -> str:
    """The text ``form`` inserts for ``item`` (see the module table); ``others``: items whose
    options serve as MMLU-Pro's extra distractors."""
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
        return _quiz(item, rng)
    if form is Form.REORDERED:
        return _quiz(item, rng, shuffle=True)
    if form is Form.MOJIBAKE:
        return _quiz(item, rng).encode("utf-8").decode("cp1252", errors="replace")
    if form is Form.CSV_ROW:
        return _csv_row(item)
    shown, gold = _options(item, rng)
    if form is Form.ANSWER_KEY:
        n = int(rng.integers(1, 40))
        opts = "\n".join(f"({LETTERS[k].lower()}) {o}" for k, o in enumerate(shown))
        return f"{n}. {item.question}\n{opts}\x00Answer key: {n}-{LETTERS[gold].lower()}"
    if form is Form.JSON_DUMP:
        line = json.dumps({"question": item.question, "choices": shown, "answer": gold})
        return json.dumps(line) if rng.random() < 0.5 else line
    if form is Form.CHAT:
        user = item.question + "\n\n" + "\n".join(f"{LETTERS[k]}. {o}" for k, o in enumerate(shown))
        return json.dumps({"messages": [{"role": "user", "content": user + "\nAnswer:"},
                                        {"role": "assistant", "content": f"The answer is "
                                                                         f"({LETTERS[gold]}) {shown[gold]}"}]})
    if form is Form.HTML:
        lis = "".join(f"<li>{html.escape(o)}</li>" for o in shown)
        q = html.escape(item.question).replace(" ", "&nbsp;", 2)
        return f'<div class="question"><p>{q}</p>\n<ol type="A">{lis}</ol></div>'
    if form is Form.MARKDOWN:
        opts = "\n".join(f"- **{LETTERS[k]}.** {o}" for k, o in enumerate(shown))
        return (f"### Question {int(rng.integers(1, 99))} ([source](https://example.org/q?id="
                f"{int(rng.integers(1 << 20))}))\n\n{item.question}\n\n{opts}\n\n> **Answer:** {LETTERS[gold]}")
    if form is Form.PYTHON:
        return _python(item, shown, gold)
    if form is Form.WRAPPED:
        opts = " ".join(f"({LETTERS[k]}) {o}" for k, o in enumerate(shown))
        return _wrap(f"{item.question} {opts} Answer: {answer}", rng)
    assert form is Form.MMLU_PRO
    pool = [o for other in others for o in other.options if o not in shown]
    extra = [pool[int(k)] for k in rng.choice(len(pool), size=min(6, len(pool)), replace=False)] if pool else []
    options, gold = _shuffled([*shown, *extra], gold, rng)
    return json.dumps({"question_id": int(rng.integers(1 << 16)), "question": item.question,
                       "options": options, "answer": LETTERS[gold], "answer_index": gold,
                       "cot_content": "", "category": item.metadata.get("subject", "other")})


def _word_gaps(text: str) -> list[int]:
    """Offsets of single spaces between two letters/digits (places inside a paragraph)."""
    return [m.start() for m in re.finditer(r"(?<=\w) (?=\w)", text)]


def plant(host: str, snippets: Sequence[tuple[Form, str]], rng: np.random.Generator) -> str:
    """A copy of ``host`` holding every snippet: a ``mid_paragraph`` one at a word boundary inside
    the host's text, the others at a paragraph break (or the end) as their own paragraph; an
    ``answer_key`` snippet's key (after its NUL) two paragraph breaks further on."""
    breaks = [m.end() for m in re.finditer(r"\n\s*\n", host)] or [len(host)]
    gaps = _word_gaps(host)
    inserts: list[tuple[int, str]] = []
    for form, text in snippets:
        if form is Form.MID_PARAGRAPH and gaps:
            at = gaps[int(rng.integers(len(gaps)))]
            inserts.append((at, f" {text}"))
            continue
        k = int(rng.integers(len(breaks)))
        body, _, key = text.partition("\x00")
        inserts.append((breaks[k], f"\n\n{body}\n\n"))
        if key:
            inserts.append((breaks[min(k + 2, len(breaks) - 1)], f"\n\n{key}\n\n"))
    out = host
    for at, text in sorted(inserts, key=lambda x: x[0], reverse=True):
        out = out[:at] + text + out[at:]
    return out
