"""One rule for naming a local copy of a benchmark: ``NAME=PATH`` (``mmlu=../shared/data/mmlu``);
where a command or task reads one benchmark, ``PATH`` alone is the same.

Each harness keeps its own syntax for passing a value; the value follows the rule in all of them:

=========================  ==========================================================
benchchecker commands      ``--data NAME=PATH`` (repeatable for ``check``), ``--data PATH``
Inspect tasks              ``-T data=NAME=PATH``, ``-T data=PATH``
lm-eval tasks              ``--metadata '{"data": "NAME=PATH"}'`` (or a list of them),
                           ``--metadata '{"data": "PATH"}'``
=========================  ==========================================================

A name the run does not read, or a bare path where it reads several benchmarks, is one
:class:`~benchchecker_plugin.errors.InputError` line written in the harness's own spelling.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .errors import InputError

__all__ = ["local_data", "local_path", "split_named"]


def split_named(value: str) -> tuple[str | None, str]:
    """``("mmlu", "PATH")`` for ``mmlu=PATH``; ``(None, value)`` for a bare path (one holding no
    ``=`` before its first separator, or an existing file or folder: a path may contain ``=``)."""
    name, sep, path = value.partition("=")
    if not sep or os.path.exists(value) or "/" in name or os.sep in name or not name.strip():
        return None, value
    return name.strip(), path.strip()


def local_data(values: Sequence[str], benchmarks: Sequence[str], spelling: str, *,
               must_exist: bool = False) -> dict[str, str]:
    """``{benchmark: path}`` from ``values`` (``NAME=PATH`` or ``PATH``) for a run that reads
    ``benchmarks``. ``spelling`` is how the harness writes one value, ``{}`` standing for it
    (``"--data {}"``, ``"-T data={}"``, ``'--metadata \\'{{"data": "{}"}}\\''``): error lines use it.
    ``must_exist``: each path must be an existing file or folder."""
    out: dict[str, str] = {}
    example = f"{benchmarks[0]}=PATH" if benchmarks else "NAME=PATH"
    for value in values:
        name, path = split_named(str(value))
        if name is None:
            if len(benchmarks) != 1:
                raise InputError(f"{spelling.format(value)}: this run reads {', '.join(benchmarks)}: "
                                 f"name the benchmark, {spelling.format(example)}")
            name = benchmarks[0]
        elif name not in benchmarks:
            raise InputError(f"{spelling.format(value)}: this run reads {', '.join(benchmarks)}, not "
                             f"{name}: {spelling.format(example)}")
        if not path:
            raise InputError(f"{spelling.format(value)}: no path after '=': {spelling.format(example)}")
        if must_exist and not os.path.exists(path):
            raise InputError(f"{spelling.format(value)}: {path} does not exist")
        if name in out and out[name] != path:
            raise InputError(f"{spelling.format(value)}: {name} is given twice ({out[name]} and {path})")
        out[name] = path
    return out


def local_path(value: str | None, benchmark: str, spelling: str = "--data {}") -> Path | None:
    """The existing file or folder ``value`` (``PATH`` or ``NAME=PATH``) names for the one
    ``benchmark`` a command reads; ``None`` for no value."""
    if value is None:
        return None
    return Path(local_data([value], [benchmark], spelling, must_exist=True)[benchmark])
