"""Multi-SWE-bench difficulty tiers from its manual-verification workbooks (``<lang>.xlsx``).

Each row is one instance (``50_java_apache-dubbo-10638``: a running number, the language, then
``org-repo-number``) labelled by two annotators. Question 5.1 is the time an experienced
engineer needs, in Chinese: ``<15 分钟`` / ``15 分钟 - 1小时`` / ``1-4 小时`` / ``4 小时以上``, grouped as
the paper does: easy (< 15 min), medium (15 min - 1 h), hard (>= 1 h). An instance's tier is the
harder of its two labels (one label when the other annotator left it blank), the way SWE-bench
Verified keeps the most severe of its annotators' labels.

Reading ``.xlsx`` needs ``openpyxl`` (``pip install 'benchchecker_plugin[xlsx]'``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from ..errors import DataError, InputError

TIER_ORDER = ("easy", "medium", "hard")
_LABELS = (  # (pattern on the label's start, tier); the Chinese workbook labels, then English ones
    (re.compile(r"^<\s*15"), "easy"),
    (re.compile(r"^15\s*(分钟|min)"), "medium"),
    (re.compile(r"^1\s*-\s*4"), "hard"),
    (re.compile(r"^(>\s*4|4\s*小时以上)"), "hard"),
    (re.compile(r"^(easy|medium|hard)$", re.I), None),
)
_ROW_ID = re.compile(r"^\d+_[A-Za-z+]+_(?P<key>.+)$")
_DATASET_ID = re.compile(r"^[\w.-]+__[\w.-]+-\d+$")   # some rows name the instance as the dataset does
_QUESTION = "5.1"


def tier_of_label(label: str) -> str | None:
    """``"15 分钟 - 1小时：..."`` -> ``"medium"``; ``None`` for a blank label; :class:`DataError` if unknown."""
    text = str(label).strip()
    if not text or text.lower() in ("nan", "none"):
        return None
    for pattern, tier in _LABELS:
        m = pattern.match(text)
        if m:
            return tier or m.group(1).lower()
    raise DataError(f"unknown Multi-SWE-bench difficulty label {text!r}")


def _key(text: str) -> str:
    """``org__repo-N`` and ``org-repo-N`` compared alike (lower case, ``__`` as ``-``)."""
    return text.strip().lower().replace("__", "-")


def load_multi_swe_bench_tiers(path: str | os.PathLike[str],
                               instance_ids: Iterable[str] | None = None) -> dict[str, str]:
    """``{instance: tier}`` from one annotation workbook.

    With ``instance_ids`` (dataset ids, ``org__repo-N``) the rows are keyed by those ids and rows
    of other instances are left out; without, by the row's ``org-repo-N``. Rows that no annotator
    labelled are left out. Raises :class:`InputError` when the file is missing or ``openpyxl`` is
    not installed, :class:`DataError` for a workbook without the question 5.1 columns or with an
    unknown label.
    """
    file = Path(path)
    if not file.is_file():
        raise InputError(f"{file}: annotation workbook not found")
    import pandas as pd

    try:
        table = pd.read_excel(file, dtype=str)
    except ImportError as exc:
        raise InputError(f"{file}: reading .xlsx needs openpyxl (pip install 'benchchecker_plugin[xlsx]')") from exc
    except ValueError as exc:
        raise DataError(f"{file}: not a readable workbook ({exc})") from exc
    id_col = next((c for c in table.columns if "instance_id" in str(c)), None)
    label_cols = [c for c in table.columns if re.search(rf"{re.escape(_QUESTION)}(-\d+)?[：:]", str(c))]
    if id_col is None or not label_cols:
        raise DataError(f"{file}: no instance_id column or no question {_QUESTION} (time to fix) columns")
    wanted = {_key(i): i for i in instance_ids} if instance_ids is not None else None
    out: dict[str, str] = {}
    for n, row in table.iterrows():
        raw = str(row[id_col]).strip()
        m = _ROW_ID.match(raw)
        if not m and not _DATASET_ID.match(raw):
            continue  # a blank or summary row
        tiers = []
        for col in label_cols:
            try:
                tier = tier_of_label(row[col])
            except DataError as exc:
                raise DataError(f"{file} row {int(n) + 2} ({raw}): {exc}") from None
            if tier is not None:
                tiers.append(tier)
        if not tiers:
            continue
        key = _key(m.group("key") if m else raw)
        if wanted is not None:
            if key not in wanted:
                continue
            key = wanted[key]
        out[key] = max(tiers, key=TIER_ORDER.index)
    return out
