"""SWE-bench results: the experiments-repository layout, swebench run reports, per-instance logs.

- Experiments layout (``SWE-bench/experiments/evaluation/verified``): one folder per submission
  holding ``results/results.json`` (``{"resolved": [ids...]}``) and ``metadata.yaml`` and/or
  ``leaderboard_entry.json`` (name, date, ``"Model: ..."`` tags).
- Run report (``swebench.harness.reporting.make_run_report``): ``<model>.<run_id>.json`` with
  ``resolved_ids``, ``submitted_ids``, ``error_ids``, ``completed_ids``, ...
- Per-instance logs: ``logs/run_evaluation/<run_id>/<model>/<instance_id>/report.json`` holding
  ``{instance_id: {"resolved": bool, ...}}``; an empty or malformed one counts as an error
  (unresolved), exactly as ``make_run_report`` counts it, and is listed in ``Submission.errors``.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from ..errors import DataError
from ..safe_io import file_kind, is_input_file, read_input_text
from ._submission import Submission, official_percent, read_json

_DATE_PREFIX = re.compile(r"^(\d{4})(\d{2})(\d{2})_")


def resolved_from_results(data: Any, source: Path) -> tuple[frozenset[str], frozenset[str] | None]:
    """``(resolved, submitted)`` from a results / run-report object (``resolved_ids`` or
    ``resolved``, optional ``submitted_ids``)."""
    if not isinstance(data, Mapping):
        raise DataError(f"{source}: expected a JSON object with 'resolved' or 'resolved_ids', "
                        f"got {type(data).__name__}")
    key = "resolved_ids" if "resolved_ids" in data else "resolved" if "resolved" in data else None
    if key is None:
        raise DataError(f"{source}: no 'resolved' or 'resolved_ids' list")
    resolved = _id_set(data[key], source, key)
    submitted = _id_set(data["submitted_ids"], source, "submitted_ids") \
        if "submitted_ids" in data else None
    return resolved, submitted


def _id_set(value: Any, source: Path, key: str) -> frozenset[str]:
    """The ids of a list of instance id strings, each interned (a leaderboard's submissions
    resolve the same ids: one string each, not one per run); repeated ids are an error."""
    if not isinstance(value, list) or not all(issubclass(t, str) for t in set(map(type, value))):
        raise DataError(f"{source}: field '{key}' must be a list of instance id strings")
    ids = frozenset(map(sys.intern, value))
    if len(ids) != len(value):
        dup = sorted({v for v in value if value.count(v) > 1})
        raise DataError(f"{source}: field '{key}' lists duplicate instance ids: {', '.join(dup[:5])}")
    return ids


def _model_from_tags(tags: Iterable[Any]) -> str:
    models = [str(t).split(":", 1)[1].strip() for t in tags
              if isinstance(t, str) and t.lower().startswith("model:")]
    return ";".join(models)


def _metadata(folder: Path) -> dict[str, str]:
    """name / model / date of an experiments submission folder, from what it holds."""
    meta: dict[str, str] = {}
    m = _DATE_PREFIX.match(folder.name)
    if m:
        meta["date"] = "-".join(m.groups())
    yml = folder / "metadata.yaml"
    if is_input_file(yml):
        try:
            data = yaml.safe_load(read_input_text(yml)) or {}
        except UnicodeDecodeError as exc:
            raise DataError(f"{yml}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        except yaml.YAMLError as exc:
            raise DataError(f"{yml}: malformed YAML ({_yaml_problem(exc)})") from None
        except RecursionError:
            raise DataError(f"{yml}: malformed YAML (nested too deeply to read)") from None
        if isinstance(data, Mapping):
            info = data.get("info")
            if not isinstance(info, Mapping):
                info = data
            if info.get("name"):
                meta["display_name"] = str(info["name"])
            tags = data.get("tags")
            if isinstance(tags, Mapping) and tags.get("model"):
                model = tags["model"]
                meta["model"] = ";".join(model) if isinstance(model, list) else str(model)
            elif data.get("model"):
                meta["model"] = str(data["model"])
    entry = folder / "leaderboard_entry.json"
    if is_input_file(entry):
        data = read_json(entry)
        if isinstance(data, Mapping):
            if data.get("name"):
                meta.setdefault("display_name", str(data["name"]))
            if data.get("date"):
                meta["date"] = str(data["date"])[:10]
            model = _model_from_tags(data.get("tags") or [])
            if model:
                meta.setdefault("model", model)
            pct = official_percent(data.get("resolved"), f"{entry}: field 'resolved'")
            if pct is not None:
                meta["official_pct"] = str(pct)
    return meta


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """The problem and where, on one line (PyYAML's own text spans several, with a caret)."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark else problem


def _partial(data: Any) -> str:
    """Why a results file's resolved list is incomplete: ids it could not settle
    (``"ambiguous"``), which are left out of ``resolved``."""
    ambiguous = data.get("ambiguous") if isinstance(data, Mapping) else None
    if isinstance(ambiguous, list) and ambiguous:
        note = str(data.get("ambiguous_note") or "").strip()
        return (f"partial resolved list: {len(ambiguous)} ambiguous ids left out"
                + (f" ({note})" if note else ""))
    return ""


def _load_experiment(folder: Path) -> Submission:
    results = folder / "results" / "results.json"
    data = read_json(results)
    resolved, submitted = resolved_from_results(data, results)
    meta = _metadata(folder)
    pct = meta.get("official_pct")
    return Submission(name=folder.name, resolved=resolved, submitted=submitted,
                      model=meta.get("model", ""), date=meta.get("date", ""),
                      display_name=meta.get("display_name", folder.name), source=str(folder),
                      format="swebench-experiments",
                      official_pct=float(pct) if pct is not None else None, partial=_partial(data))


def load_experiments(path: str | Path) -> list[Submission]:
    """Every submission under an experiments folder (or the one submission folder given, its
    ``results`` folder or its ``results/results.json``: named after the submission's folder)."""
    root = Path(path).absolute()
    if is_input_file(root) and root.name == "results.json" and root.parent.name == "results":
        root = root.parent.parent
    elif root.name == "results" and is_input_file(root / "results.json"):
        root = root.parent
    if is_input_file(root / "results" / "results.json"):
        return [_load_experiment(root)]
    folders = sorted(p for p in root.iterdir() if is_input_file(p / "results" / "results.json")) \
        if root.is_dir() else []
    if not folders:
        raise DataError(f"{root}: no <submission>/results/results.json found")
    return [_load_experiment(f) for f in folders]


def load_run_report(path: str | Path) -> Submission:
    """A swebench run report ``<model>.<run_id>.json`` (the model's ``/`` written as ``__``),
    named by its file stem; a file named otherwise names no model (``model`` is empty), and one
    named ``results.json`` is named after its folder ("results" would name nothing)."""
    file = Path(path)
    data = read_json(file)
    resolved, submitted = resolved_from_results(data, file)
    errors = tuple(f"{iid}: evaluation error" for iid in data.get("error_ids", []) or [])
    stem = file.stem
    model = stem.rsplit(".", 1)[0] if "." in stem else ""
    if stem == "results" and file.absolute().parent.name:
        stem = file.absolute().parent.name
    return Submission(name=stem, resolved=resolved, submitted=submitted,
                      model=model.replace("__", "/"), display_name=stem, source=str(file),
                      format="swebench-run-report", errors=errors)


def _regular_report(report: Path) -> None:
    """Refuse ``report`` by name unless it is a regular file (a FIFO would wait forever, and
    counting it as an instance that failed to evaluate hid it among the unresolved)."""
    try:
        mode = os.stat(report).st_mode
    except OSError:
        return   # a dangling link: read as a failed report, with its reason
    if not stat.S_ISREG(mode):
        raise DataError(f"{report}: is {file_kind(mode)}, not a regular file; refused (a harness "
                        "writes each instance's report.json as a file)")


def load_instance_logs(path: str | Path) -> list[Submission]:
    """Runs found as ``<run_id>/<model>/<instance_id>/report.json`` under ``path`` (e.g.
    ``logs/run_evaluation``); one submission ``<model>.<run_id>`` per (run, model)."""
    root = Path(path)
    reports = sorted(root.rglob("report.json"))
    if not reports:
        raise DataError(f"{root}: no <run_id>/<model>/<instance_id>/report.json found")
    for report in reports:   # a FIFO or device is no harness output: refused, never read
        _regular_report(report)
    runs: dict[tuple[str, str], dict[str, Any]] = {}
    for report in reports:
        instance_dir = report.parent
        model_dir = instance_dir.parent
        key = (model_dir.parent.name, model_dir.name)
        run = runs.setdefault(key, {"resolved": set(), "submitted": set(), "errors": []})
        iid = instance_dir.name
        run["submitted"].add(iid)
        try:
            content = read_input_text(report).strip()
            data = read_json(report) if content else None
            if data is None:
                raise DataError(f"{report}: empty report")
            if bool(data[iid]["resolved"]):
                run["resolved"].add(iid)
        except (DataError, KeyError, TypeError) as exc:
            run["errors"].append(f"{iid}: {exc}")
    out = []
    for (run_id, model), run in sorted(runs.items()):
        out.append(Submission(
            name=f"{model}.{run_id}", resolved=frozenset(run["resolved"]),
            submitted=frozenset(run["submitted"]), model=model.replace("__", "/"),
            display_name=f"{model}.{run_id}", source=str(root), format="swebench-instance-logs",
            errors=tuple(run["errors"])))
    return out
