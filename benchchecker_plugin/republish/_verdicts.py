"""Where a republication's verdicts come from: a Stage II run on clones, a Stage II flags file
made before (``benchchecker patch-presence --cutoffs``), or an earlier bundle; each gives the
verdicts by snapshot date, the compact per-model flags (``flags.csv``) and the run's facts."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ..cutoff import CutoffPeriod
from ..errors import DataError, InputError
from ..flags import STAGE2_METHOD, ContaminationFlag, MergePolicy, merge_flags, read_flags
from ..instances import BugInstance
from ._bundle import FLAG_COLUMNS, repo_of
from ._cutoffs import snapshot_dates
from ._stage2 import StageTwoPlan, fix_dates, run_plan

RECALL_COLUMNS = ("instance_id", "repo", "source", "snapshot", "snapshot_date", "verdict", "miss_reason",
                  "basis")


@dataclass
class Verdicts:
    """The verdicts of a republication: ``at`` {snapshot date: {instance: verdict word}},
    ``compact`` (flags.csv), the Stage II line and counts, each flag's evidence by (instance,
    model), the repositories Stage II did not finish, when the fixes landed, the own fix recall
    table, and the repositories known to be read from release snapshots."""

    at: dict[str, dict[str, str]]
    compact: pd.DataFrame
    stage2: str
    errors: int | str
    n_flags: int
    evidence: dict[tuple[str, str], Mapping[str, Any]] = field(default_factory=dict)
    unfinished: list[str] = field(default_factory=list)
    fix_dates: dict[str, Any] | None = None
    recall: pd.DataFrame | None = None
    release_repos: tuple[str, ...] = ()
    covered: set[str] | None = None   # the instances the verdicts cover (None: those asked for)


def compact_flags(stage2: Sequence[ContaminationFlag], merged: Sequence[ContaminationFlag]) -> pd.DataFrame:
    """``flags.csv``: one merged verdict per (instance, model) with Stage II's score and category."""
    category = {(f.instance_id, f.model): f.evidence.get("category", "") for f in stage2}
    rows = [{"instance_id": f.instance_id, "model": f.model,
             "contaminated": "" if f.contaminated is None else str(f.contaminated).lower(),
             "score": round(float(f.score), 4), "category": category.get((f.instance_id, f.model), "")}
            for f in merged]
    return pd.DataFrame(rows, columns=list(FLAG_COLUMNS))


def _first_at(cutoffs: Mapping[str, CutoffPeriod], moved: set[str]) -> dict[str, str]:
    """The model whose flags stand for each snapshot date: a model whose cutoff moved (claude-2:
    "Early 2023") shares a snapshot date with another model and takes that model's flags, never
    its own (computed at the old date)."""
    dates = snapshot_dates(cutoffs)
    first: dict[str, str] = {}
    for m in sorted(cutoffs, key=lambda m: m in moved):
        first.setdefault(dates[m], m)
    return first


def _from_flags(stage2: list[ContaminationFlag], cutoffs: Mapping[str, CutoffPeriod],
                first: Mapping[str, str], line: str, **more: Any) -> Verdicts:
    """The verdicts of Stage II flags of the models standing for each date (``first``), merged
    with policy benchchecker (Stage I assumed), and copied to the models sharing their date."""
    dates = snapshot_dates(cutoffs)
    merged = merge_flags(stage2, policy=MergePolicy.BENCHCHECKER, assume_repo_seen=True)
    at: dict[str, dict[str, str]] = {}
    for f in merged:
        at.setdefault(dates[f.model], {})[f.instance_id] = f.verdict.value
    run_for = set(first.values())
    others = [m for m in cutoffs if m not in run_for]
    stage2 = stage2 + [replace(f, model=m) for m in others for f in stage2 if f.model == first[dates[m]]]
    merged = merged + [replace(f, model=m) for m in others for f in merged if f.model == first[dates[m]]]
    evidence = {(f.instance_id, f.model): f.evidence for f in stage2}
    return Verdicts(at, compact_flags(stage2, merged), line,
                    sum("error" in e for e in evidence.values()), len(stage2), evidence, **more)


def from_stage2(covered: Sequence[BugInstance], plan: StageTwoPlan, cutoffs: Mapping[str, CutoffPeriod],
                moved: set[str], say: Callable[[str], None] = lambda _: None) -> Verdicts:
    """Stage II run on the clones of ``plan`` for the covered instances."""
    first = _first_at(cutoffs, moved)
    run, line = run_plan(covered, plan, {m: cutoffs[m] for m in first.values()}, say)
    recall = (pd.DataFrame(run.recall, columns=list(RECALL_COLUMNS)).sort_values("instance_id")
              .reset_index(drop=True) if run.recall else None)
    return _from_flags(run.flags, cutoffs, first, line, unfinished=sorted(run.unfinished),
                       fix_dates=fix_dates(run.own), recall=recall)


def from_flags_file(path: Path, ids: set[str], cutoffs: Mapping[str, CutoffPeriod],
                    moved: set[str]) -> Verdicts:
    """Stage II flags made before (``patch-presence --cutoffs``) of the instances ``ids``: those
    with a flag are covered; a model without flags is an error naming the file."""
    first = _first_at(cutoffs, moved)
    wanted = set(first.values())
    flags = [f for f in read_flags(path)
             if f.method == STAGE2_METHOD and f.model in wanted and f.instance_id in ids]
    missing = sorted(wanted - {f.model for f in flags})
    if missing:
        raise InputError(f"{path}: no Stage II flags for model(s) {', '.join(missing)} (run "
                         "`benchchecker patch-presence --cutoffs` for them)")
    flags.sort(key=lambda f: (f.instance_id, f.model))
    covered = {f.instance_id for f in flags}
    line = (f"{len(covered)} instances x {len(wanted)} cutoffs: {len(flags)} Stage II flags read from "
            f"{path.name} (not rerun)")
    return _from_flags(flags, cutoffs, first, line, covered=covered)


def _carried(folder: Path) -> tuple[dict[tuple[str, str], dict[str, Any]], pd.DataFrame | None,
                                     dict[str, Any] | None]:
    """What an earlier bundle recorded beyond its verdicts: each (instance, model)'s snapshot and
    why-clean kind (from its instances.csv and snapshots.csv), its own fix recall table and when
    the fixes landed (its build.json)."""
    inst = pd.read_csv(folder / "instances.csv", dtype=str, keep_default_na=False)
    snaps = pd.read_csv(folder / "snapshots.csv", dtype=str, keep_default_na=False)
    build = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    models = {s["submission"]: str(s["models"]) for s in build.get("submissions", [])}
    kinds = {(i, models[s]): k for i, s, k in zip(inst["instance_id"], inst["submission"], inst["clean_kind"])
             if k and ";" not in models.get(s, ";")}
    snapshot = {(r["repo"], r["model"]): {k: r[k] for k in ("source", "commit", "version", "sha256", "uploaded")
                                          if r[k]} for _, r in snaps.iterrows()}
    evidence: dict[tuple[str, str], dict[str, Any]] = {}
    for iid in dict.fromkeys(inst["instance_id"]):
        for (repo, model), snap in snapshot.items():
            if repo == repo_of(iid):
                evidence[(iid, model)] = {"snapshot": snap, "snapshot_source": {"kind": snap.get("source", "git")},
                                          **({"clean_kind": kinds[(iid, model)]} if (iid, model) in kinds else {})}
    recall = folder / "own_fix_recall.csv"
    return (evidence, pd.read_csv(recall, dtype=str, keep_default_na=False) if recall.is_file() else None,
            build.get("fix_dates") or None)


def from_bundle(folder: Path, cutoffs: Mapping[str, CutoffPeriod], release_repos: Sequence[str]
                ) -> Verdicts:
    """The verdicts of an earlier bundle (its flags.csv and cutoffs.csv), with what it recorded of
    each (its snapshots, why-clean kinds, own fix recall); every snapshot date needed must be
    there. ``release_repos``: repositories whose snapshots were release sdists, where the bundle
    does not say."""
    dates = snapshot_dates(cutoffs)
    old = pd.read_csv(folder / "flags.csv", dtype={"contaminated": str}, keep_default_na=False)
    old_cut = pd.read_csv(folder / "cutoffs.csv", dtype=str, keep_default_na=False)
    old_date = dict(zip(old_cut["model"], old_cut["snapshot at"]))
    word = {"true": "contaminated", "false": "clean", "": "undecided"}
    at: dict[str, dict[str, str]] = {}
    rows: dict[str, pd.DataFrame] = {}
    for m, part in old.groupby("model", sort=False):
        d = old_date.get(str(m))
        if d and d not in at:
            at[d] = {i: word[v] for i, v in zip(part["instance_id"], part["contaminated"])}
            rows[d] = part
    missing = sorted({d for d in dates.values() if d not in at})
    if missing:
        raise DataError(f"{folder}: no flags at the snapshot dates {', '.join(missing)} (run "
                        "Stage II for them)")
    # the models read at their own date keep the earlier rows in their order; the others take
    # the rows of the model read at their date
    held = set(old["model"])
    own = [m for m in cutoffs if old_date.get(m) == dates[m] and m in held]
    compact = pd.concat([old[old["model"].isin(own)]]
                        + [rows[dates[m]].assign(model=m) for m in cutoffs if m not in own],
                        ignore_index=True)
    evidence, recall, fixed = _carried(folder)
    return Verdicts(at, compact, f"verdicts read from an earlier bundle's flags.csv ({len(at)} "
                    "snapshot dates; Stage II not rerun)", "", len(old),
                    evidence={k: v for k, v in evidence.items() if k[1] in cutoffs},
                    recall=recall, fix_dates=fixed, release_repos=tuple(release_repos))
