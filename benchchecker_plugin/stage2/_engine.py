"""Stage II's one entry: a flag per (instance, model) of ``{model: cutoff}``, the work shared.

>>> run = run_stage2(load_instances("verified.jsonl"), "repos/",
...                  {"gpt-4-0613": "2021-09", "claude-2": "2023"})              # doctest: +SKIP
>>> flags = run_stage2(insts, "repos/", {"gpt-4-0613": "2023-04-30"}).flags     # doctest: +SKIP

One cutoff or many, it is :func:`run_stage2`; each cutoff is read once, there
(:func:`~benchchecker_plugin.cutoff.parse_cutoff`). The work is cut into :class:`GridTask` s, one per repository (or per chunk of
its instances, ``instances_per_task``), each self-contained: ``executor`` maps the tasks (by
default one after another in this process; a Ray executor ships each to a worker, which returns
its flags), and a task runs its instances at each commit of its repository on ``workers``
threads (:class:`~.repository.Repository` reads one repository's commits). Flags come ordered by instance, then by model in the order of ``cutoffs``; each is the
flag a run with that model alone gives (timings aside). Within a task the cost grows with the
distinct snapshots, not with the models:

- models whose cutoffs resolve to the same commit of a repository share it: one snapshot, one
  :class:`~.localize.SnapshotIndex`, each instance computed once and its result copied;
- an instance's gold patch is parsed once (it depends on the base commit, not on the cutoff);
- a block located in its own file by name (``same-name``/``module``, which depend only on that
  file's content) is not located and aligned again at a commit where the file it was looked up
  in (followed through renames since the base commit) has the same path and blob id;
- a block located again at the very same location (file, scope, lines) as at another commit is
  not aligned again;
- parsed files, identifier sets and similarity matrices are kept per repository
  (:mod:`._caches`), as are the base snapshots and the lag rule's release snapshots, each made once
  whichever worker thread asks first.

A task run by a worker that cannot see ``repos_dir`` gives, for each of its (instance, model)
pairs, a flag whose error names the folder and the worker's host.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ..cutoff import CutoffPeriod, parse_cutoff
from ..errors import InputError, RepositoryError
from ..execution import Executor, ItemResult, Keeper, LocalExecutor, StateStore, call_item, run_resumable
from ..flags import ContaminationFlag
from ..instances import BugInstance
from ..progress import OneBar, current_bar, one_bar
from ..repos import Snapshot
from ._caches import SharedIndex
from ._config import PresenceConfig
from ._judge import named, to_flag
from ._repository import Repository
from ._sources import SNAPSHOT_SOURCES, locate, snapshot_at
from ._units import STATE_TASK_SIZE, GridRun, read_run, task_key, write_run

Cutoffs = Mapping[str, "str | date | datetime | CutoffPeriod"]
_REUSE_KEYS = ("blocks_reused", "alignments_reused")


def _cutoff_when(model: str, cutoff: Any) -> datetime:
    try:
        return parse_cutoff(cutoff)
    except InputError as exc:
        raise InputError(f"model {model!r}: {exc}") from None


@dataclass(frozen=True)
class GridTask:
    """The instances of one repository (or one chunk of them), with everything a worker needs;
    calling it gives their flags (by instance, then model) and what was shared."""

    repo: str
    indices: tuple[int, ...]
    instances: tuple[BugInstance, ...]
    repos_dir: str
    whens: tuple[tuple[str, datetime], ...]
    config: PresenceConfig
    pairs: frozenset[tuple[str, str]] | None = None
    workers: int = 1
    reuse_counts: bool = True          # the reuse counts in each flag's evidence.timings_s
    driver: tuple[str, int] = ("", 0)  # host and process that made the task

    def __call__(self) -> GridRun:
        if not Path(self.repos_dir).is_dir() and self.driver != (socket.gethostname(), os.getpid()):
            raise RepositoryError(
                f"repository folder {self.repos_dir} is not visible on worker {socket.gethostname()} "
                f"(needed for {self.repo}): put the clones on a path every node shares, or run "
                "`benchchecker repos fetch` on each node")
        whens = dict(self.whens)
        wanted = _wanted(self.instances, whens, self.pairs)
        bar = current_bar()   # in the driver's process: its bar, advanced item by item
        with contextlib.nullcontext(bar) if bar is not None else one_bar(
                desc=_desc(self.instances, wanted), total=sum(map(len, wanted))) as own:
            outcomes, counts = _outcomes(self, wanted, own)
            own.weight = 0    # counted as it went: the driver's count of this task adds nothing
        return GridRun(tuple(self._flags(whens, outcomes)), len(whens), *counts)

    def models_of(self, inst: BugInstance, whens: Mapping[str, datetime]) -> list[str]:
        """The models ``inst`` gets a flag for, in order."""
        return [m for m in whens if self.pairs is None or (inst.instance_id, m) in self.pairs]

    def _flags(self, whens: Mapping[str, datetime], outcomes: dict[tuple[int, datetime], ItemResult]
               ) -> list[ContaminationFlag]:
        flags = []
        for k, inst in enumerate(self.instances):
            given: set[int] = set()
            for model in self.models_of(inst, whens):
                res = outcomes[(k, whens[model])]
                if res.ok and res.value is not None and id(res) in given:  # models sharing a commit: one evidence dict per flag
                    res = ItemResult(res.index, res.value.copy())
                given.add(id(res))
                if not self.reuse_counts and res.ok and res.value is not None:
                    for key in _REUSE_KEYS:
                        res.value.evidence.get("timings_s", {}).pop(key, None)
                flags.append(to_flag(inst, model, res, whens[model]))
        return flags


def _run(task: GridTask) -> GridRun:
    return task()


def _desc(instances: Sequence[BugInstance], wanted: Sequence[set[datetime]]) -> str:
    return f"patch presence ({len(instances)} instances x {len(set().union(*wanted))} cutoffs)"


def _wanted(instances: Sequence[BugInstance], whens: Mapping[str, datetime],
            pairs: Collection[tuple[str, str]] | None) -> list[set[datetime]]:
    """The cutoffs each instance is computed at (all of them without ``pairs``)."""
    if pairs is None:
        return [set(whens.values()) for _ in instances]
    by_id: dict[str, set[datetime]] = {}
    for iid, model in pairs:
        by_id.setdefault(iid, set()).add(whens[model])
    return [by_id.get(inst.instance_id, set()) for inst in instances]


def _outcomes(task: GridTask, wanted: list[set[datetime]], bar: OneBar
              ) -> tuple[dict[tuple[int, datetime], ItemResult], tuple[int, int, int, int]]:
    """Each (instance of ``task``, wanted cutoff)'s outcome, commit by commit, and the counts of
    :class:`GridRun`."""
    config, insts = task.config, task.instances
    sim = config.resolved_similarity()
    threads = LocalExecutor(task.workers)
    outcomes: dict[tuple[int, datetime], ItemResult] = {}
    by_path: dict[Path, list[int]] = {}
    for k, inst in enumerate(insts):
        if not wanted[k]:
            continue
        found = call_item(lambda i: locate(task.repos_dir, i, source=config.snapshot_source,
                                           releases_dir=config.releases_dir), k, inst)
        if found.ok and found.value is not None:
            by_path.setdefault(found.value, []).append(k)
        else:
            outcomes.update({(k, w): found for w in wanted[k]})
            bar.advance(1)
    snapshots = computed = reused = realigned = 0
    for path, idxs in by_path.items():
        repo = Repository(config, sim)
        opened: list[Snapshot] = []
        try:
            commits = _commits(path, idxs, wanted, insts, outcomes, bar, opened)
            for sha, (snap, group) in sorted(commits.items(), key=lambda kv: kv[1][0].committed_at):
                repo.anchor = repo.anchor or snap
                at_sha = [k for k in idxs if wanted[k] & set(group)]
                index = repo.index(snap)
                snapshots += 1

                def one(k: int, snap: Snapshot = snap, index: SharedIndex = index,
                        repo: Repository = repo) -> Any:
                    return named(insts[k], lambda: repo.at(k, insts[k], snap, index))

                bar.weight = len(group) if task.pairs is None else 1
                runs = threads.map(one, at_sha, desc=f"patch presence {path.name}@{sha[:10]}")
                for k, res in zip(at_sha, runs):
                    if res.ok and res.value is not None:
                        timings = res.value.evidence["timings_s"]
                        reused += timings["blocks_reused"]
                        realigned += timings["alignments_reused"]
                        computed += len(res.value.evidence["blocks"]) - timings["blocks_reused"] - timings["alignments_reused"]
                    for when in group:
                        if when in wanted[k]:
                            outcomes[(k, when)] = repo.dated(k, insts[k], res, snap, when)
                del index
        finally:
            for snap in opened + [other for other, _ in repo.others.values()]:
                snap.close()
    return outcomes, (snapshots, computed, reused, realigned)


def _commits(path: Path, idxs: Sequence[int], wanted: list[set[datetime]], insts: Sequence[BugInstance],
             outcomes: dict[tuple[int, datetime], ItemResult], bar: OneBar,
             opened: list[Snapshot]) -> dict[str, tuple[Snapshot, list[datetime]]]:
    """The snapshot of the repository at ``path`` at each cutoff its instances ``idxs`` want,
    grouped by commit (each snapshot also appended to ``opened``, for the caller to close); a
    cutoff with no snapshot gives its instances an error outcome."""
    commits: dict[str, tuple[Snapshot, list[datetime]]] = {}
    for when in sorted(set().union(*(wanted[k] for k in idxs))):
        try:
            snap = snapshot_at(path, when)
        except RepositoryError as err:
            def fail(inst: BugInstance, exc: RepositoryError = err) -> Any:
                raise RepositoryError(f"instance {inst.instance_id!r}: {exc}")
            for k in idxs:
                if when in wanted[k]:
                    outcomes[(k, when)] = call_item(fail, k, insts[k])
                    bar.advance(1)
            continue
        opened.append(snap)
        commits.setdefault(snap.commit, (snap, []))[1].append(when)
    return commits


def group_tasks(instances: Sequence[BugInstance], repos_dir: str | os.PathLike[str],
                whens: Mapping[str, datetime], config: PresenceConfig,
                instances_per_task: int | None = None, *,
                pairs: frozenset[tuple[str, str]] | None = None, workers: int = 1,
                reuse_counts: bool = True) -> list[GridTask]:
    """The tasks of a run over ``whens`` (model -> cutoff, parsed): the instances that get a flag
    grouped by repository (first-seen order), in chunks of at most ``instances_per_task``."""
    if instances_per_task is not None and instances_per_task < 1:
        raise InputError(f"instances_per_task must be >= 1, got {instances_per_task}")
    wanted = _wanted(instances, whens, pairs)
    groups: dict[str, list[int]] = {}
    for i, inst in enumerate(instances):
        if wanted[i]:
            groups.setdefault(inst.repo.lower(), []).append(i)
    tasks = []
    driver = (socket.gethostname(), os.getpid())
    for repo, idxs in groups.items():
        size = instances_per_task or len(idxs)
        for k in range(0, len(idxs), size):
            chunk = tuple(idxs[k:k + size])
            tasks.append(GridTask(repo, chunk, tuple(instances[i] for i in chunk), os.fspath(repos_dir),
                                  tuple(whens.items()), config, pairs, workers, reuse_counts, driver))
    return tasks


def run_stage2(instances: Sequence[BugInstance], repos_dir: str | os.PathLike[str], cutoffs: Cutoffs, *,
               config: PresenceConfig | None = None, executor: Executor | None = None, workers: int = 1,
               pairs: Collection[tuple[str, str]] | None = None, instances_per_task: int | None = None,
               desc: str | None = None, reuse_counts: bool = True,
               state: str | os.PathLike[str] | None = None) -> GridRun:
    """Stage II flags for every (instance, model) of ``cutoffs`` (model -> cutoff: a published
    period, a date, a datetime or an ISO datetime, each read once here) and what was shared;
    failures are flags with ``evidence.error``. Flags come by instance, then by model in the
    order of ``cutoffs``. ``executor`` runs the repository tasks (module doc), ``workers``
    threads the instances of a task. With ``pairs`` ((instance id, model) pairs) only those
    flags are computed and returned, each equal to a full run's. ``desc`` names the progress
    bar; ``reuse_counts=False`` leaves the reuse counts out of ``evidence.timings_s`` (one
    cutoff has nothing to reuse). ``state``: a folder keeping each finished task
    (:mod:`._units`), taken from there by a rerun instead of computed again; with it, a task holds
    at most :data:`~._units.STATE_TASK_SIZE` instances unless ``instances_per_task`` says."""
    if not cutoffs:
        raise InputError("no models: the cutoffs mapping is empty")
    whens = {m: _cutoff_when(m, c) for m, c in cutoffs.items()}
    chosen = None if pairs is None else frozenset(pairs)
    if chosen is not None:
        unknown = sorted({m for _, m in chosen} - set(whens))
        if unknown:
            raise InputError(f"pairs: model(s) {', '.join(unknown)} not in the cutoffs mapping")
    config = config or PresenceConfig()
    if config.snapshot_source not in SNAPSHOT_SOURCES:
        raise InputError(f"snapshot source {config.snapshot_source!r}: expected one of "
                         f"{', '.join(SNAPSHOT_SOURCES)}")
    instances = list(instances)
    if state is not None and instances_per_task is None:
        instances_per_task = STATE_TASK_SIZE
    tasks = group_tasks(instances, repos_dir, whens, config, instances_per_task, pairs=chosen,
                        workers=workers, reuse_counts=reuse_counts)
    wanted = _wanted(instances, whens, chosen)
    total = sum(map(len, wanted))
    runs: list[ItemResult[GridRun] | None] = [None] * len(tasks)
    resumed = 0
    with one_bar(desc=desc or _desc(instances, wanted), total=total) as bar:  # one bar for the run
        bar.weight = total // max(len(tasks), 1)   # per task run elsewhere (one here counts itself)
        for res, taken in run_resumable(executor or LocalExecutor(), _run, tasks, _keeper(state),
                                        desc="patch presence"):
            runs[res.index] = res
            if taken:
                resumed += 1
                bar.advance(sum(len(wanted[i]) for i in tasks[res.index].indices))
    return _gather(instances, tasks, runs, whens, resumed)


def _keeper(state: str | os.PathLike[str] | None) -> Keeper[GridTask, GridRun] | None:
    if state is None:
        return None
    return Keeper(StateStore(state), lambda t: task_key(t.repos_dir, t.instances, dict(t.whens), t.pairs,
                                                        t.config, t.reuse_counts),
                  write_run, read_run, name=lambda t: f"{t.repo} ({len(t.instances)} instances)", work="the Stage II flags of",
                  kept="the tasks kept before are whole")


def _gather(instances: Sequence[BugInstance], tasks: Sequence[GridTask],
            runs: Sequence[ItemResult[GridRun] | None], whens: Mapping[str, datetime], resumed: int) -> GridRun:
    """The run's flags by instance, then model, from its tasks' runs (a failed task's instances
    get a flag naming the failure), and the counts summed."""
    per: list[Sequence[ContaminationFlag]] = [()] * len(instances)
    snapshots = computed = reused = realigned = 0
    for task, res in zip(tasks, runs, strict=True):
        if res is not None and res.ok and res.value is not None:
            run = res.value
            snapshots += run.snapshots
            computed += run.blocks_computed
            reused += run.blocks_reused
            realigned += run.alignments_reused
            got = iter(run.flags)
            for i, inst in zip(task.indices, task.instances):
                per[i] = [next(got) for _ in task.models_of(inst, whens)]
        else:   # the task failed as a whole: its worker could not see the repositories, or died
            error = (res.error if res is not None else None) or "the task returned nothing"
            failed: ItemResult = ItemResult(0, error=error)
            for i, inst in zip(task.indices, task.instances):
                per[i] = [to_flag(inst, m, failed, whens[m]) for m in task.models_of(inst, whens)]
    return GridRun(tuple(f for flags in per for f in flags), len(whens), snapshots, computed, reused,
                   realigned, resumed)
