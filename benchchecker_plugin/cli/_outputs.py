"""Outputs never destroy inputs: a command refuses an output path that is one of its inputs.

``rescore --out F.jsonl`` over the flags file, ``patch-presence -o`` over the instances and
``flags merge F -o F`` replaced their input and exited 0. :func:`check_outputs` runs before any
work: an output that *is* an input (the same file or folder, through any path or link) is one
line naming both.

It is not opt-in: :class:`~.lazy.LazyGroup` passes every command it loads (and every command of
a group it loads) through :func:`guard_outputs`, which checks, before the command runs, each
parameter named as an output (:data:`OUTPUT_PARAMS`: ``-o/--output``, ``--out``, ``--into``)
against every other parameter's value that names an existing path.

A command whose outputs would be read back as input declares them with
:func:`check_outputs_outside_inputs`: an output (``-o``, ``check -o``, ``--state``, ``--index``)
may not be, or lie inside, any input (a ``--corpus`` folder or shard, a ``--data`` file, an
``--index`` folder), by real path. ``overlap -o corpus/out.jsonl`` made the next run read its
own flags as corpus, and ``-o corpus/a.jsonl`` overwrote a shard.

A command that writes several files into a folder declares them with :func:`writes_into`
(``leaderboard --out``): each of those files is checked as an output, and the folder may not be,
or lie inside, an input folder (``--out`` into a submission of ``--submissions`` overwrote its
``README.md``). An input the folder holds under another name is left alone, so it is allowed.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..errors import InputError

#: parameter names (click's, after the option's dest) that name where a command writes
OUTPUT_PARAMS = frozenset({"output", "out", "out_path", "out_dir", "into"})
_WRITES = "__benchchecker_writes_into__"
_C = TypeVar("_C", bound=click.Command)


def writes_into(param: str, names: Iterable[str]) -> Callable[[_C], _C]:
    """Declare that the command writes the files ``names`` into the folder given by ``param``
    (see the module doc); put it above ``@click.command``."""
    def mark(cmd: _C) -> _C:
        setattr(cmd, _WRITES, {**getattr(cmd, _WRITES, {}), param: tuple(names)})
        return cmd
    return mark


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_outputs(outputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
                  inputs: Iterable[str | os.PathLike[str] | None]) -> None:
    """Raise :class:`InputError` when an output (``(option, path)``) is one of ``inputs`` (paths
    that do not exist on disk, such as dataset names, are ignored)."""
    given = [Path(p) for p in inputs if p is not None and str(p) and Path(p).exists()]
    for option, out in outputs:
        if out is None:
            continue
        target = Path(out)
        for source in given:
            if _same(target, source):
                raise InputError(f"{option} {out}: is the input {source}; writing there would "
                                 "destroy it, choose another path")


def check_folder_output(option: str, folder: str | os.PathLike[str], names: Iterable[str],
                        inputs: Iterable[str | os.PathLike[str] | None]) -> None:
    """Raise :class:`InputError` when ``folder`` is, or is inside, an input folder, or when one
    of the files ``names`` it would receive is an input (see :func:`check_outputs`)."""
    given = [Path(p) for p in inputs if p is not None and str(p) and Path(p).exists()]
    where = Path(folder).resolve()
    for source in given:
        src = Path(source)
        if src.is_dir() and (where == src.resolve() or src.resolve() in where.parents):
            raise InputError(f"{option} {folder}: is inside the input folder {source}; writing there "
                             "would change it, choose a folder outside it")
    check_outputs([(option, Path(folder) / name) for name in names], given)


def _input_path(value: str | os.PathLike[str]) -> str:
    """The local path an input value names: ``hf:PATH#SPLIT`` (a ``--corpus`` or ``--data`` read
    through datasets) names ``PATH``; anything else is a path as given."""
    text = os.fspath(value)
    return text[3:].partition("#")[0] if text.startswith("hf:") else text


def check_outputs_outside_inputs(
        outputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
        inputs: Iterable[tuple[str, str | os.PathLike[str] | None]]) -> None:
    """Raise :class:`InputError` when an output ``(option, path)`` is, or lies inside, an input
    ``(option, path)`` (a file or a folder), compared by real path (links and ``..`` resolved; an
    output need not exist yet). Inputs that name no existing path (a hub dataset name) are
    ignored; ``hf:PATH#SPLIT`` is ``PATH``. The one line names both paths. Call it before any
    work, with no path among both the outputs and the inputs."""
    given = []
    for option, value in inputs:
        if value is None or not os.fspath(value):
            continue
        path = _input_path(value)
        if os.path.exists(path):
            given.append((option, path, os.path.realpath(path)))
    for out_option, out in outputs:
        if out is None or not os.fspath(out):
            continue
        where = os.path.realpath(out)
        for in_option, source, real in given:
            if where == real:
                raise InputError(f"{out_option} {out}: is the input {in_option} {source}; writing there "
                                 "would destroy it, choose another path")
            if os.path.isdir(real) and where.startswith(real.rstrip(os.sep) + os.sep):
                raise InputError(f"{out_option} {out}: lies inside the input {in_option} {source}; "
                                 "writing there would change it (a later run would read the output "
                                 "as input), choose a path outside it")


def _paths(value: Any) -> list[str | os.PathLike[str]]:
    if isinstance(value, (str, os.PathLike)):
        return [value]
    if isinstance(value, (tuple, list)):
        return [v for item in value for v in _paths(item)]
    return []


def _check_params(cmd: click.Command, params: dict[str, Any]) -> None:
    flags = {p.name: (p.opts[0] if p.opts else p.name) for p in cmd.params}
    outputs = [(flags.get(name) or name, value) for name, value in params.items()
               if name in OUTPUT_PARAMS and isinstance(value, (str, os.PathLike))]
    if outputs:
        inputs = [p for name, value in params.items() if name not in OUTPUT_PARAMS for p in _paths(value)]
        check_outputs(outputs, inputs)
        for name, files in getattr(cmd, _WRITES, {}).items():
            if isinstance(params.get(name), (str, os.PathLike)):
                check_folder_output(flags.get(name) or name, params[name], files, inputs)


def guard_outputs(cmd: click.Command) -> click.Command:
    """``cmd`` (and, for a group, each of its commands) checking its outputs against its inputs
    before it runs (see the module doc); idempotent."""
    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            guard_outputs(sub)
    callback = cmd.callback
    if callback is None or getattr(callback, "__benchchecker_guarded__", False):
        return cmd

    @functools.wraps(callback)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        _check_params(cmd, click.get_current_context().params)
        return callback(*args, **kwargs)

    guarded.__benchchecker_guarded__ = True  # type: ignore[attr-defined]
    cmd.callback = guarded
    return cmd
