"""One entry point for every results format: :func:`load_submissions`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import DataError, InputError
from ..safe_io import is_input_file
from ._harness_logs import load_inspect_log, load_lm_eval_samples
from ._multi_swe_bench import load_multi_swe_bench_results
from ._submission import Submission, read_json
from ._swebench import load_experiments, load_instance_logs, load_run_report


def _run_reports(path: Path) -> list[Submission]:
    if is_input_file(path):
        return [load_run_report(path)]
    files = sorted(path.glob("*.json"))
    if not files:
        raise DataError(f"{path}: no <model>.<run_id>.json run report")
    return [load_run_report(f) for f in files]


RESULTS_FORMATS: dict[str, Callable[[Path], list[Submission]]] = {
    "swebench-experiments": load_experiments,
    "swebench-run-report": _run_reports,
    "swebench-instance-logs": load_instance_logs,
    "multi-swe-bench": load_multi_swe_bench_results,
    "lm-eval": lambda p: [load_lm_eval_samples(p)],
    "inspect": lambda p: ([load_inspect_log(p)] if is_input_file(p)
                          else [load_inspect_log(f) for f in sorted(p.glob("*.eval"))]),
}


def detect_format(path: str | Path) -> str:
    """The name in :data:`RESULTS_FORMATS` that reads ``path`` (from file names and, for ``.json``, keys)."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such results file or folder")
    if is_input_file(p):
        if p.name == "results.json" and p.parent.name == "results":
            return "swebench-experiments"   # <submission>/results/results.json: named by its folder
        if p.name == "final_report.json":
            return "multi-swe-bench"
        if p.name.startswith("samples_") and p.suffix == ".jsonl":
            return "lm-eval"
        if p.suffix == ".eval":
            return "inspect"
        if p.suffix == ".json":
            data: Any = read_json(p)
            if isinstance(data, dict) and ("resolved_ids" in data or "resolved" in data):
                return "swebench-run-report"
            if isinstance(data, dict) and "eval" in data:
                return "inspect"
        raise DataError(f"{p}: unrecognised results file (expected a swebench run report, "
                        "final_report.json, samples_*.jsonl or an Inspect log)")
    if (is_input_file(p / "results" / "results.json") or any(p.glob("*/results/results.json"))
            or (p.name == "results" and is_input_file(p / "results.json"))):
        return "swebench-experiments"
    if is_input_file(p / "final_report.json") or any(p.glob("*/final_report.json")):
        return "multi-swe-bench"
    if any(p.glob("samples_*.jsonl")):
        return "lm-eval"
    if any(p.glob("*.eval")):
        return "inspect"
    if any(p.rglob("report.json")):
        return "swebench-instance-logs"
    if any(p.glob("*.json")):
        return "swebench-run-report"
    raise DataError(f"{p}: no results found (see `benchchecker leaderboard --help` for the layouts)")


def load_submissions(path: str | Path, format: str = "auto") -> list[Submission]:
    """Every submission / run under ``path``, in any format of :data:`RESULTS_FORMATS` (``"auto"``
    detects it). Submission names must be unique."""
    p = Path(path)
    fmt = detect_format(p) if format == "auto" else format
    if fmt not in RESULTS_FORMATS:
        raise InputError(f"unknown results format {format!r} (one of: auto, {', '.join(RESULTS_FORMATS)})")
    if not p.exists():
        raise InputError(f"{p}: no such results file or folder")
    subs = RESULTS_FORMATS[fmt](p)
    names = [s.name for s in subs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise DataError(f"{p}: duplicate submission names: {', '.join(dup[:5])}")
    return subs
