"""The benchmark's instance list (the denominator) and per-instance difficulty tiers.

Sources: a ``.jsonl`` / ``.json`` / ``.csv`` / ``.parquet`` file with an ``instance_id`` column (and
``difficulty`` for tiers), a ``.json`` list of ids, or a Hugging Face ``datasets`` name
(``princeton-nlp/SWE-bench_Verified``; loaded with ``datasets.load_dataset``). Labels become
tiers by their scheme (:mod:`benchchecker_plugin.tier_schemes`: Multi-SWE-bench's easy / medium /
hard, SWE-bench Verified's four checked labels, or labels as written). Multi-SWE-bench's own annotation workbooks
(``annotations/<lang>.xlsx``) are tiers too: read by
:func:`~benchchecker_plugin.instances.load_multi_swe_bench_tiers`, keyed by the run's ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataError
from ..safe_io import is_input_file
from ..table_files import WORKBOOK, load_table
from ..tier_schemes import is_empty_label, map_labels


def _column(table: pd.DataFrame, name: str, source: Any) -> pd.Series:
    if name not in table.columns:
        raise DataError(f"{source}: no '{name}' column (has {', '.join(map(str, table.columns))})")
    return table[name]


def load_instance_ids(source: str | Path, *, id_field: str = "instance_id",
                      split: str = "test") -> list[str]:
    """The benchmark's instance ids in file order; duplicates are an error."""
    ids = [str(v) for v in _column(load_table(source, split=split), id_field, source)]
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        dup = sorted({i for i in ids if i in seen or seen.add(i)})  # type: ignore[func-returns-value]
        raise DataError(f"{source}: duplicate instance ids: {', '.join(dup[:5])}")
    if not ids:
        raise DataError(f"{source}: no instances")
    return ids


def load_tiers(source: str | Path, *, field: str = "difficulty", id_field: str = "instance_id",
               scheme: str = "swe-bench-verified", split: str = "test",
               instance_ids: Iterable[str] | None = None) -> dict[str, str]:
    """``{instance_id: tier}``; ``scheme="multi-swe-bench"`` maps labels to easy/medium/hard.
    A Multi-SWE-bench annotation workbook (``.xlsx``) is keyed by ``instance_ids`` (``org__repo-N``;
    without them, by the workbook's ``org-repo-N``)."""
    if Path(source).suffix.lower() == WORKBOOK and is_input_file(Path(source)):
        if scheme != "multi-swe-bench":
            raise DataError(f"{source}: .xlsx tiers are Multi-SWE-bench annotation workbooks; "
                            "pass --benchmark multi-swe-bench")
        from ..instances import load_multi_swe_bench_tiers

        return load_multi_swe_bench_tiers(source, instance_ids)
    table = load_table(source, split=split)
    ids = [str(v) for v in _column(table, id_field, source)]
    labels = [str(v).strip() for v in _column(table, field, source)]
    if len(set(ids)) != len(ids):
        raise DataError(f"{source}: duplicate instance ids in the tiers table")
    labels = map_labels(scheme, labels, source)
    empty = [i for i, lab in zip(ids, labels) if is_empty_label(lab)]
    if empty:
        raise DataError(f"{source}: instances without a '{field}' value: {', '.join(empty[:5])}")
    return dict(zip(ids, labels))
