"""Model training cutoffs from a file: the cutoff at which each model's flags are computed.

>>> table = read_cutoffs("model_cutoffs.csv")                      # doctest: +SKIP
>>> table.cutoffs["gpt-4o-2024-05-13"].text, table.unknown[:2]     # doctest: +SKIP
('2023-10', ('Qwen2.5-72B', 'Qwen2.5-7B'))

Three formats, told apart by their content:

- JSON, an object ``{"model": "cutoff", ...}`` (``null`` or ``"unknown"``: no published cutoff);
- CSV with ``model`` and ``cutoff`` columns (``model_cutoffs.csv``; other columns are ignored;
  an empty cutoff means none was published);
- CSV with ``submission`` and ``model_cutoffs`` columns holding ``model=cutoff`` pairs separated
  by ``;`` (the leaderboard's ``--model-map``, ``submission_models.csv``): one cutoff per distinct
  model of the submissions.

A cutoff is a published period, ``2023``, ``2023-10`` or ``2023-10-01`` (a
:class:`~benchchecker_plugin.cutoff.CutoffPeriod`: a snapshot "at" it includes the whole period).
A model without a known cutoff is not an error: it is left out and listed in ``unknown``, and the
rows that gave no model a cutoff are listed in ``skipped``. A malformed file, a cutoff that is not
a period, or one model given two cutoffs is a :class:`DataError` naming the file.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cutoff import CutoffPeriod
from .errors import DataError
from .safe_io import read_input_text

__all__ = ["ModelCutoffs", "read_cutoffs", "read_model_cutoffs"]

_UNKNOWN = frozenset({"", "unknown", "undisclosed", "none", "null", "nan", "n/a", "na", "?"})


@dataclass(frozen=True)
class ModelCutoffs:
    """The cutoffs read from ``path``: ``cutoffs`` (model -> period, in file order), ``unknown``
    (models named without a known cutoff) and ``skipped`` (labels of the rows -- model or
    submission names -- that gave no model a cutoff), both in file order."""

    path: str
    cutoffs: Mapping[str, CutoffPeriod]
    unknown: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()


class _Collector:
    """Model -> cutoff, refusing a model given two different cutoffs."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.cutoffs: dict[str, CutoffPeriod] = {}
        self.where: dict[str, str] = {}
        self.unknown: dict[str, None] = {}
        self.skipped: list[str] = []

    def add(self, model: str, value: object, where: str) -> bool:
        """Record ``model``'s cutoff ``value``; ``False`` when the value says it is unknown."""
        if model == "*":
            raise DataError(f"{self.path}: {where}: model '*' is not a model (in flags it means every "
                            "model); name the model whose cutoff this is")
        if any(ord(c) < 32 or ord(c) == 127 for c in model):
            raise DataError(f"{self.path}: {where}: model name {model!r} has a control character")
        if value is None or (isinstance(value, str) and value.strip().lower() in _UNKNOWN):
            self.unknown.setdefault(model)
            return False
        if not isinstance(value, str):
            raise DataError(f"{self.path}: {where}: cutoff {value!r} of model {model!r} is not a string "
                            "(YYYY, YYYY-MM, YYYY-MM-DD or an ISO datetime)")
        try:
            period = CutoffPeriod.parse(value)
        except DataError as exc:
            raise DataError(f"{self.path}: {where}: model {model!r}: {exc}") from None
        known = self.cutoffs.get(model)
        if known is not None and known.text != period.text:
            raise DataError(f"{self.path}: model {model!r} has two cutoffs, {known.text} "
                            f"({self.where[model]}) and {period.text} ({where})")
        if known is None:
            self.cutoffs[model] = period
            self.where[model] = where
        return True

    def result(self) -> ModelCutoffs:
        unknown = tuple(m for m in self.unknown if m not in self.cutoffs)
        return ModelCutoffs(self.path, dict(self.cutoffs), unknown, tuple(self.skipped))


def _no_duplicates(path: str) -> Any:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in items:
            if key in seen:   # json keeps the last one silently; the CSV refuses a repeated model
                raise DataError(f"{path}: model {key!r} is given twice")
            seen[key] = value
        return seen
    return pairs


def _from_json(text: str, out: _Collector) -> None:
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates(out.path))
    except json.JSONDecodeError as exc:
        raise DataError(f"{out.path}: not valid JSON ({exc.msg}, line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise DataError(f"{out.path}: the JSON is nested too deeply; expected an object {{model: cutoff}}") from None
    if not isinstance(data, dict):
        raise DataError(f"{out.path}: a JSON cutoffs file must be an object {{model: cutoff}}, "
                        f"not a {type(data).__name__}")
    for model, value in data.items():
        if not model.strip():
            raise DataError(f"{out.path}: an empty model name")
        if not out.add(model.strip(), value, f"key {model!r}"):
            out.skipped.append(model.strip())


def _from_model_rows(rows: csv.DictReader, out: _Collector) -> None:
    for n, row in enumerate(rows, start=2):
        model = (row.get("model") or "").strip()
        if not model:
            raise DataError(f"{out.path}: row {n} has no model")
        if not out.add(model, row.get("cutoff") or "", f"row {n}"):
            out.skipped.append(model)


def _from_submission_rows(rows: csv.DictReader, out: _Collector) -> None:
    for n, row in enumerate(rows, start=2):
        label = (row.get("submission") or "").strip() or f"row {n}"
        known = False
        for pair in (row.get("model_cutoffs") or "").split(";"):
            if not pair.strip():
                continue
            model, sep, value = pair.partition("=")
            if not sep or not model.strip():
                raise DataError(f"{out.path}: row {n} (submission {label!r}): {pair.strip()!r} is not "
                                "model=cutoff")
            known = out.add(model.strip(), value, f"row {n}") or known
        if not known:
            out.skipped.append(label)


def read_cutoffs(path: str | os.PathLike[str]) -> ModelCutoffs:
    """The model cutoffs of a JSON or CSV file (see the module doc for the three formats)."""
    name = os.fspath(path)
    try:
        text = read_input_text(path, encoding="utf-8-sig")
    except OSError as exc:
        raise DataError(f"{name}: cannot read the cutoffs file ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{name}: the cutoffs file is not UTF-8 text (byte {exc.start})") from None
    out = _Collector(name)
    if not text.strip():
        raise DataError(f"{name}: the cutoffs file is empty")
    if text.lstrip()[0] in "{[":
        _from_json(text, out)
        return out.result()
    try:
        rows = csv.DictReader(io.StringIO(text, newline=""))
        columns = {c.strip() for c in rows.fieldnames or ()}
        rows.fieldnames = [c.strip() for c in rows.fieldnames or ()]
        if {"model", "cutoff"} <= columns:
            _from_model_rows(rows, out)
        elif {"submission", "model_cutoffs"} <= columns:
            _from_submission_rows(rows, out)
        elif "submission" in columns:
            raise DataError(f"{name}: a model map gives cutoffs only with a 'model_cutoffs' column "
                            "(model=cutoff;...)")
        else:
            raise DataError(f"{name}: a cutoffs CSV needs 'model' and 'cutoff' columns, or "
                            f"'submission' and 'model_cutoffs' (found: {', '.join(sorted(columns))})")
    except csv.Error as exc:
        raise DataError(f"{name}: not a readable CSV ({exc})") from None
    return out.result()


def read_model_cutoffs(path: str | os.PathLike[str]) -> dict[str, CutoffPeriod]:
    """``{model: CutoffPeriod}`` of a cutoffs file (:func:`read_cutoffs`); models whose cutoff is
    unknown (unpublished) are left out."""
    return dict(read_cutoffs(path).cutoffs)
