"""``benchchecker overlap --task NAME --include_path DIR``: any multiple-choice lm-eval task's items
as overlap queries (question + gold choice), read by the reader ``ts-guess --task`` uses, so the
instance ids (and benchmark names) are those ``ts-guess --task`` writes and the flags join."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from ..errors import InputError

if TYPE_CHECKING:
    from ..overlap import OverlapItem

#: ``--task``'s item reader, in the lm-eval adapter: named as an entry point, never imported here
_TASK_ITEMS = "harness_adapters.lm_eval._detect:items_for_tasks"


def task_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--task``, ``--include_path`` and ``--metadata`` (as ``ts-guess`` spells them)."""
    for option in reversed([
        click.option("--task", "--tasks", "tasks", default=None, metavar="NAME[,NAME...]",
                     help="lm-eval task(s) or group(s) instead of --benchmark: any multiple_choice "
                          "task, each document's question + gold choice; benchmark and instance ids "
                          "as `ts-guess --task` names them. Needs lm-eval."),
        click.option("--include_path", "--include-path", "include_path", default=None,
                     metavar="DIR", help="With --task: lm-eval's --include_path (task YAMLs)."),
        click.option("--metadata", "task_metadata", default=None, metavar="JSON",
                     help="With --task: lm-eval's --metadata."),
    ]):
        command = option(command)
    return command


def lm_eval_entry(entry: str, task_metadata: str | None, what: str) -> tuple[Any, Any]:
    """The lm-eval adapter's function named by ``entry`` (``"module:attribute"``: the core names
    it, never imports it) and ``--metadata`` parsed; lm-eval missing or bad JSON is one line."""
    from ..extras import require

    require("lm_eval.tasks", what)
    module, attr = entry.split(":")
    try:
        metadata = json.loads(task_metadata) if task_metadata else None
    except ValueError as exc:
        raise InputError(f"--metadata {task_metadata!r}: not JSON ({exc})") from None
    return getattr(importlib.import_module(module), attr), metadata


def overlap_queries(benchmarks: list[str], data: tuple[str, ...], tasks: str | None,
                    include_path: str | None, task_metadata: str | None,
                    say: Callable[[str], None]) -> tuple[str, list[OverlapItem]]:
    """The run's name (the benchmarks, or the task list) and the queries of every benchmark; a
    task without items is one line through ``say`` (as ``ts-guess --task`` says it), none at all
    an error."""
    from ..overlap import load_overlap_items

    if bool(benchmarks) == (tasks is not None):
        raise InputError("give one of --benchmark or --task")
    if tasks is None:
        if include_path or task_metadata:
            raise InputError("--include_path and --metadata need --task")
        from ..local_data import local_data

        paths = local_data(data, benchmarks, "--data {}", must_exist=True)
        items = [q for b in benchmarks for q in load_overlap_items(b, paths.get(b))]
        return ", ".join(benchmarks), items
    if data:
        raise InputError(f"--data {data[0]}: --task reads its data the lm-eval way: "
                         f"--metadata '{{\"data\": \"{data[0]}\"}}'")
    from ..overlap import mc_queries

    items_for_tasks, metadata = lm_eval_entry(_TASK_ITEMS, task_metadata,
                                              "`benchchecker overlap --task`")
    _, items, why = items_for_tasks([t for t in tasks.split(",") if t], include_path, metadata)
    for name, reason in why.items():
        say(f"no items for this task: {name} ({reason})")
    if not items:
        raise InputError(f"--task {tasks}: " + (
            next(iter(why.values())) if len(why) == 1 else
            "no items to look for (no task could be read)" if why else "no documents"))
    return tasks, mc_queries(items)
