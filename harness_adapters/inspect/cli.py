"""``benchchecker inspect eval``: Inspect's own ``eval`` command with the contamination options.

The command is Inspect's ``inspect_ai._cli.eval.eval_command`` (every option, same parsing) with
``--contamination-filter``, ``--contamination-mode`` and ``--contamination-model`` appended. With a
filter it:

1. loads the task(s) the way Inspect does and groups their samples by the flags' verdicts for the
   run's ``--model`` (errors are one line, before anything runs);
2. for ``clean`` / ``contaminated``, rewrites ``--sample-id`` to that subset (intersected with a
   ``--sample-id`` or ``--limit`` you gave);
3. sets ``BENCHCHECKER_FLAGS`` (and mode / model) for the run, so the benchchecker Inspect hook
   (:mod:`harness_adapters.inspect.hook`) writes the flag into every sample and the grouped scores
   into each log; ``read_eval_log`` shows them.
"""

from __future__ import annotations

import contextlib
import copy
import fnmatch
import functools
import os
from typing import Any, Iterator

import click

from benchchecker_plugin.errors import ExecutionError, InputError

from benchchecker_plugin.cli.lazy import LazyGroup

from ..common import FilterOptions, Mode, click_options, echo, echo_warnings, run_filter

__all__ = ["inspect_group", "sample_id_pattern"]

# `eval` wraps Inspect's own command: built (importing inspect_ai) only when used, not for --help
_EVAL_HELP = "Evaluate tasks."  # = Inspect's eval_command short help (tests/cli/test_help_imports.py)


@click.group("inspect", cls=LazyGroup,
             lazy_commands={"eval": "harness_adapters.inspect.cli:_make_eval_command"},
             lazy_help={"eval": _EVAL_HELP})
def inspect_group() -> None:
    """Inspect commands with contamination filtering.

    \b
    benchchecker inspect eval <every inspect eval argument> --contamination-filter FLAGS
        [--contamination-mode both|clean|contaminated] [--contamination-model NAME]

    Reads the task, model and flags; runs Inspect's own eval; each log then carries the flag of
    every sample (sample.metadata["benchchecker"]) and full / clean / contaminated scores with
    the relative drop (results.metadata["benchchecker"]).

    \b
    Example:
      benchchecker inspect eval benchchecker_plugin/ts_guessing_mmlu_multichoice --model hf/gpt2 \\
          --contamination-filter flags.jsonl --contamination-mode clean
    """


def sample_id_pattern(sample_id: str | int) -> str:
    """A sample id as an Inspect ``--sample-id`` entry matching only itself (Inspect matches
    with ``fnmatch``; ``*``, ``?`` and ``[`` are escaped)."""
    text = str(sample_id)
    if "," in text:
        raise InputError(f"sample id '{text}' contains a comma; Inspect's --sample-id cannot "
                         "name it")
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def _load_samples(params: dict[str, Any]) -> tuple[list[Any], list[str]]:
    """The tasks of the command line (as Inspect loads them) and benchmark hints."""
    from inspect_ai._cli.util import parse_cli_config
    from inspect_ai._eval.loader import load_tasks

    if not params.get("tasks"):
        raise InputError("--contamination-filter needs the task(s) named on the command line")
    tasks = load_tasks(list(params["tasks"]), parse_cli_config(params.get("t"),
                                                               params.get("task_config")))
    hints: list[str] = []
    for task in tasks:
        meta = task.metadata or {}
        hints.append(str(meta["benchmark"]) if meta.get("benchmark") else task.name)
    return tasks, hints


def _plan(params: dict[str, Any], options: FilterOptions) -> None:
    """Check the flags against the run and rewrite ``sample_id`` / ``limit`` for a subset."""
    from inspect_ai._util.samples import parse_samples_limit

    from .hook import instance_id_of, model_candidates

    tasks, hints = _load_samples(params)
    if options.mode is not Mode.BOTH and len(tasks) != 1:
        raise InputError(f"--contamination-mode {options.mode.value} filters one task at a time "
                         f"({len(tasks)} given)")
    model = params.get("model") or os.environ.get("INSPECT_EVAL_MODEL") or ""
    samples = [s for task in tasks for s in task.dataset]
    known = [instance_id_of(s) for s in samples]
    wanted = [p.strip() for p in params["sample_id"].split(",")] if params.get("sample_id") else None
    if wanted is not None:
        samples = [s for s in samples if any(fnmatch.fnmatch(str(s.id), p) for p in wanted)]
    limit = parse_samples_limit(params.get("limit"))
    if limit is not None and wanted is None:   # Inspect ignores --limit beside --sample-id
        samples = samples[slice(*limit) if isinstance(limit, tuple) else slice(0, limit)]
    ids = list(dict.fromkeys(instance_id_of(s) for s in samples))
    selection = run_filter(options, hints=hints, model_candidates=model_candidates(model),
                           instance_ids=ids, known_ids=known)
    echo(selection.summary())
    if options.mode is not Mode.BOTH:
        chosen = set(selection.selected)
        params["sample_id"] = ",".join(sample_id_pattern(s.id) for s in samples
                                       if instance_id_of(s) in chosen)
        params["limit"] = None


@contextlib.contextmanager
def _env(values: dict[str, str | None]) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@functools.cache
def _make_eval_command() -> click.Command:
    from inspect_ai._cli.eval import eval_command

    from ..scores import format_table
    from . import hook  # registers the hook even where the entry point is not installed

    command = copy.copy(eval_command)
    command.params = list(eval_command.params) + click_options()
    original = eval_command.callback
    assert original is not None

    def callback(**params: Any) -> Any:
        options = FilterOptions.from_values(params.pop("contamination_filter"),
                                            params.pop("contamination_mode"),
                                            params.pop("contamination_model"))
        if not options.enabled:
            return original(**params)
        with echo_warnings():
            _plan(params, options)
            start = len(hook.ANNOTATED)
            with _env({hook.ENV_FLAGS: str(options.flags.resolve()),  # type: ignore[union-attr]
                       hook.ENV_MODE: options.mode.value, hook.ENV_MODEL: options.model}):
                result = original(**params)
            done = hook.ANNOTATED[start:]
            if not done:
                raise ExecutionError("the benchchecker Inspect hook annotated no log (see "
                                     "Inspect's warnings above); the logs are Inspect's own")
            for location, selection, scores in done:
                click.echo(format_table(scores, title=f"benchchecker: scores by contamination "
                                                      f"group ({selection.benchmark}, flags model "
                                                      f"'{selection.model}', mode "
                                                      f"{selection.mode.value})"))
                echo(f"flags and grouped scores written into {location}")
            return result

    command.callback = callback
    command.help = (eval_command.help or "") + (
        "\n\nbenchchecker: --contamination-filter FLAGS groups samples by contamination flags "
        "(see `benchchecker inspect --help`).")
    return command

