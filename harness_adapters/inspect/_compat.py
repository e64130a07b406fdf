"""The private Inspect APIs the wrapper uses, and only here (see :mod:`harness_adapters.private_api`).

=============================  ====================================================================
``inspect_ai._cli.eval``       ``eval_command``: Inspect's ``inspect eval`` click command
``inspect_ai._cli.util``       ``parse_cli_config``: ``-T`` / ``-M`` options and config files
``inspect_ai._eval.loader``    ``load_tasks``: tasks named on a command line, loaded as Inspect does
``inspect_ai._eval.task.util`` ``resolve_task_sample_ids``, ``slice_dataset``: ``--sample-id`` /
                               ``--limit`` applied to a task's dataset
``inspect_ai._util.samples``   ``parse_sample_id``, ``parse_samples_limit``: those options parsed
``inspect_ai._util.error``     ``PrerequisiteError``: what ``slice_dataset`` raises for bad options
=============================  ====================================================================

Each function imports Inspect when called, never at import time (``--help`` stays fast).
"""

from __future__ import annotations

from typing import Any

import click

from benchchecker_plugin.private_api import Harness

#: the extra's range in pyproject.toml (tests/harness_adapters/inspect/test_compat.py keeps them equal)
INSPECT = Harness("inspect_ai", "inspect-ai", ">=0.3.285")
#: the command named in errors
WHAT = "`benchchecker inspect eval`"
#: every private name used, with its module
PRIVATE_NAMES = {
    "eval_command": "inspect_ai._cli.eval",
    "parse_cli_config": "inspect_ai._cli.util",
    "load_tasks": "inspect_ai._eval.loader",
    "resolve_task_sample_ids": "inspect_ai._eval.task.util",
    "slice_dataset": "inspect_ai._eval.task.util",
    "parse_sample_id": "inspect_ai._util.samples",
    "parse_samples_limit": "inspect_ai._util.samples",
    "PrerequisiteError": "inspect_ai._util.error",
}


def _private(name: str) -> Any:
    return INSPECT.private(PRIVATE_NAMES[name], name, WHAT)


def eval_command() -> click.Command:
    """Inspect's own ``inspect eval`` command."""
    command = _private("eval_command")
    if not isinstance(command, click.Command):
        raise INSPECT.incompatible("inspect_ai._cli.eval.eval_command as a click command", WHAT)
    return command


def parse_cli_config(*args: Any, **kwargs: Any) -> Any:
    return _private("parse_cli_config")(*args, **kwargs)


def load_tasks(*args: Any, **kwargs: Any) -> Any:
    return _private("load_tasks")(*args, **kwargs)


def resolve_task_sample_ids(*args: Any, **kwargs: Any) -> Any:
    return _private("resolve_task_sample_ids")(*args, **kwargs)


def slice_dataset(*args: Any, **kwargs: Any) -> Any:
    return _private("slice_dataset")(*args, **kwargs)


def parse_sample_id(*args: Any, **kwargs: Any) -> Any:
    return _private("parse_sample_id")(*args, **kwargs)


def parse_samples_limit(*args: Any, **kwargs: Any) -> Any:
    return _private("parse_samples_limit")(*args, **kwargs)


def prerequisite_error() -> type[Exception]:
    """Inspect's ``PrerequisiteError`` class (to catch it)."""
    found = _private("PrerequisiteError")
    if not (isinstance(found, type) and issubclass(found, Exception)):
        raise INSPECT.incompatible("inspect_ai._util.error.PrerequisiteError as an exception", WHAT)
    return found
