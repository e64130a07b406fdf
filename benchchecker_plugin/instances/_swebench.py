"""SWE-bench-form instances: a ``.jsonl`` / ``.json`` file or a Hugging Face dataset name."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from ..benchmarks import benchmark_of_source
from ..errors import DataError, HubUnavailableError, InputError
from ..hub_reach import load_hub_dataset
from ..repos import detect_language
from ..safe_io import is_input_file, read_input_text
from ._bug import BugInstance

_REQUIRED = ("instance_id", "repo", "base_commit", "patch")
_EXTRA = ("version", "environment_setup_commit", "problem_statement", "hints_text", "difficulty",
          # swebench 5 harness fields (the SWE-bench/* datasets carry them)
          "image", "eval_script", "log_parser", "eval_type", "image_assets")


def _test_list(value: Any, where: str, name: str) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise DataError(f"{where}: field {name!r} is neither a list nor a JSON list") from exc
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataError(f"{where}: field {name!r} must be a list of test names")
    return tuple(value)


def _language(patch: str, default: str) -> str:
    for line in patch.splitlines():
        if line.startswith("+++ b/"):
            lang = detect_language(line[6:].strip())
            if lang:
                return lang
    return default


def instance_from_swebench(row: Mapping[str, Any], *, benchmark: str = "swe-bench-verified",
                           where: str = "<record>") -> BugInstance:
    """One SWE-bench dict -> :class:`BugInstance`; :class:`DataError` names the missing field."""
    missing = [k for k in _REQUIRED if not isinstance(row.get(k), str) or not row.get(k)]
    if missing:
        iid = row.get("instance_id", "?")
        raise DataError(f"{where}: instance {iid!r} lacks field(s) {', '.join(missing)}")
    iid = row["instance_id"]
    here = f"{where}: instance {iid!r}"
    try:
        return BugInstance(
            instance_id=iid, benchmark=benchmark, repo=row["repo"], base_commit=row["base_commit"],
            patch=row["patch"], test_patch=row.get("test_patch") or "",
            fail_to_pass=_test_list(row.get("FAIL_TO_PASS"), here, "FAIL_TO_PASS"),
            pass_to_pass=_test_list(row.get("PASS_TO_PASS"), here, "PASS_TO_PASS"),
            language=row.get("language") or _language(row["patch"], "python"),
            test_cmd=row.get("test_cmd"), created_at=_created_at(row.get("created_at"), here),
            extra={k: row[k] for k in _EXTRA if row.get(k) is not None},
        )
    except DataError as exc:
        if str(exc).startswith(where):
            raise
        raise DataError(f"{where}: {exc}") from None   # BugInstance's own check names no file


def _created_at(value: Any, where: str) -> str | None:
    """``created_at`` as an ISO text (``None`` when absent); anything else is a :class:`DataError`
    naming the instance, here where the file and line are known (not later, in patch-dates)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, str):
        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
            return value
        except ValueError:
            pass
    raise DataError(f"{where}: created_at {value!r} is not an ISO date")


def rows_from_file(path: Path) -> Iterable[tuple[str, Mapping[str, Any]]]:
    """``(where, record)`` of a ``.json`` list or a JSON Lines file; ``where`` names the file and
    the line (or index) for error messages."""
    try:
        text = read_input_text(path)
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from exc
        except RecursionError:
            raise DataError(f"{path}: not valid JSON (nested too deeply)") from None
        if not isinstance(data, list):
            raise DataError(f"{path}: expected a JSON list of instances")
        for i, row in enumerate(data):
            if not isinstance(row, Mapping):
                raise DataError(f"{path}[{i}]: an instance is a JSON object, got "
                                f"{type(row).__name__}")
            yield f"{path}[{i}]", row
        return
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}:{n}: not valid JSON ({exc.msg})") from exc
        except RecursionError:
            raise DataError(f"{path}:{n}: not valid JSON (nested too deeply)") from None
        if not isinstance(row, Mapping):
            raise DataError(f"{path}:{n}: an instance is a JSON object, got {type(row).__name__}")
        yield f"{path}:{n}", row


def load_swebench(source: str | os.PathLike[str], *, benchmark: str | None = None,
                  split: str = "test") -> list[BugInstance]:
    """Instances from a SWE-bench ``.jsonl``/``.json`` file or a dataset name
    (``princeton-nlp/SWE-bench_Verified``, loaded with :func:`datasets.load_dataset`)."""
    path = Path(source)
    if is_input_file(path):
        rows = list(rows_from_file(path))
        if not rows:
            raise DataError(f"{path}: no instances (the file holds no record)")
        name = benchmark or benchmark_of_source(path.name)
    else:
        if path.suffix in (".jsonl", ".json") or path.is_dir():
            raise InputError(f"{source}: instances file not found (nor a dataset name)")
        try:
            ds = load_hub_dataset(str(source), split=split)
        except Exception as exc:  # datasets raises many types; re-raised as ours with the name
            raise HubUnavailableError.of(f"{source} (split {split})", exc) from exc
        rows = [(f"{source}[{i}]", r) for i, r in enumerate(ds)]
        name = benchmark or benchmark_of_source(str(source))
    out = [instance_from_swebench(row, benchmark=name, where=where) for where, row in rows]
    _no_duplicates([(where, inst.instance_id) for (where, _), inst in zip(rows, out)])
    return out


def _no_duplicates(ids: list[tuple[str, str]]) -> None:
    """One instance id once per file: a duplicate became two flags, which ``flags validate`` and
    ``rescore`` then rejected and ``flags merge`` silently collapsed."""
    first: dict[str, str] = {}
    for where, iid in ids:
        if iid in first:
            raise DataError(f"{where}: instance {iid!r} again (first at {first[iid]}); each "
                            "instance once")
        first[iid] = where
