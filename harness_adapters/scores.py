"""Grouped (full / clean / contaminated) scores of one harness run, computed by the scorer.

A 0/1 per-instance metric (accuracy, exact match, resolved) goes through
:func:`benchchecker_plugin.scoring.rescore`, the function behind ``benchchecker rescore``, so a
wrapper prints the same numbers as ``benchchecker rescore`` on the same results and flags
(``relative_drop = 1 - clean / full``, stratified by tier, and its cluster-bootstrap interval
included; "too few" below 20 clean or 10 resolved clean instances, as there). A graded metric
(Rouge-L, a log-likelihood) is averaged per group with the same instance lists; it has no
bootstrap interval.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Unpack

import numpy as np

from benchchecker_plugin.flags import Verdict
from benchchecker_plugin.rescore_options import RescoreOptions, RescoreOverrides
from benchchecker_plugin.scoring import ALL_TIER, UndefinedMetricWarning, rescore

from .common import FilterMode, Group, Selection

__all__ = ["GroupedScore", "format_table", "grouped_scores", "pooled_scores", "verdicts_of"]

_VERDICT = {Group.CLEAN: Verdict.CLEAN, Group.CONTAMINATED: Verdict.CONTAMINATED,
            Group.UNDECIDED: Verdict.UNDECIDED}


@dataclass(frozen=True)
class GroupedScore:
    """One metric of one task (or run) in one tier, by contamination group.

    ``full`` is over every evaluated instance; ``clean`` / ``contaminated`` over the instances
    with that verdict; ``n_undecided`` counts the instances flagged undecided and ``n_unflagged``
    those no flag covers (both in ``full``, in neither group). ``nan`` where a group is empty or
    was not evaluated; ``note`` says why a drop is not estimated (``"too few (n=12 clean)"``).
    ``n_tasks`` > 1 marks a row pooled over that many tasks (:func:`pooled_scores`).
    """

    task: str
    metric: str
    filter: str | None
    tier: str
    mode: str
    n_instances: int
    n_clean: int
    n_contaminated: int
    n_undecided: int
    full: float
    clean: float
    contaminated: float
    relative_drop: float
    drop_ci_low: float
    drop_ci_high: float
    n_unflagged: int = 0
    note: str = ""
    n_tasks: int = 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``nan`` becomes ``None``)."""
        return {k: (None if isinstance(v, float) and math.isnan(v) else v)
                for k, v in asdict(self).items()}


def verdicts_of(selection: Selection, ids: Sequence[str] | None = None) -> dict[str, Verdict]:
    """``{instance_id: Verdict}`` of the selection (unflagged instances left out = undecided)."""
    keys = selection.groups if ids is None else ids
    return {i: _VERDICT[selection.groups[i]] for i in keys
            if selection.groups[i] is not Group.UNFLAGGED}


def _is_binary(values: np.ndarray) -> bool:
    return bool(np.all((values == 0.0) | (values == 1.0)))


def grouped_scores(values: Mapping[str, float], selection: Selection, *, task: str, metric: str,
                   filter: str | None = None, tiers: Mapping[str, str] | None = None,
                   options: RescoreOptions | None = None, **overrides: Unpack[RescoreOverrides]
                   ) -> list[GroupedScore]:
    """Per-tier grouped scores of ``values`` (``{instance_id: per-instance metric}``, the
    evaluated instances of the run) under ``selection``'s verdicts. One row per tier, ``"all"``
    first; ``tiers`` ``{instance_id: label}`` adds a row per label (as ``benchchecker rescore``).
    ``options`` (its fields also by name, ``overrides``): the bootstrap and the minimums, with
    ``benchchecker rescore``'s defaults.
    """
    ids = list(values)
    arr = np.asarray([values[i] for i in ids], dtype=float)
    verdicts = verdicts_of(selection, ids)
    if len(ids) and _is_binary(arr):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)  # select() already warned
            table = rescore([i for i, v in zip(ids, arr) if v == 1.0], ids, verdicts, tiers,
                            submission=task, model=selection.model,
                            options=RescoreOptions.of(options, **overrides))
        rows = table.to_dict("records")
    else:
        rows = _mean_rows(ids, arr, verdicts, tiers)
    unflagged = {i for i in ids if selection.groups.get(i) is Group.UNFLAGGED}
    out = []
    for row in rows:
        tier = str(row["tier"])
        n_unflagged = len(unflagged) if tier == ALL_TIER else sum(
            1 for i in unflagged if tiers is not None and str(tiers.get(i, "")) == tier)
        drop = float(row["relative_drop"])
        note = ""
        if math.isnan(drop) and selection.mode is FilterMode.BOTH and int(row["n_instances"]):
            note = f"too few (n={int(row['n_clean'])} clean)"
        out.append(GroupedScore(
            task=task, metric=metric, filter=filter, tier=str(row["tier"]),
            mode=selection.mode.value, n_instances=int(row["n_instances"]),
            n_clean=int(row["n_clean"]), n_contaminated=int(row["n_contaminated"]),
            n_undecided=int(row["n_undecided"]) - n_unflagged, n_unflagged=n_unflagged,
            note=note, full=float(row["original_rate"]),
            clean=float(row["clean_rate"]), contaminated=float(row["contaminated_rate"]),
            relative_drop=drop, drop_ci_low=float(row["drop_ci_low"]),
            drop_ci_high=float(row["drop_ci_high"])))
    if selection.mode is not FilterMode.BOTH:
        # Only one group was run: "full" is that group, the drop is not measured.
        out = [s.__class__(**{**asdict(s), "full": math.nan, "relative_drop": math.nan,
                              "drop_ci_low": math.nan, "drop_ci_high": math.nan}) for s in out]
    return out


def pooled_scores(per_task: Mapping[str, Mapping[tuple[str, str], Mapping[str, float]]],
                  selection: Selection, **kwargs: Any) -> list[GroupedScore]:
    """One ``all`` row per (filter, metric) over every task of one benchmark that has it: the
    tasks are the strata (as tiers in :func:`grouped_scores`), so the drop is the stratified,
    cluster-bootstrapped estimate over all of them. ``per_task``: ``{task: {(filter, metric):
    {instance_id: value}}}``. Nothing for a metric fewer than two tasks report; the row's task is
    ``pooled (K tasks)``. Tasks that ask the same items (an instance id in two tasks) are not
    pooled: the row says so in its note, with nothing estimated."""
    keys = sorted({k for values in per_task.values() for k in values})
    out: list[GroupedScore] = []
    for filt, metric in keys:
        tasks = sorted(t for t, values in per_task.items() if (filt, metric) in values)
        if len(tasks) < 2:
            continue
        merged: dict[str, float] = {}
        strata: dict[str, str] = {}
        shared = 0
        for task in tasks:
            for iid, value in per_task[task][(filt, metric)].items():
                shared += iid in merged
                merged[iid], strata[iid] = value, task
        name = f"pooled ({len(tasks)} tasks)"
        if shared:   # the same items asked twice (truthfulqa_mc1 and _mc2): pooling double-counts
            out.append(GroupedScore(
                task=name, metric=metric, filter=filt, tier=ALL_TIER, mode=selection.mode.value,
                n_instances=0, n_clean=0, n_contaminated=0, n_undecided=0, full=math.nan,
                clean=math.nan, contaminated=math.nan, relative_drop=math.nan,
                drop_ci_low=math.nan, drop_ci_high=math.nan, n_tasks=len(tasks),
                note=f"not pooled: {shared} instance ids in more than one task"))
            continue
        rows = grouped_scores(merged, selection, task=name, metric=metric, filter=filt,
                              tiers=strata, **kwargs)
        out += [dataclasses.replace(r, n_tasks=len(tasks)) for r in rows if r.tier == ALL_TIER]
    return out


def _mean_rows(ids: Sequence[str], arr: np.ndarray, verdicts: Mapping[str, Verdict],
               tiers: Mapping[str, str] | None) -> list[dict[str, Any]]:
    code = np.asarray([verdicts.get(i, Verdict.UNDECIDED).value for i in ids], dtype=object)
    groups: list[tuple[str, np.ndarray]] = [(ALL_TIER, np.ones(len(ids), bool))]
    if tiers:
        labels = np.asarray([str(tiers.get(i, "")) for i in ids], dtype=object)
        groups += [(t, labels == t) for t in sorted(set(labels) - {""})]

    def mean(mask: np.ndarray) -> float:
        return float(arr[mask].mean()) if mask.any() else math.nan

    rows = []
    for tier, mask in groups:
        clean, cont = mask & (code == "clean"), mask & (code == "contaminated")
        full, c = mean(mask), mean(clean)
        rows.append({"tier": tier, "n_instances": int(mask.sum()), "n_clean": int(clean.sum()),
                     "n_contaminated": int(cont.sum()),
                     "n_undecided": int(mask.sum() - clean.sum() - cont.sum()),
                     "original_rate": full, "clean_rate": c, "contaminated_rate": mean(cont),
                     "relative_drop": (full - c) / full if full and not math.isnan(c) else math.nan,
                     "drop_ci_low": math.nan, "drop_ci_high": math.nan})
    return rows


def _fmt(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.4f}"


def format_table(scores: Sequence[GroupedScore], *, title: str) -> str:
    """A plain-text table (Markdown pipes) of grouped scores, printed after the harness's own."""
    head = ["task", "filter", "metric", "tier", "n", "clean", "contam.", "undec.", "unflagged", "full",
            "clean", "contam.", "rel. drop", "drop 95% CI"]
    lines = [title, "|" + "|".join(head) + "|", "|" + "|".join("---" for _ in head) + "|"]
    for s in scores:
        ci = "-" if math.isnan(s.drop_ci_low) else f"[{s.drop_ci_low:.3f}, {s.drop_ci_high:.3f}]"
        cells = [s.task, s.filter or "", s.metric, s.tier, str(s.n_instances), str(s.n_clean),
                 str(s.n_contaminated), str(s.n_undecided), str(s.n_unflagged), _fmt(s.full),
                 _fmt(s.clean), _fmt(s.contaminated), s.note or _fmt(s.relative_drop), ci]
        lines.append("|" + "|".join(cells) + "|")
    return "\n".join(lines)
