"""The Stage II grid split into tasks for a cluster: one task per repository (or per chunk of
its instances), each a whole :func:`~.grid.run_grid` over every cutoff.

:func:`~.grid.run_grid` shares work across the cutoffs of one repository (one snapshot index per
distinct commit, parsed files and block results per blob id, each instance's gold patch parsed
once). Mapping an executor over single (instance, cutoff) items would lose that sharing, so
:func:`run_grid_tasks` ships one task per repository group instead: the task runs the grid of
its instances in-process and returns its flags to the driver, which puts them back in instance
order. The flags equal those of one :func:`~.grid.run_grid` over all instances (timings aside).

``instances_per_task`` splits a large repository into chunks (more parallelism; each chunk
indexes the repository's snapshots again).

A task runs where the executor puts it: on a worker that cannot see ``repos_dir``, every
(instance, model) of the task is a flag whose error names the folder and the worker's host.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from ..cutoff import CutoffPeriod
from ..errors import InputError, RepositoryError
from ..instances.bug import BugInstance
from ..models.executor import Executor, ItemResult, LocalExecutor
from .grid import GridRun, cutoff_when, run_grid
from .presence import PresenceConfig, to_flag

__all__ = ["GridTask", "run_grid_tasks"]

Cutoffs = Mapping[str, "str | date | datetime | CutoffPeriod"]


@dataclass(frozen=True)
class GridTask:
    """The instances of one repository (or one chunk of them), with everything a worker needs."""

    repo: str
    indices: tuple[int, ...]
    instances: tuple[BugInstance, ...]
    repos_dir: str
    cutoffs: tuple[tuple[str, str | date | datetime | CutoffPeriod], ...]
    config: PresenceConfig

    def __call__(self) -> GridRun:
        if not Path(self.repos_dir).is_dir():
            raise RepositoryError(
                f"repository folder {self.repos_dir} is not visible on worker {socket.gethostname()} "
                f"(needed for {self.repo}): put the clones on a path every node shares, or run "
                "`benchchecker repos fetch` on each node")
        return run_grid(self.instances, self.repos_dir, dict(self.cutoffs), config=self.config,
                        executor=LocalExecutor())


def _run(task: GridTask) -> GridRun:
    return task()


def group_tasks(instances: Sequence[BugInstance], repos_dir: str | os.PathLike[str], cutoffs: Cutoffs,
                config: PresenceConfig, instances_per_task: int | None = None) -> list[GridTask]:
    """The tasks of a grid: instances grouped by repository (first-seen order), in chunks of
    at most ``instances_per_task``."""
    if instances_per_task is not None and instances_per_task < 1:
        raise InputError(f"instances_per_task must be >= 1, got {instances_per_task}")
    groups: dict[str, list[int]] = {}
    for i, inst in enumerate(instances):
        groups.setdefault(inst.repo.lower(), []).append(i)
    tasks = []
    pairs = tuple(cutoffs.items())
    for repo, idxs in groups.items():
        size = instances_per_task or len(idxs)
        for k in range(0, len(idxs), size):
            chunk = tuple(idxs[k:k + size])
            tasks.append(GridTask(repo, chunk, tuple(instances[i] for i in chunk), os.fspath(repos_dir),
                                  pairs, config))
    return tasks


def run_grid_tasks(instances: Sequence[BugInstance], repos_dir: str | os.PathLike[str], cutoffs: Cutoffs,
                   *, config: PresenceConfig | None = None, executor: Executor | None = None,
                   instances_per_task: int | None = None) -> GridRun:
    """:func:`~.grid.run_grid`'s flags (same order: by instance, then by model), computed as
    one ``executor`` item per repository group; a group that failed as a whole (its worker
    could not see the repositories, or died more often than the executor retries) gives an
    error flag for each of its (instance, model) pairs."""
    if not cutoffs:
        raise InputError("no models: the cutoffs mapping is empty")
    whens = {m: cutoff_when(m, c) for m, c in cutoffs.items()}
    config = config or PresenceConfig()
    instances = list(instances)
    tasks = group_tasks(instances, repos_dir, cutoffs, config, instances_per_task)
    runs = (executor or LocalExecutor()).map(_run, tasks, desc=f"patch presence ({len(tasks)} tasks)")
    flags: list = [None] * len(instances)
    snapshots = computed = reused = realigned = 0
    for task, res in zip(tasks, runs, strict=True):
        if res.ok and res.value is not None:
            run = res.value
            snapshots += run.snapshots
            computed += run.blocks_computed
            reused += run.blocks_reused
            realigned += run.alignments_reused
            m = len(whens)
            for k, i in enumerate(task.indices):
                flags[i] = run.flags[k * m:(k + 1) * m]
        else:
            failed: ItemResult = ItemResult(0, error=res.error or "the task returned nothing")
            for i in task.indices:
                flags[i] = tuple(to_flag(instances[i], model, failed, when) for model, when in whens.items())
    return GridRun(tuple(f for per in flags for f in per), len(whens), snapshots, computed, reused, realigned)
