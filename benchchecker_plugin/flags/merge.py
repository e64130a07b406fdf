"""Combining several methods' flags into one verdict per (benchmark, instance, model)."""

from __future__ import annotations

import enum
from collections import defaultdict
from typing import Iterable, Mapping

from ..errors import InputError
from .record import ANY_MODEL, ContaminationFlag, Verdict

__all__ = ["MERGED_METHOD", "MergePolicy", "merge_flags", "verdicts_for"]

MERGED_METHOD = "merged"


class MergePolicy(enum.Enum):
    """How decided method verdicts combine.

    - ``ANY``: contaminated if any method says contaminated; clean if at least one says clean and
      none says contaminated; undecided if no method decided. (Default: a filter should err on the
      side of removing what was probably seen.)
    - ``ALL``: contaminated only if every deciding method says so.
    - ``MAJORITY``: the larger side of the deciding methods wins; a tie is undecided.
    """

    ANY = "any"
    ALL = "all"
    MAJORITY = "majority"


def _combine(records: list[ContaminationFlag], policy: MergePolicy) -> bool | None:
    decided = [r.contaminated for r in records if r.contaminated is not None]
    if not decided:
        return None
    yes = sum(decided)
    no = len(decided) - yes
    if policy is MergePolicy.ANY:
        return yes > 0
    if policy is MergePolicy.ALL:
        return no == 0
    if yes == no:
        return None
    return yes > no


def merge_flags(flags: Iterable[ContaminationFlag],
                policy: MergePolicy | str = MergePolicy.ANY) -> list[ContaminationFlag]:
    """Merge flags of several methods into one record per (benchmark, instance_id, model).

    Records with ``model == "*"`` join every concrete model's group for the same instance; an
    instance flagged only by ``"*"`` records yields one merged ``"*"`` record. When the same
    (benchmark, instance, model, method) appears more than once, the newest ``created_at`` wins.

    The merged record has ``method = "merged"``, ``contaminated`` from ``policy``, ``score`` the
    maximum of the inputs' scores (each method's score is "higher = more likely seen"),
    ``p_value`` the minimum of the inputs' p-values (or null), and evidence listing every input
    method's verdict, score and p-value. Output order: benchmark, instance_id, model.
    """
    policy = MergePolicy(policy)
    latest: dict[tuple[str, str, str, str], ContaminationFlag] = {}
    for flag in flags:
        if flag.method == MERGED_METHOD:
            raise InputError(
                f"cannot merge already-merged flags (instance {flag.instance_id}); "
                "merge the per-method files instead")
        old = latest.get(flag.key)
        if old is None or flag.created_at >= old.created_at:
            latest[flag.key] = flag

    by_instance: dict[tuple[str, str], list[ContaminationFlag]] = defaultdict(list)
    for flag in latest.values():
        by_instance[(flag.benchmark, flag.instance_id)].append(flag)

    merged: list[ContaminationFlag] = []
    for (benchmark, instance_id), records in sorted(by_instance.items()):
        models = sorted({r.model for r in records if r.model != ANY_MODEL}) or [ANY_MODEL]
        for model in models:
            group = sorted((r for r in records if r.applies_to(model)), key=lambda r: r.method)
            p_values = [r.p_value for r in group if r.p_value is not None]
            merged.append(ContaminationFlag(
                benchmark=benchmark,
                instance_id=instance_id,
                model=model,
                method=MERGED_METHOD,
                contaminated=_combine(group, policy),
                score=max(r.score for r in group),
                p_value=min(p_values) if p_values else None,
                evidence={
                    "policy": policy.value,
                    "methods": {
                        f"{r.method}@{r.model}" if r.model != model else r.method: {
                            "contaminated": r.contaminated, "score": r.score, "p_value": r.p_value}
                        for r in group
                    },
                },
            ))
    return merged


def verdicts_for(flags: Iterable[ContaminationFlag], *, benchmark: str, model: str,
                 policy: MergePolicy | str = MergePolicy.ANY) -> Mapping[str, Verdict]:
    """Per-instance verdict for one benchmark and one model (``"*"`` records included).

    This is what scorers and harness adapters consume. Instances without any applicable record are
    absent from the result (the caller decides how to count them).
    """
    relevant = [f for f in flags if f.benchmark == benchmark and f.applies_to(model)]
    merged = [m for m in merge_flags(relevant, policy) if m.applies_to(model)]
    out: dict[str, Verdict] = {}
    for m in merged:
        # A concrete-model merge already includes the "*" records; prefer it.
        if m.model == model or m.instance_id not in out:
            out[m.instance_id] = m.verdict
    return out
