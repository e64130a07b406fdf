"""Multi-SWE-bench results: the harness's ``final_report.json`` and experiments ``results.json``.

``final_report.json`` (``multi_swe_bench.harness.report.FinalReport``) names instances
``org/repo:pr-N``; they are mapped to the dataset's ``instance_id`` form ``org__repo-N``. The
earlier experiments layout (``<submission>/results/results.json`` + ``metadata.yaml``) uses
SWE-bench-style reports with a ``resolved`` list.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import DataError
from ..safe_io import is_input_file
from ._submission import Submission, read_json
from ._swebench import load_experiments, resolved_from_results

_PR_ID = re.compile(r"^(?P<org>[^/\s]+)/(?P<repo>[^:\s]+):pr-(?P<number>\d+)$")


def msb_instance_id(report_id: str) -> str:
    """``org/repo:pr-N`` (harness report id) -> ``org__repo-N`` (dataset instance id); ids already
    in dataset form are returned unchanged."""
    m = _PR_ID.match(report_id)
    return f"{m['org']}__{m['repo']}-{m['number']}" if m else report_id


def load_final_report(path: str | Path, *, name: str | None = None) -> Submission:
    """One run from a ``final_report.json`` (submission name: its folder's name)."""
    file = Path(path)
    data = read_json(file)
    resolved, submitted = resolved_from_results(data, file)
    errors = tuple(f"{msb_instance_id(i)}: evaluation error" for i in data.get("error_ids") or [])
    run = name or file.parent.name
    return Submission(
        name=run, resolved=frozenset(msb_instance_id(i) for i in resolved),
        submitted=None if submitted is None else frozenset(msb_instance_id(i) for i in submitted),
        display_name=run, source=str(file), format="multi-swe-bench-final-report", errors=errors)


def load_multi_swe_bench_results(path: str | Path) -> list[Submission]:
    """A ``final_report.json`` file, a folder of runs each holding one, or an experiments folder."""
    root = Path(path)
    if is_input_file(root):
        return [load_final_report(root)]
    reports = sorted(root.glob("*/final_report.json")) + sorted(root.glob("final_report.json"))
    if reports:
        return [load_final_report(r) for r in reports]
    try:
        subs = load_experiments(root)
    except DataError:
        raise DataError(f"{root}: no final_report.json or <submission>/results/results.json") from None
    return [s.with_(resolved=frozenset(msb_instance_id(i) for i in s.resolved),
                    format="multi-swe-bench-experiments") for s in subs]
