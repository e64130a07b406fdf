"""Stage II for a republication: every covered instance at every model's cutoff (and the extra
dates), each at its own fix snapshot, one repository at a time (smallest first), with what clean
rests on (``stage2.why_clean``) and the detector's recall at the own fix snapshots.

With a cache folder the flags are kept per (instance, cutoff instant) in
``DIR/owner__name.at.jsonl``: the pairs found there are read, the missing ones computed
(``run_stage2(pairs=...)``) and appended as soon as the repository is done, so a new cutoff costs
only its own pairs. With ``cached_only`` nothing is computed: a repository missing any pair is
returned as unfinished. With a state folder (``--state``) a repository's pairs are computed in
tasks kept as each finishes (``run_stage2(state=...)``): a run killed inside a repository resumes
there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ..cutoff import parse_cutoff
from ..flags import ContaminationFlag, read_flags, write_flags
from ..instances import BugInstance
from ..repos import is_ancestor, repo_dir_name, unapplies
from ..stage2 import OwnFix, PresenceConfig, locate, own_fix_snapshot, pr_dates, run_stage2, why_clean


@dataclass(frozen=True)
class StageTwoPlan:
    """How Stage II runs: the clones (``repos_dir``), the release snapshots, the lag margin, the
    cache, the extra dates, whether each instance is read at its own fix snapshot, the line
    similarity, the state folder."""

    repos_dir: Path
    releases_dir: Path | None = None
    lag_margin: float | None = None
    cache: Path | None = None
    cached_only: bool = False
    extra_dates: tuple[str, ...] = ()
    own_fix: bool = True
    similarity: str = PresenceConfig.similarity
    state: Path | None = None

    def config(self) -> PresenceConfig:
        return PresenceConfig(releases_dir=self.releases_dir, lag_margin_days=self.lag_margin,
                              snapshot_source="auto" if self.releases_dir else "git",
                              similarity=self.similarity)


@dataclass
class StageTwoRun:
    """What a run gave: flags per model (what clean rests on filled in), the repositories left
    unfinished, the own fix snapshots and the counts of the run's line."""

    flags: list[ContaminationFlag] = field(default_factory=list)
    unfinished: set[str] = field(default_factory=set)
    own: dict[str, OwnFix] = field(default_factory=dict)
    recall: list[dict[str, str]] = field(default_factory=list)
    computed: int = 0
    read: int = 0
    took: float = 0.0
    snapshots: int = 0
    resumed: int = 0


def at(when: datetime) -> str:
    """The cache's name of a cutoff instant: a flag is kept per (instance, cutoff), not per model,
    so a model moved to another cutoff is computed again, and models at one instant share it."""
    return f"at:{when.isoformat()}"


def read_cache(cache: Path | None) -> dict[tuple[str, str], ContaminationFlag]:
    if cache is None or not cache.exists():
        return {}
    return {(f.instance_id, f.model): f for f in read_flags(cache) if f.model.startswith("at:")}


def fix_dates(own: Mapping[str, OwnFix]) -> dict[str, Any]:
    """When the fixes landed, from each instance's own fix snapshot: the latest, per source, and
    how many are known."""
    out: dict[str, Any] = {"n_known": 0, "n": len(own)}
    for source in ("git", "release"):
        dated = sorted((o.when, iid) for iid, o in own.items()
                       if o.when is not None and not o.missing and o.source == source)
        if dated:
            out[source] = {"n": len(dated), "latest": f"{dated[-1][0]:%Y-%m-%d}",
                           "latest_instance": dated[-1][1],
                           "median": f"{dated[len(dated) // 2][0]:%Y-%m-%d}"}
            out["n_known"] += len(dated)
    return out


def recall_row(inst: BugInstance, path: Path, o: OwnFix, flag: ContaminationFlag | None) -> dict[str, str]:
    """One row of ``own_fix_recall.csv``: the verdict at the own fix snapshot and, for a miss,
    its cause (no snapshot, the gold patch not there, or the detector)."""
    row = {"instance_id": inst.instance_id, "repo": inst.repo, "source": o.source,
           "snapshot": o.snapshot, "snapshot_date": o.when.isoformat() if o.when else "",
           "verdict": "", "miss_reason": "", "basis": o.basis}
    if flag is None:
        return {**row, "verdict": "not run", "miss_reason": f"no own fix snapshot: {o.missing}"}
    ev = flag.evidence
    row["verdict"] = "present" if flag.contaminated is True else str(ev.get("category", ""))
    commit = str(ev.get("snapshot_commit", ""))
    if flag.contaminated is True:
        pass
    elif "error" in ev:
        row["miss_reason"] = f"detector: error ({str(ev['error'])[:120]})"
    elif commit and not unapplies(path, commit, inst.patch):
        where = f"release {o.snapshot}" if o.source == "release" else "the own fix commit"
        row["miss_reason"] = (f"gold patch not in the snapshot: it does not un-apply at {where} "
                              "(merged fix differs from the gold patch, or not in that release)")
    else:
        row["miss_reason"] = f"detector: {row['verdict']} though the gold patch un-applies there"
    if o.source == "git" and commit and commit != o.snapshot:
        row["basis"] += f"; read at {commit[:12]}" + ("" if is_ancestor(path, o.snapshot, commit)
                                                      else " (not a descendant)")
    return row


def _repository(repo: str, insts: Sequence[BugInstance], plan: StageTwoPlan,
                whens: Mapping[str, datetime], at_all: Sequence[datetime], run: StageTwoRun,
                dated: Mapping[str, Any], say: Callable[[str], None]) -> None:
    """One repository's flags: read from the cache, the missing pairs computed (and cached),
    what clean rests on from every reading; into ``run``."""
    config = plan.config()
    cache = plan.cache / f"{repo_dir_name(repo)}.at.jsonl" if plan.cache else None
    have = read_cache(cache)
    path = locate(plan.repos_dir, insts[0], source=config.snapshot_source, releases_dir=config.releases_dir)
    own = {i.instance_id: own_fix_snapshot(path, i, dated.get(i.instance_id)) for i in insts} \
        if plan.own_fix else {}
    run.own.update(own)
    want = {(i.instance_id, at(w)): w for i in insts for w in at_all}
    want |= {(iid, at(o.when)): o.when for iid, o in own.items() if o.when is not None and not o.missing}
    missing = [k for k in want if k not in have]
    run.read += len(want) - len(missing)
    if missing and plan.cached_only:
        run.unfinished.add(repo)
        return
    if missing:
        t0 = time.perf_counter()
        got = run_stage2(insts, plan.repos_dir, {m: w for (_, m), w in want.items()}, config=config,
                         pairs=missing, state=plan.state)
        run.took += time.perf_counter() - t0
        run.snapshots += got.snapshots
        run.resumed += got.resumed
        run.computed += len(missing)
        have.update({(f.instance_id, f.model): f for f in got.flags})
        say(f"stage II {repo}: {len(missing)} (instance, cutoff) pairs in "
            f"{(time.perf_counter() - t0) / 60:.1f} min")
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            write_flags(cache, sorted(have.values(), key=lambda f: (f.instance_id, f.model)))
    for inst in insts:
        o = own.get(inst.instance_id)
        own_flag = have.get((inst.instance_id, at(o.when))) if o is not None and o.when is not None else None
        if o is not None:
            run.recall.append(recall_row(inst, path, o, own_flag if not o.missing else None))
        readings = [have[(inst.instance_id, at(w))] for w in at_all]
        explained = {f.model: f for f in why_clean(readings, own_fix=own_flag,
                                                   cutoffs={at(w): w for w in at_all})}
        run.flags += [replace(explained[at(w)], model=m) for m, w in whens.items()]


def run_plan(covered: Sequence[BugInstance], plan: StageTwoPlan, cutoffs: Mapping[str, Any],
             say: Callable[[str], None] = lambda _: None) -> tuple[StageTwoRun, str]:
    """Stage II flags of the ``covered`` instances at every model's cutoff (``cutoffs``: model ->
    cutoff), and the run's line for the page; ``say`` hears each repository's progress."""
    whens = {m: parse_cutoff(c) for m, c in cutoffs.items()}
    extra = [parse_cutoff(d) for d in plan.extra_dates]
    at_all = sorted(set(whens.values()) | set(extra))
    dated = pr_dates(covered)
    by_repo: dict[str, list[BugInstance]] = {}
    for inst in covered:
        by_repo.setdefault(inst.repo, []).append(inst)
    run = StageTwoRun()
    for repo, insts in sorted(by_repo.items(), key=lambda kv: len(kv[1])):
        _repository(repo, insts, plan, whens, at_all, run, dated, say)
    line = (f"{len(covered)} instances x {len(at_all)} cutoffs ({len(whens)} models"
            + (f", {len(extra)} extra dates" if extra else "") + (", and each at its own fix snapshot"
            if plan.own_fix else "") + f"); {run.computed} (instance, cutoff) pairs computed in this run "
            f"({run.took / 60:.1f} min, {run.snapshots} distinct snapshots), {run.read} read from the "
            "Stage II cache" + (f", {run.resumed} task(s) taken from --state" if plan.state else ""))
    return run, line
