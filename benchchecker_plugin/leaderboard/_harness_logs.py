"""Per-sample results of lm-evaluation-harness (``samples_*.jsonl``) and Inspect eval logs.

An instance counts as resolved when its metric is at its maximum (1.0: correct). Instance ids come
from the sample's document (``id_field``) or, failing that, ``<task>/<doc_id>`` (lm-eval) or the
Inspect sample id.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import DataError
from ..safe_io import is_input_file, open_input, read_input_text
from ._submission import Submission

_SAMPLES = re.compile(r"^samples_(?P<task>.+?)(_\d{4}-\d{2}-\d{2}T[\d\-\.:]+)?\.jsonl$")
_METRICS = ("acc", "exact_match", "pass@1", "acc_norm", "em")


def _lm_eval_value(record: Mapping[str, Any], metric: str | None, where: str) -> float:
    names = [metric] if metric else list(record.get("metrics") or []) + list(_METRICS)
    for name in names:
        if name in record:
            value = record[name]
            if isinstance(value, bool) or isinstance(value, (int, float)):
                return float(value)
            raise DataError(f"{where}: metric '{name}' is not a number ({value!r})")
    raise DataError(f"{where}: no metric {names[:4]} in the sample record")


def lm_eval_run_model(folder: Path) -> str | None:
    """The canonical model name (:func:`benchchecker_plugin.models.lm_eval_model_name`) of the
    newest lm-eval ``results_*.json`` in ``folder``, if any: the name flags of that model carry
    (``ts-guess``, ``lm-eval run --contamination-detect``)."""
    from ..models import lm_eval_model_name

    for results in sorted(folder.glob("results_*.json"), reverse=True):
        try:
            data = json.loads(read_input_text(results))
        except (OSError, json.JSONDecodeError):
            continue
        config = data.get("config") if isinstance(data.get("config"), Mapping) else {}
        args = config.get("model_args")
        if isinstance(args, str):
            args = dict(kv.split("=", 1) for kv in args.split(",") if "=" in kv)
        if config.get("model") and isinstance(args, Mapping):
            return lm_eval_model_name(str(config["model"]), args)
        if data.get("model_name"):
            return str(data["model_name"])
    return None


def load_lm_eval_samples(path: str | Path, *, metric: str | None = None,
                         id_field: str | None = None, name: str | None = None) -> Submission:
    """One run from a ``samples_<task>_<timestamp>.jsonl`` file, or every such file in a folder.

    Instance ids, first match wins: ``doc[id_field]`` when ``id_field`` is given; the id our lm-eval
    wrapper wrote into the line (``record["benchchecker"]["instance_id"]``); ``doc["instance_id"]``;
    ``<doc["subject"]>/<doc_id>`` (MMLU docs: the flags' MMLU ids); else ``<task>/<doc_id>``.
    """
    root = Path(path)
    files = sorted(root.glob("samples_*.jsonl")) if root.is_dir() else [root]
    if not files or not is_input_file(files[0]):
        raise DataError(f"{root}: no samples_*.jsonl file")
    resolved: set[str] = set()
    submitted: set[str] = set()
    for file in files:
        m = _SAMPLES.match(file.name)
        task = m["task"] if m else file.stem
        with io.TextIOWrapper(open_input(file), encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                where = f"{file}:{lineno}"
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"{where}: malformed JSON ({exc.msg})") from None
                doc = record.get("doc") if isinstance(record.get("doc"), Mapping) else {}
                note = record.get("benchchecker") if isinstance(record.get("benchchecker"), Mapping) else {}
                if id_field and id_field in doc:
                    iid = str(doc[id_field])
                elif note.get("instance_id"):  # written by the lm-eval wrapper
                    iid = str(note["instance_id"])
                elif doc.get("instance_id"):    # our TS-Guessing tasks carry the flag id in the doc
                    iid = str(doc["instance_id"])
                elif isinstance(doc.get("subject"), str) and doc["subject"] and "doc_id" in record:
                    # an MMLU doc (lm-eval's mmlu_*, our mmlu_local_*): the flags' "<subject>/<row>"
                    iid = f"{doc['subject']}/{record['doc_id']}"
                elif "doc_id" in record:
                    iid = f"{task}/{record['doc_id']}"
                else:
                    raise DataError(f"{where}: no doc_id (and no '{id_field}' in doc)")
                if iid in submitted:
                    continue  # one record per (doc, filter): the first filter decides
                submitted.add(iid)
                if _lm_eval_value(record, metric, where) >= 1.0:
                    resolved.add(iid)
    run = name or (root.name if root.is_dir() else root.parent.name)
    model = lm_eval_run_model(root if root.is_dir() else root.parent) or ""
    return Submission(name=run, resolved=frozenset(resolved), submitted=frozenset(submitted),
                      model=model, display_name=run, source=str(root), format="lm-eval-samples")


def _inspect_instance_id(sample: Any) -> str:
    meta = sample.metadata if isinstance(sample.metadata, Mapping) else {}
    note = meta.get("benchchecker")
    if isinstance(note, Mapping) and note.get("instance_id") not in (None, ""):
        return str(note["instance_id"])
    if meta.get("instance_id") not in (None, ""):
        return str(meta["instance_id"])
    return str(sample.id)


def load_inspect_log(path: str | Path, *, scorer: str | None = None,
                     name: str | None = None) -> Submission:
    """One run from an Inspect eval log (``.eval`` or ``.json``), read with ``read_eval_log``.

    A sample's instance id is the one the benchchecker hook wrote
    (``sample.metadata["benchchecker"]["instance_id"]``, e.g. ``<subject>/<row>`` for an
    inspect_evals MMLU sample numbered 1..N), then ``metadata["instance_id"]``, then its id."""
    from ..extras import require

    read_eval_log = require("inspect_ai.log", "reading an Inspect log").read_eval_log
    from inspect_ai.scorer import value_to_float

    open_input(path).close()   # a FIFO or device is refused by name, not waited on by Inspect

    from ..models import canonical_model_name

    file = Path(path)
    try:
        log = read_eval_log(str(file))
    except Exception as exc:  # inspect raises many types for a bad file; re-raised as ours
        raise DataError(f"{file}: not a readable Inspect eval log ({exc})") from exc
    to_float = value_to_float()
    resolved: set[str] = set()
    submitted: set[str] = set()
    errors: list[str] = []
    for sample in log.samples or []:
        iid = _inspect_instance_id(sample)
        submitted.add(iid)
        if sample.error is not None:
            errors.append(f"{iid}: {sample.error.message}")
            continue
        scores = sample.scores or {}
        if not scores:
            errors.append(f"{iid}: no score")
            continue
        key = scorer or next(iter(scores))
        if key not in scores:
            raise DataError(f"{file}: sample {iid} has no score '{key}' (has {sorted(scores)})")
        if to_float(scores[key].value) >= 1.0:
            resolved.add(iid)
    run = name or file.stem
    return Submission(name=run, resolved=frozenset(resolved), submitted=frozenset(submitted),
                      model=canonical_model_name(str(log.eval.model)),
                      date=str(log.eval.created)[:10],
                      display_name=run, source=str(file), format="inspect-log",
                      errors=tuple(errors))
