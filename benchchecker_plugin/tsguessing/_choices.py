"""Any multiple-choice document as a TS-Guessing item, read from what its task shows the model.

A harness reads the task's own definition (lm-eval: ``doc_to_text``, ``doc_to_choice``,
``doc_to_target`` on the processed documents; Inspect: a sample's ``input``, ``choices`` and
``target``) and hands :func:`mc_item` the rendered prompt, the choice list, the target and the
document. The item keeps the options in the task's order and the task's correct one:

- **options**: the choices, unless they are labels (the first letters or numbers in order,
  ``A B C D`` or ``1 2 3 4``, as lm-eval's MMLU scores letters): then the option texts are the
  document's list of strings (also one level down, such as ARC's ``choices.text``) of that length,
  not labels themselves, whose every entry the prompt shows (an MMLU item whose options are
  ``2 4 6 10``); label choices that are the document's own option list are texts after all;
- **answer**: an integer target is the index; a text target is the choice it equals (lm-eval's own
  rule: ``"2"`` with a choice list is an index);
- **question**: the longest text field of the document that the prompt shows (MMLU's
  ``question``, ARC's ``question``, HellaSwag's ``query``), else the prompt (for label choices:
  the prompt up to its first option);
- **metadata**: the fields ``task_rules.yaml`` names for the benchmark's hint (MMLU: subject).

A document that cannot be read so (choices not a list, fewer than two, a target out of range or
naming no choice, several correct choices, labels without option texts) raises one-line
:class:`~benchchecker_plugin.errors.DataError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..errors import DataError
from ._data import BenchmarkItem
from ._rules import task_rules

_LABEL_MARKS = re.compile(r"^\(?(.*?)\)?[.:]?$")
_TRAILING_LABEL = re.compile(r"\s\(?(?:[A-J]|10|[1-9])\)?[.:)]?\s*$")


def _is_labels(choices: Sequence[str]) -> bool:
    """Whether ``choices`` are the first letters or numbers in order (``A B C D``, ``(a) (b)``,
    ``1 2 3``), as a task scoring letters shows them."""
    if any(len(c) > 6 for c in choices):   # the common case, decided without a pattern
        return False
    return _labels(tuple(choices))


@lru_cache(maxsize=64)
def _labels(choices: tuple[str, ...]) -> bool:
    marks = [_LABEL_MARKS.sub(r"\1", c.strip()) for c in choices]
    n = len(marks)
    return marks in ([*"ABCDEFGHIJ"][:n], [*"abcdefghij"][:n], [str(i) for i in range(1, n + 1)])


def answer_index(target: Any, choices: Sequence[str]) -> int:
    """The index of the correct choice named by ``target`` (an index, a digit string, or the
    choice's text)."""
    if isinstance(target, list):
        raise DataError(f"target {target!r} names several correct choices; TS-Guessing needs one")
    if isinstance(target, str):
        if target in choices:
            return list(choices).index(target)
        if not target.strip().isdigit():
            raise DataError(f"target {target!r} is neither one of the {len(choices)} choices nor "
                            "an index")
        target = int(target.strip())
    if isinstance(target, bool) or not isinstance(target, int):
        raise DataError(f"target {target!r} is a {type(target).__name__}, not an index or a choice")
    if not 0 <= target < len(choices):
        raise DataError(f"target index {target} outside its {len(choices)} choices")
    return target


def _lists(doc: Mapping[str, Any]) -> list[list[Any]]:
    out = [v for v in doc.values() if isinstance(v, (list, tuple))]
    for v in doc.values():
        if isinstance(v, Mapping):
            out += [w for w in v.values() if isinstance(w, (list, tuple))]
    return [list(v) for v in out]


def option_texts(choices: Sequence[str], doc: Mapping[str, Any] | None, prompt: str) -> list[str]:
    """The option texts: ``choices`` themselves, or for label choices the document's list the
    prompt shows (see the module docstring)."""
    if not _is_labels(choices):
        return choices if isinstance(choices, list) else list(choices)
    lists = [v for v in _lists(doc or {}) if len(v) == len(choices) and v != list(choices)
             and all(isinstance(x, str) and x.strip() for x in v)]
    for values in lists:
        if not _is_labels(values) and all(v in prompt for v in values):
            return values
    if list(choices) in _lists(doc or {}):   # the document's own options are "1", "2", ...
        return list(choices)
    for values in lists:   # options that are themselves "1", "2", ...: shown as whole words
        if all(re.search(rf"(?<!\w){re.escape(v)}(?!\w)", prompt) for v in values):
            return values
    raise DataError(f"the choices are labels ({', '.join(choices)}) and no list of option texts in "
                    "the document appears in its prompt")


def _question(doc: Mapping[str, Any] | None, prompt: str, options: Sequence[str],
              listed: bool) -> str:
    fields = [v for v in (doc or {}).values()
              if isinstance(v, str) and v.strip() and v.strip() in prompt and v not in options]
    if fields:
        return max(fields, key=lambda v: len(v.strip()))   # the first of the longest
    # options listed in the prompt (label choices): the question is what comes before them
    cut = min((prompt.find(o) for o in options if o and o in prompt), default=-1) if listed else -1
    text = _TRAILING_LABEL.sub("", prompt[:cut]) if cut > 0 else prompt
    return text.strip()


def mc_item(benchmark: str, instance_id: str, prompt: str, choices: Any, target: Any,
            doc: Mapping[str, Any] | None = None) -> BenchmarkItem:
    """The item of one multiple-choice document (see the module docstring)."""
    if not isinstance(choices, (list, tuple)):
        raise DataError(f"the choices are a {type(choices).__name__}, not a list")
    if len(choices) < 2:
        raise DataError(f"{len(choices)} choice(s); a multiple-choice probe needs at least 2")
    if not all(isinstance(c, str) for c in choices):
        raise DataError(f"the choices are not all text: {list(choices)!r:.80}")
    if not isinstance(prompt, str):
        raise DataError(f"the prompt is a {type(prompt).__name__}, not text")
    choices = list(choices)
    answer = answer_index(target, choices)
    options = option_texts(choices, doc, prompt)
    rules = task_rules(benchmark)
    meta = {k: (doc or {})[k] for k in rules.hint_fields
            if isinstance((doc or {}).get(k), str) and (doc or {})[k]}
    question = _question(doc, prompt, options, listed=options is not choices)
    return BenchmarkItem(benchmark, instance_id, question, tuple(options), answer, meta)
