"""Multi-SWE-bench instances: ``<org>__<repo>_dataset.jsonl`` files, or a folder of them.

A record names its repository by ``org`` and ``repo``, its buggy revision by ``base.sha``, and
carries the gold fix as ``fix_patch``. Its tests come as four dicts keyed by test name:
``f2p_tests`` (fail to pass), ``s2p_tests`` (skipped to pass), ``n2p_tests`` (absent before the
fix, passing after) and ``p2p_tests`` (pass to pass). The harness counts an instance resolved
when the first three pass and ``p2p_tests`` still pass, so :attr:`BugInstance.fail_to_pass` holds
the first three and :attr:`BugInstance.pass_to_pass` the last.

The language is the record's ``language`` field when it has one, else the dataset's name of the
folder the file sits in (``c``, ``cpp``, ``go``, ``java``, ``js``, ``rust``, ``ts``), else the most
frequent language of the files the fix changes (C headers next to C++ files count as C++).
"""

from __future__ import annotations

import io
import json
import os
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import DataError, InputError
from ..repos import detect_language
from ..safe_io import open_input
from ._bug import BugInstance
from ._swebench import rows_from_file

BENCHMARK = "multi-swe-bench"
_FOLDER_LANGUAGE = {"c": "c", "cpp": "cpp", "c++": "cpp", "go": "go", "java": "java", "js": "javascript",
                    "javascript": "javascript", "ts": "typescript", "typescript": "typescript",
                    "rust": "rust", "python": "python"}
_DIFF_FILE = re.compile(r"^diff --git a/\S+ b/(\S+)", re.M)


def _tests(row: Mapping[str, Any], key: str, here: str) -> tuple[str, ...]:
    value = row.get(key)
    if value is None:
        return ()
    if isinstance(value, Mapping):
        return tuple(str(k) for k in value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise DataError(f"{here}: field {key!r} must map test names to results (or list them)")


def _language(patch: str, folder_hint: str | None) -> str:
    folder = _FOLDER_LANGUAGE.get((folder_hint or "").lower())
    if folder:
        return folder
    counts = Counter(lang for path in _DIFF_FILE.findall(patch) if (lang := detect_language(path)))
    if "cpp" in counts and "c" in counts:  # .h headers of a C++ project
        counts["cpp"] += counts.pop("c")
    if counts:
        return max(sorted(counts), key=lambda lang: counts[lang])
    return "unknown"


def _problem_statement(row: Mapping[str, Any]) -> str:
    issues = row.get("resolved_issues") or []
    parts = [f"{i.get('title') or ''}\n{i.get('body') or ''}".strip()
             for i in issues if isinstance(i, Mapping)]
    return "\n\n".join(p for p in parts if p) or f"{row.get('title') or ''}\n{row.get('body') or ''}".strip()


def instance_from_multi_swe_bench(row: Mapping[str, Any], *, where: str = "<record>",
                                  folder_hint: str | None = None) -> BugInstance:
    """One Multi-SWE-bench record -> :class:`BugInstance`; :class:`DataError` names what is missing."""
    if not isinstance(row, Mapping):
        raise DataError(f"{where}: expected a JSON object, got {type(row).__name__}")
    base = row.get("base")
    base = base if isinstance(base, Mapping) else {}
    sha = base.get("sha")
    fields = {"org": row.get("org"), "repo": row.get("repo"), "base.sha": sha,
              "fix_patch": row.get("fix_patch")}
    missing = [k for k, v in fields.items() if not isinstance(v, str) or not v]
    number = row.get("number")
    if not isinstance(number, int) and not (isinstance(number, str) and number.isdigit()):
        missing.append("number")
    iid = row.get("instance_id") or (f"{row.get('org')}__{row.get('repo')}-{number}" if not missing else "?")
    if missing:
        raise DataError(f"{where}: instance {iid!r} lacks field(s) {', '.join(missing)}")
    assert isinstance(number, (int, str))  # checked above: else "number" is missing
    here = f"{where}: instance {iid!r}"
    patch = str(row["fix_patch"])
    return BugInstance(
        instance_id=str(iid), benchmark=BENCHMARK, repo=f"{row['org']}/{row['repo']}", base_commit=str(sha),
        patch=patch, test_patch=row.get("test_patch") or "",
        fail_to_pass=(*_tests(row, "f2p_tests", here), *_tests(row, "s2p_tests", here),
                      *_tests(row, "n2p_tests", here)),
        pass_to_pass=_tests(row, "p2p_tests", here),
        language=row.get("language") or _language(patch, folder_hint),
        created_at=row.get("created_at"),
        extra={"number": int(number), "title": row.get("title") or "",
               "problem_statement": _problem_statement(row), "base_ref": base.get("ref"),
               "f2p_tests": _tests(row, "f2p_tests", here), "s2p_tests": _tests(row, "s2p_tests", here),
               "n2p_tests": _tests(row, "n2p_tests", here)},
    )


def _jsonl_files(folder: Path) -> list[Path]:
    """``folder/*.jsonl`` and ``folder/*/*.jsonl`` (the dataset's ``<lang>/`` folders), in path order."""
    return sorted(p for p in (*folder.glob("*.jsonl"), *folder.glob("*/*.jsonl")) if p.is_file())


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        files = _jsonl_files(path)
        if files:
            return files
        raise InputError(f"{path}: no .jsonl files of Multi-SWE-bench instances in this folder")
    raise InputError(f"{path}: Multi-SWE-bench instances file or folder not found")


def is_multi_swe_bench(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (a ``.jsonl`` file, or a folder holding some) starts with a Multi-SWE-bench
    record: an object with ``fix_patch`` and ``base`` (SWE-bench has ``patch`` and ``base_commit``)."""
    root = Path(path)
    files = [root] if root.is_file() else _jsonl_files(root) if root.is_dir() else []
    if not files:
        return False
    first = files[0]
    with io.TextIOWrapper(open_input(first), encoding="utf-8", errors="replace") as fh:
        line = next((ln for ln in fh if ln.strip()), "")
    try:
        row = json.loads(line)
    except (json.JSONDecodeError, RecursionError):  # the SWE-bench reader says what is wrong
        return False
    return isinstance(row, dict) and "fix_patch" in row and "base" in row


def load_multi_swe_bench_instances(source: str | os.PathLike[str]) -> list[BugInstance]:
    """Instances from a Multi-SWE-bench ``.jsonl`` file or a folder of them (its ``*.jsonl`` and
    ``*/*.jsonl``, in path order). A repeated ``instance_id`` is a :class:`DataError`."""
    out: list[BugInstance] = []
    seen: dict[str, str] = {}
    for file in _files(Path(source)):
        for where, row in rows_from_file(file):
            try:
                inst = instance_from_multi_swe_bench(row, where=where, folder_hint=file.parent.name)
            except DataError as exc:   # BugInstance's own check (repository name) names no file
                raise exc if str(exc).startswith(where) else DataError(f"{where}: {exc}") from None
            if inst.instance_id in seen:
                raise DataError(f"{where}: instance {inst.instance_id!r} repeats {seen[inst.instance_id]}")
            seen[inst.instance_id] = where
            out.append(inst)
    return out
