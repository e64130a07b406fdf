"""Benchmark items as overlap queries: each instance's text, and the parts it is made of.

An item is looked up two ways. The published n-gram rules (GPT-3, PaLM, Llama 2, ConTAM) read its
*query*, one string, following Deng et al.: a multiple-choice item's question followed by its gold
answer (MMLU), a TruthfulQA-style item's question alone, a SWE-bench instance's problem statement
followed by its gold patch. The ``parts`` rule reads its *parts* separately, because real copies
put something between them (the other options, option letters, JSON keys, a CSV comma): the
question, the gold answer and every option, each found on its own within one document.

Instance ids are exactly those ``benchchecker ts-guess`` writes (MMLU ``"<subject>/<row>"``,
TruthfulQA ``"<row>"``) and SWE-bench's ``instance_id``, so overlap flags merge with every other
detector's.

Any other benchmark: ``--benchmark NAME --data items.jsonl`` with one object per line holding
``id`` (or ``instance_id``) and ``text``, or ``question`` with an optional ``answer`` (text, or the
index of the gold option) and ``options`` (a list of option texts). One id on two lines is an
error naming both.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import DataError, HubUnavailableError, InputError

if TYPE_CHECKING:   # tsguessing loads scikit-learn: imported where used
    from ..instances import BugInstance
    from ..tsguessing import BenchmarkItem

_QUESTION_ONLY = ("truthfulqa",)
BUG_BENCHMARKS = ("swe-bench-verified", "swe-bench", "swe-bench-lite", "bugsinpy", "defects4j",
                  "multi-swe-bench")


@dataclass(frozen=True)
class OverlapItem:
    """One instance: ``text`` is its query (``parts`` names what it is made of, e.g.
    question+answer); ``question``, ``answer`` and ``options`` its parts (``question`` defaults to
    the text; ``answer`` is the gold option's text, also one of ``options`` when there are
    options)."""

    benchmark: str
    instance_id: str
    text: str
    parts: str = "text"
    question: str | None = None
    answer: str | None = None
    options: tuple[str, ...] = ()

    @property
    def stem(self) -> str:
        """The question part (the whole text when the item has no parts)."""
        return self.text if self.question is None else self.question


def mc_query(benchmark: str, instance_id: str, question: str, options: Sequence[str],
            gold: int) -> OverlapItem:
    """A multiple-choice item: query question + gold option (TruthfulQA-style benchmarks: the
    question alone), parts question, gold answer, options."""
    answer = options[gold]
    if benchmark in _QUESTION_ONLY:
        return OverlapItem(benchmark, instance_id, question, "question", question, answer, tuple(options))
    return OverlapItem(benchmark, instance_id, f"{question}\n{answer}", "question+answer", question,
                       answer, tuple(options))


def mc_queries(items: Iterable[BenchmarkItem]) -> list[OverlapItem]:
    """The queries of multiple-choice items (``ts-guess``'s, any lm-eval or Inspect task's)."""
    return [mc_query(i.benchmark, i.instance_id, i.question, i.options, i.answer) for i in items]


def bug_queries(instances: Iterable[BugInstance]) -> list[OverlapItem]:
    """The queries of bug-fixing instances: problem statement and gold patch (else the patch), one
    text (found as a whole)."""
    out = []
    for inst in instances:
        statement = inst.extra.get("problem_statement") or ""
        out.append(OverlapItem(inst.benchmark, inst.instance_id,
                               f"{statement}\n{inst.patch}" if statement else inst.patch,
                               "problem_statement+patch" if statement else "patch"))
    return out


def _qa_items(benchmark: str, data: str | os.PathLike[str] | None) -> list[OverlapItem]:
    from ..tsguessing import load_items

    return mc_queries(load_items(benchmark, data))


def _bug_items(benchmark: str, data: str | os.PathLike[str] | None) -> list[OverlapItem]:
    from ..instances import load_instances

    if data is None:
        raise InputError(f"--benchmark {benchmark}: give its instances file with --data")
    return bug_queries(load_instances(data, benchmark=benchmark))


def _row_item(benchmark: str, where: str, row: Any) -> OverlapItem:
    ident = row.get("instance_id", row.get("id")) if isinstance(row, dict) else None
    if ident is None:
        raise DataError(f"{where}: no 'id' or 'instance_id' field")
    text, question, answer, options = row.get("text"), row.get("question"), row.get("answer"), \
        row.get("options")
    if isinstance(text, str):
        return OverlapItem(benchmark, str(ident), text)
    if not isinstance(question, str):
        raise DataError(f"{where}: no text field ('text', or 'question' and 'answer') holding text")
    if options is not None:
        if not (isinstance(options, list) and options and all(isinstance(o, str) for o in options)):
            raise DataError(f"{where}: 'options' is not a list of texts")
        if isinstance(answer, int) and not isinstance(answer, bool) and 0 <= answer < len(options):
            return mc_query(benchmark, str(ident), question, options, answer)
        if isinstance(answer, str) and answer in options:
            return mc_query(benchmark, str(ident), question, options, options.index(answer))
        raise DataError(f"{where}: 'answer' must be the index or the text of one of the "
                        f"{len(options)} options")
    if isinstance(answer, str):
        return OverlapItem(benchmark, str(ident), f"{question}\n{answer}", "question+answer",
                           question, answer)
    return OverlapItem(benchmark, str(ident), question, "question", question)


def _jsonl_items(benchmark: str, data: str | os.PathLike[str]) -> list[OverlapItem]:
    path = Path(data)
    out = []
    seen: dict[str, int] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read benchmark items ({exc})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise DataError(f"{path}: line {number}: not JSON") from None
        item = _row_item(benchmark, f"{path}: line {number}", row)
        if item.instance_id in seen:
            raise DataError(f"{path}: id {item.instance_id!r} on line {seen[item.instance_id]} and "
                            f"again on line {number}: one instance per id")
        seen[item.instance_id] = number
        out.append(item)
    return out


def load_overlap_items(benchmark: str, data: str | os.PathLike[str] | None = None) -> list[OverlapItem]:
    """The queries of ``benchmark`` (``mmlu``, ``truthfulqa``, a bug-fixing benchmark, or any name
    with a JSONL ``data`` file); an empty benchmark is an error."""
    if benchmark in ("mmlu", "truthfulqa"):
        try:
            items = _qa_items(benchmark, data)
        except HubUnavailableError as exc:
            raise exc.naming("--data PATH") from exc
    elif benchmark in BUG_BENCHMARKS:
        items = _bug_items(benchmark, data)
    elif data is None:
        raise InputError(f"--benchmark {benchmark}: not a built-in benchmark (mmlu, truthfulqa, "
                         "swe-bench-verified, ...); give its items with --data items.jsonl")
    else:
        items = _jsonl_items(benchmark, data)
    if not items:
        raise DataError(f"benchmark {benchmark}{f' ({data})' if data else ''}: no items")
    return items
