"""A table of instances read from a file (``.jsonl``, ``.json``, ``.csv``, ``.parquet``) or, when
no such file exists, a ``datasets`` name (``datasets.load_dataset``, the real loading path)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .errors import DataError
from .hub_reach import load_hub_dataset
from .safe_io import is_input_file, open_input, read_input_text

__all__ = ["WORKBOOK", "load_table"]

_SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")
WORKBOOK = ".xlsx"   # a Multi-SWE-bench annotation workbook: tiers, not an instance list


def load_table(source: str | Path, *, split: str = "test") -> pd.DataFrame:
    """A table of instances from a file, or from a ``datasets`` name when no such file exists."""
    path = Path(source)
    if is_input_file(path):
        suffix = path.suffix.lower()
        try:
            if suffix == ".jsonl":
                with open_input(path) as fh:
                    return pd.read_json(fh, lines=True, dtype=False)
            if suffix == ".json":
                data = json.loads(read_input_text(path))
                if isinstance(data, list) and all(isinstance(v, str) for v in data):
                    return pd.DataFrame({"instance_id": data})
                return pd.DataFrame(data)
            if suffix == ".csv":
                with open_input(path) as fh:
                    return pd.read_csv(fh, dtype=str, keep_default_na=False)
            if suffix == ".parquet":
                with open_input(path) as fh:
                    return pd.read_parquet(fh)
            if suffix == WORKBOOK:
                raise DataError(f"{path}: a Multi-SWE-bench annotation workbook labels tiers "
                                "(--tiers with --benchmark multi-swe-bench); it is no instance "
                                "list: give --instances")
        except (ValueError, json.JSONDecodeError) as exc:
            raise DataError(f"{path}: cannot read as {suffix[1:]} ({exc})") from None
        except RecursionError:
            raise DataError(f"{path}: cannot read as {suffix[1:]} (nested too deeply)") from None
        raise DataError(f"{path}: unsupported file type (use one of {', '.join(_SUFFIXES)})")
    if path.suffix.lower() in _SUFFIXES or path.exists():
        raise DataError(f"{path}: {'a folder, not a table file' if path.is_dir() else 'no such file'}")
    try:
        return load_hub_dataset(str(source), split=split).to_pandas()
    except Exception as exc:  # datasets raises many types (offline, unknown name); re-raised as ours
        raise DataError(f"{source}: not a file and not a loadable dataset ({exc})") from exc
