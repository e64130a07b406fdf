"""Benchmark items as overlap queries: which text of each instance is looked for in a corpus.

Following Deng et al.: a multiple-choice item's query is its question followed by its gold answer
(MMLU), a TruthfulQA-style item's is the question alone (its answers are free text the corpus need
not hold). A SWE-bench instance's is its problem statement followed by its gold patch (against a
code corpus). Instance ids are exactly those ``benchchecker ts-guess`` writes (MMLU
``"<subject>/<row>"``, TruthfulQA ``"<row>"``) and SWE-bench's ``instance_id``, so overlap flags
merge with every other detector's.

Any other benchmark: ``--benchmark NAME --data items.jsonl`` with one object per line holding
``id`` (or ``instance_id``) and ``text`` (or ``question`` with an optional ``answer``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DataError, HubUnavailableError, InputError

if TYPE_CHECKING:   # tsguessing loads scikit-learn: imported where used
    from ..instances import BugInstance
    from ..tsguessing import BenchmarkItem

_QUESTION_ONLY = ("truthfulqa",)
_BUG = ("swe-bench-verified", "swe-bench", "swe-bench-lite", "bugsinpy", "defects4j", "multi-swe-bench")


@dataclass(frozen=True)
class OverlapItem:
    """One instance's query text (``parts`` names what it is made of, e.g. question+answer)."""

    benchmark: str
    instance_id: str
    text: str
    parts: str = "text"


def mc_queries(items: Iterable[BenchmarkItem]) -> list[OverlapItem]:
    """The queries of multiple-choice items (``ts-guess``'s, any lm-eval or Inspect task's): the
    question and the gold option's text (TruthfulQA: the question alone); ids kept."""
    return [OverlapItem(i.benchmark, i.instance_id, i.question, "question")
            if i.benchmark in _QUESTION_ONLY else
            OverlapItem(i.benchmark, i.instance_id, f"{i.question}\n{i.options[i.answer]}",
                        "question+answer") for i in items]


def bug_queries(instances: Iterable[BugInstance]) -> list[OverlapItem]:
    """The queries of bug-fixing instances: problem statement and gold patch (else the patch)."""
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


def _jsonl_items(benchmark: str, data: str | os.PathLike[str]) -> list[OverlapItem]:
    path = Path(data)
    out = []
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
        ident = row.get("instance_id", row.get("id")) if isinstance(row, dict) else None
        if ident is None:
            raise DataError(f"{path}: line {number}: no 'id' or 'instance_id' field")
        text = row.get("text")
        parts = "text"
        if text is None and isinstance(row.get("question"), str):
            text, parts = row["question"], "question"
            if isinstance(row.get("answer"), str):
                text, parts = f"{text}\n{row['answer']}", "question+answer"
        if not isinstance(text, str):
            raise DataError(f"{path}: line {number}: no text field ('text', or 'question' and "
                            "'answer') holding text")
        out.append(OverlapItem(benchmark, str(ident), text, parts))
    return out


def load_overlap_items(benchmark: str, data: str | os.PathLike[str] | None = None) -> list[OverlapItem]:
    """The queries of ``benchmark`` (``mmlu``, ``truthfulqa``, a bug-fixing benchmark, or any name
    with a JSONL ``data`` file); an empty benchmark is an error."""
    if benchmark in ("mmlu", "truthfulqa"):
        try:
            items = _qa_items(benchmark, data)
        except HubUnavailableError as exc:
            raise exc.naming("--data PATH") from exc
    elif benchmark in _BUG:
        items = _bug_items(benchmark, data)
    elif data is None:
        raise InputError(f"--benchmark {benchmark}: not a built-in benchmark (mmlu, truthfulqa, "
                         "swe-bench-verified, ...); give its items with --data items.jsonl")
    else:
        items = _jsonl_items(benchmark, data)
    if not items:
        raise DataError(f"benchmark {benchmark}{f' ({data})' if data else ''}: no items")
    return items
