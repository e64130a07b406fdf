"""Per-benchmark wording and probe rules, read from ``task_rules.yaml`` (data, not code).

MMLU and TruthfulQA keep Deng et al.'s published setting (three wrong options shown, no length
limit on the hidden option); every other multiple-choice task (flags' benchmark = the task's name)
takes the ``default`` entry: one wrong option is enough (two-option tasks: the correct option is
shown and the wrong one hidden, unless the question itself holds it), and a hidden option longer
than ``max_hidden_words`` is not asked for (the reply is 32 tokens).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ..errors import DataError

_FILE = "task_rules.yaml"
_KEYS = ("hint", "name", "hint_fields", "spaces_for_underscores", "min_wrong", "max_hidden_words")


@dataclass(frozen=True)
class TaskRules:
    """How one benchmark's items are shown and which of them are asked (see the data file)."""

    hint: str
    name: str
    hint_fields: tuple[str, ...]
    spaces_for_underscores: bool
    min_wrong: int
    max_hidden_words: int


@cache
def _table() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    import yaml

    text = resources.files(__package__).joinpath(_FILE).read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    default, benchmarks = data.get("default"), data.get("benchmarks") or {}
    if not isinstance(default, dict) or set(default) != set(_KEYS):
        raise DataError(f"{_FILE}: 'default' must set exactly {', '.join(_KEYS)}")
    for name, entry in benchmarks.items():
        unknown = set(entry or {}) - set(_KEYS)
        if unknown:
            raise DataError(f"{_FILE}: benchmark '{name}': unknown key(s) {', '.join(sorted(unknown))}")
    return default, benchmarks


@cache
def task_rules(benchmark: str) -> TaskRules:
    """The rules of ``benchmark`` (its entry over ``default``)."""
    default, benchmarks = _table()
    entry = {**default, **(benchmarks.get(benchmark) or {})}
    return TaskRules(str(entry["hint"]), str(entry["name"]).replace("{task}", benchmark),
                     tuple(str(f) for f in entry["hint_fields"]),
                     bool(entry["spaces_for_underscores"]), int(entry["min_wrong"]),
                     int(entry["max_hidden_words"]))
