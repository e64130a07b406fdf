"""One entry point for every instance source: guesses the format from what ``source`` is."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import DataError, InputError
from ._bug import BugInstance
from ._bugsinpy import load_bugsinpy
from ._defects4j import load_defects4j
from ._multi_swe_bench import is_multi_swe_bench, load_multi_swe_bench_instances
from ._swebench import load_swebench

INSTANCE_FORMATS = ("auto", "swebench", "multi-swe-bench", "bugsinpy", "defects4j")


def _guess(path: Path) -> str:
    if is_multi_swe_bench(path):
        return "multi-swe-bench"
    if path.is_file():
        return "swebench"
    if (path / "projects").is_dir() or (path / "bugs").is_dir() or any(
            (p / "bugs").is_dir() for p in path.iterdir() if p.is_dir()):
        return "bugsinpy"
    return "defects4j"


def load_instances(source: str | os.PathLike[str], fmt: str = "auto", *,
                   benchmark: str | None = None) -> list[BugInstance]:
    """Instances from a SWE-bench jsonl/json file or dataset name, a Multi-SWE-bench jsonl file or
    folder of them, a BugsInPy checkout, or a Defects4J projects folder. ``fmt="auto"`` decides
    from what ``source`` is on disk (a jsonl whose first record has ``fix_patch`` and ``base`` is
    Multi-SWE-bench)."""
    if fmt not in INSTANCE_FORMATS:
        raise InputError(f"unknown instances format {fmt!r}; choose one of {', '.join(INSTANCE_FORMATS)}")
    path = Path(source)
    if fmt == "auto":
        fmt = _guess(path) if path.exists() else "swebench"
    if fmt == "swebench":
        out = load_swebench(source, benchmark=benchmark)
    elif fmt == "multi-swe-bench":
        out = load_multi_swe_bench_instances(source)
    elif fmt == "bugsinpy":
        out = load_bugsinpy(source)
    else:
        out = load_defects4j(source)
    if not out:   # an empty file or folder is no benchmark: a run over it would succeed at nothing
        raise DataError(f"{source}: no {fmt} instances")
    return out
