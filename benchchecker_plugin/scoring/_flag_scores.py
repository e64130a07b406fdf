"""How well flags find the truly contaminated instances: flags grouped by (benchmark, model,
method), joined with ground-truth labels, each group scored by :func:`~.bootstrap.detection_metrics`
(what ``benchchecker score`` prints).

A label applies to its model's flags, or with model ``*`` (or no model column) to every model's;
a flag without a label is counted (``n_unlabeled``), never scored; an undecided flag counts as
not flagged (``n_undecided`` says how many).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import DataError
from ..flags import ContaminationFlag
from ..rescore_options import DEFAULT_N_BOOT, DEFAULT_SEED
from ..table_files import load_table
from ._bootstrap import detection_metrics

LABEL_TRUE = frozenset({"1", "true", "yes", "contaminated", "seen", "1.0"})
LABEL_FALSE = frozenset({"0", "false", "no", "clean", "unseen", "0.0"})
_METRICS = ("auc", "tpr_at_fpr", "tpr", "fpr", "precision")


def label_value(raw: Any, where: str) -> bool:
    """A label cell as a bool (1/0, true/false, contaminated/clean, ...); :class:`DataError`
    naming ``where`` otherwise."""
    text = str(raw).strip().lower()
    if text in LABEL_TRUE:
        return True
    if text in LABEL_FALSE:
        return False
    raise DataError(f"{where}: label {raw!r} is not one of 1/0, true/false, contaminated/clean")


def read_labels(path: str | os.PathLike[str]) -> dict[tuple[str, str], bool]:
    """``{(instance_id, model): label}`` from a .jsonl/.csv with ``instance_id``, ``label`` and
    optionally ``model`` columns (``*`` when absent); a duplicate is a :class:`DataError`."""
    path = Path(path)
    table = load_table(path)
    for col in ("instance_id", "label"):
        if col not in table.columns:
            raise DataError(f"{path}: labels need 'instance_id' and 'label' columns "
                            f"(has {', '.join(map(str, table.columns))})")
    models = table["model"].astype(str) if "model" in table.columns else ["*"] * len(table)
    out: dict[tuple[str, str], bool] = {}
    for k, (iid, model, label) in enumerate(zip(table["instance_id"], models, table["label"])):
        key = (str(iid), str(model) or "*")
        if key in out:
            raise DataError(f"{path}: duplicate label for instance {iid} (model {key[1]})")
        out[key] = label_value(label, f"{path}: row {k + 1}")
    return out


def score_flags(flags: Iterable[ContaminationFlag], labels: Mapping[tuple[str, str], bool], *,
                fpr: float = 0.05, n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULT_SEED) -> list[dict[str, Any]]:
    """One row per (benchmark, model, method), sorted: ``n``, ``n_unlabeled``, ``n_undecided``
    and, where a flag has a label, ``n_positive``, ``n_negative`` and each metric (``auc``,
    ``tpr_at_fpr``, ``tpr``, ``fpr``, ``precision``) with its ``_ci_low`` / ``_ci_high``."""
    groups: dict[tuple[str, str, str], list[ContaminationFlag]] = defaultdict(list)
    for f in flags:
        groups[(f.benchmark, f.model, f.method)].append(f)
    rows = []
    for (benchmark, model, method), group in sorted(groups.items()):
        y, s, pred, unlabeled, undecided = [], [], [], 0, 0
        for f in group:
            label = labels.get((f.instance_id, f.model), labels.get((f.instance_id, "*")))
            if label is None:
                unlabeled += 1
                continue
            y.append(label)
            s.append(f.score)
            pred.append(bool(f.contaminated))
            undecided += f.contaminated is None
        row: dict[str, Any] = {"benchmark": benchmark, "model": model, "method": method,
                               "n": len(y), "n_unlabeled": unlabeled, "n_undecided": undecided}
        if y:
            m = detection_metrics(y, s, flags=pred, fpr=fpr, n_boot=n_boot, seed=seed)
            row.update(n_positive=m.n_positive, n_negative=m.n_negative)
            for name in _METRICS:
                iv = getattr(m, name)
                row.update({name: iv.estimate, f"{name}_ci_low": iv.low, f"{name}_ci_high": iv.high})
        rows.append(row)
    return rows
