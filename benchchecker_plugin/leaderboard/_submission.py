"""The record every results loader returns: one submission (or run) and what it resolved."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import DataError
from ..safe_io import read_input_text


@dataclass(frozen=True)
class Submission:
    """One leaderboard submission or harness run.

    ``name`` identifies it (folder or file stem); ``model`` is the model id(s) behind it,
    ``;``-separated when several (``""`` when unknown); ``date`` is ``YYYY-MM-DD`` or ``""``.
    ``resolved`` holds the resolved instance ids; ``submitted`` the ids it attempted, when the
    results say (``None`` otherwise). ``errors`` lists per-instance failures met while loading
    (e.g. an unreadable ``report.json``): those instances count as unresolved, never resolved.
    ``official_pct``: the resolved percentage the official leaderboard shows for it, when the
    results carry one (``leaderboard_entry.json``); ``partial``: why its resolved list is known to
    be incomplete (e.g. ambiguous ids left out), ``""`` when it is not.
    """

    name: str
    resolved: frozenset[str]
    model: str = ""
    date: str = ""
    display_name: str = ""
    submitted: frozenset[str] | None = None
    source: str = ""
    format: str = ""
    errors: tuple[str, ...] = field(default=(), hash=False)
    official_pct: float | None = None
    partial: str = ""

    def with_(self, **changes: Any) -> Submission:
        return replace(self, **changes)

    def within(self, ids: frozenset[str] | set[str]) -> Submission:
        """This submission on a subset of instances (``--instances``), as swebench's ``-i`` runs
        one: resolved, attempted and failed instances outside ``ids`` are simply not in it."""
        return replace(self, resolved=self.resolved & ids,
                       submitted=None if self.submitted is None else self.submitted & ids,
                       errors=tuple(e for e in self.errors if e.split(": ", 1)[0] in ids))

    @property
    def models(self) -> tuple[str, ...]:
        """The individual model ids (empty when unknown)."""
        return tuple(m.strip() for m in self.model.split(";") if m.strip())


def official_percent(value: Any, where: str) -> float | None:
    """A resolved percentage of an official leaderboard file (``where`` names the file and
    field): ``None`` when it gives none; one that is not a number from 0 to 100 (``NaN``,
    ``1e308``) is a :class:`DataError` naming ``where``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(f"{where}: expected a resolved percentage (a number), got {value!r}")
    if not math.isfinite(float(value)) or not 0 <= float(value) <= 100:
        raise DataError(f"{where}: {value!r} is not a resolved percentage (0 to 100)")
    return float(value)


def read_json(path: Path) -> Any:
    """Parse a JSON file; a malformed one is a :class:`DataError` naming the file."""
    try:
        text = read_input_text(path)
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 ({exc.reason})") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise DataError(f"{path}: malformed JSON (nested too deeply to read)") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: malformed JSON ({exc.msg} at line {exc.lineno})") from None
