"""``benchchecker inspect eval``: Inspect's own ``eval`` command with the contamination options.

The command is Inspect's ``inspect_ai._cli.eval.eval_command`` (every option, same parsing; it and
the other private Inspect names are reached through :mod:`._compat`) with
``--contamination-filter``, ``--contamination-mode`` and ``--contamination-model`` appended. With a
filter it:

1. loads the task(s) the way Inspect does and groups their samples by the flags' verdicts for the
   run's ``--model`` (errors are one line, before anything runs);
2. for ``clean`` / ``contaminated``, rewrites ``--sample-id`` to that subset (intersected with a
   ``--sample-id`` or ``--limit`` you gave);
3. sets ``BENCHCHECKER_FLAGS`` (and mode / model) for the run, so the benchchecker Inspect hook
   (:mod:`harness_adapters.inspect._hook`) writes the flag into every sample and the grouped scores
   into each log; ``read_eval_log`` shows them.

With ``--contamination-detect`` (:mod:`harness_adapters.detection` options, plus
``--contamination-data BENCHMARK=PATH``) it first makes flags: TS-Guessing on the samples the run
evaluates of every MMLU / TruthfulQA task (:mod:`harness_adapters.inspect._detect`), asked through
``inspect/<the run's --model>`` and benchchecker's response cache; they are written to
``benchchecker_flags_<time>.jsonl`` in the log dir, merged with any ``--contamination-filter``
flags, and the hook records the detection summary in ``results.metadata["benchchecker"]``.
"""

from __future__ import annotations

import contextlib
import copy
import fnmatch
import functools
import json
import os
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from benchchecker_plugin.cli import LazyGroup
from benchchecker_plugin.errors import ExecutionError, InputError

from ..common import (
    FilterMode,
    FilterOptions,
    Selection,
    click_options,
    echo,
    echo_warnings,
    load_flags,
    pop_filter_options,
    run_filter,
)
from ..detection import (
    Detection,
    DetectOptions,
    LazyModel,
    click_detect_options,
    flags_path_beside,
    pop_detect_options,
    timing_line,
    ts_guess_probes,
)

# `eval` wraps Inspect's own command: built (importing inspect_ai) only when used, not for --help
_EVAL_HELP = "Evaluate tasks."  # = Inspect's eval_command short help (tests/cli/test_help_imports.py)


@click.group("inspect", cls=LazyGroup,
             lazy_commands={"eval": "harness_adapters.inspect._cli:_make_eval_command"},
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
    benchchecker inspect eval <every inspect eval argument> --contamination-detect
        [--contamination-filter FLAGS] [--contamination-data mmlu=DIR] [--dry-run]
        [--contamination-cache-dir DIR | --contamination-no-cache]

    Makes the flags first: TS-Guessing through the run's own model on the samples it evaluates
    of MMLU / TruthfulQA tasks and of any task whose samples carry choices (others are listed
    as having no detector, with the reason), written to
    benchchecker_flags_<time>.jsonl in the log dir and merged with FLAGS.
    `--contamination-detect overlap --contamination-corpus PATH` looks those samples' items up
    in the model's training corpus instead (benchchecker.overlap flags, no model call).

    \b
    Example:
      benchchecker inspect eval benchchecker_plugin/ts_guessing_mmlu_multichoice \\
          --model hf/$(benchchecker models path hf/smollm2-135m) -T data=../shared/data/mmlu \\
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
    from ._compat import load_tasks, parse_cli_config

    if not params.get("tasks"):
        raise InputError("--contamination-filter / --contamination-detect need the task(s) named "
                         "on the command line")
    config = parse_cli_config(params.get("t"), params.get("task_config"))
    tasks = []
    for name in params["tasks"]:
        found = load_tasks([name], config)
        prefix = "benchchecker_plugin/"
        if not found and str(name).startswith(prefix):
            # Inspect names our tasks without the package when it cannot tell the package is
            # installed (an egg-info folder in the working directory hides the editable install)
            found = load_tasks([str(name)[len(prefix):]], config)
        if not found:
            raise InputError(f"task {name!r}: Inspect found no such task (a registered name, "
                             "a file or a file@task)")
        tasks.extend(found)
    hints: list[str] = []
    for task in tasks:
        meta = task.metadata or {}
        hints.append(str(meta["benchmark"]) if meta.get("benchmark") else task.name)
    return tasks, hints


def _plan(params: dict[str, Any], options: FilterOptions) -> None:
    """Check the flags against the run and rewrite ``sample_id`` / ``limit`` for a subset."""
    from ._compat import parse_samples_limit
    from ._hook import instance_id_of, model_candidates

    # a bad flags file is reported before the (slower, and maybe failing) loading of the tasks
    loaded = load_flags(options.flags) if options.flags is not None else []
    tasks, hints = _load_samples(params)
    if options.mode is not FilterMode.BOTH and len(tasks) != 1:
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
                           instance_ids=ids, known_ids=known, loaded=loaded)
    echo(selection.summary())
    if options.mode is not FilterMode.BOTH:
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


DATA_HELP = ("With --contamination-detect: BENCHMARK=PATH, a local copy of the benchmark the "
             "samples come from (mmlu=folder of <subject>_test.csv, truthfulqa=TruthfulQA.csv); "
             "samples are numbered by their row there, as `benchchecker ts-guess` numbers them. "
             "Repeatable.  [default: the hub copy]")


def _run_model(params: dict[str, Any]) -> str:
    model = params.get("model") or os.environ.get("INSPECT_EVAL_MODEL") or ""
    if not model or "," in model:
        raise InputError(f"--contamination-detect asks the run's model: give one --model "
                         f"(got '{model}')")
    return str(model)


def _log_dir(params: dict[str, Any]) -> Path:
    log_dir = str(params.get("log_dir") or os.environ.get("INSPECT_LOG_DIR") or "./logs")
    if "://" in log_dir:
        raise InputError(f"--contamination-detect writes its flags beside the logs: --log-dir "
                         f"'{log_dir}' must be a local folder")
    return Path(log_dir)


def _detect(params: dict[str, Any], tasks: list[Any], evaluated: list[list[Any]],
            options: FilterOptions, detect: DetectOptions, data: dict[str, Path]
            ) -> tuple[Detection, dict[str, Any]]:
    """TS-Guessing on the evaluated MMLU / TruthfulQA samples through ``inspect/<model>``."""
    from benchchecker_plugin.models import canonical_model_name, get_model

    from ._compat import parse_cli_config
    from ._detect import Reference, probes_for_run

    model = _run_model(params)
    if detect.method == "overlap":   # the training corpus, not the model
        return _overlap(tasks, evaluated, options, detect, data, model)
    benchmarks, indexes, probes, dropped, why = probes_for_run(tasks, evaluated, Reference(data))
    for name, benchmark in benchmarks.items():
        if benchmark is None:
            echo(f"no detector for this task: {name} ({why.get(name, 'no samples')}); it runs "
                 "without flags")
    spec, base_url = f"inspect/{model}", params.get("model_base_url")
    model_args = parse_cli_config(params.get("m"), params.get("model_config"))
    asked = LazyModel(spec, _answering_identity(model, base_url, model_args),
                      lambda: get_model(spec, base_url=base_url, model_args=model_args))
    flags, calls, cached, seconds = ts_guess_probes(
        asked, probes, model_name=options.model or canonical_model_name(model),
        cache=detect.cache(),
        dry_run=detect.dry_run)
    detection = Detection(tuple(flags), benchmarks, len(probes), calls, cached, seconds, dropped)
    return detection, indexes


def _answering_identity(model: str, base_url: str | None, model_args: Any) -> str:
    """The response cache's identity of the run's model: for ``benchchecker/<spec>`` that of
    ``<spec>`` (so ``ts-guess --model <spec>`` and this run share answers), else Inspect's
    provider and model (and server)."""
    from benchchecker_plugin.models import InspectModel

    prefix = "benchchecker/"
    if model.startswith(prefix) and base_url is None:
        from benchchecker_plugin.inspect_tasks import provider_identity

        return provider_identity(model[len(prefix):], dict(model_args or {}))
    return InspectModel.identity_for(f"inspect/{model}", base_url=base_url)


def _overlap(tasks: list[Any], evaluated: list[list[Any]], options: FilterOptions,
             detect: DetectOptions, data: dict[str, Path], model: str
             ) -> tuple[Detection, dict[str, Any]]:
    """Corpus overlap on the evaluated samples' items (numbered as TS-Guessing numbers them)."""
    from benchchecker_plugin.models import canonical_model_name

    from ..corpus_overlap import overlap_detection
    from ._detect import Reference, items_for_run

    benchmarks, indexes, items, why = items_for_run(tasks, evaluated, Reference(data))
    for name, benchmark in benchmarks.items():
        if benchmark is None:
            echo(f"no detector for this task: {name} ({why.get(name, 'no samples')}); it runs "
                 "without flags")
    detection = overlap_detection(benchmarks, items, detect,
                                  model_name=options.model or canonical_model_name(model))
    return detection, indexes


def _select_detected(tasks: list[Any], evaluated: list[list[Any]], detection: Detection,
                     indexes: dict[str, Any], options: FilterOptions, model: str
                     ) -> dict[str, Selection]:
    from ._detect import TaskIds
    from ._hook import model_candidates

    candidates = [options.model] if options.model else model_candidates(model)
    selections: dict[str, Selection] = {}
    for benchmark in sorted({b for b in detection.tasks.values() if b}):
        numbering = TaskIds(benchmark, indexes.get(benchmark, {}))
        mine = [(t, ev) for t, ev in zip(tasks, evaluated) if detection.tasks[t.name] == benchmark]
        ids = [i for _, ev in mine for i in numbering.with_fallback(ev)]
        known = [i for t, _ in mine for i in numbering.with_fallback(list(t.dataset))]
        selections[benchmark] = run_filter(
            options, hints=[benchmark], model_candidates=candidates,
            instance_ids=list(dict.fromkeys(ids)), known_ids=known, detected=detection.flags)
        echo(selections[benchmark].summary())
    return selections


def _restrict(params: dict[str, Any], task: Any, evaluated: list[Any], selection: Selection,
              index: Any) -> None:
    """Rewrite ``--sample-id`` to the samples of ``selection``'s subset (one task)."""
    from ._detect import TaskIds

    if any(s.id is None for s in evaluated):
        raise InputError(f"--contamination-mode {selection.mode.value}: the samples of task "
                         f"'{task.name}' have no ids, so Inspect's --sample-id cannot pick a "
                         "subset; use --contamination-mode both")
    chosen = set(selection.selected)
    ids = TaskIds(selection.benchmark, index).with_fallback(evaluated)
    params["sample_id"] = ",".join(sample_id_pattern(s.id) for s, i in zip(evaluated, ids)
                                   if i in chosen)
    params["limit"] = None


def _run_detected(original: Any, params: dict[str, Any], options: FilterOptions,
                  detect: DetectOptions, data: dict[str, Path]) -> Any:
    """Detect, write the flags, select, run Inspect with the hook, report."""
    from benchchecker_plugin.flags import write_flags

    from . import _hook as hook
    from ._compat import parse_sample_id, parse_samples_limit
    from ._detect import evaluated_samples

    tasks, _ = _load_samples(params)
    names = [t.name for t in tasks]
    sample_id, limit = parse_sample_id(params.get("sample_id")), parse_samples_limit(
        params.get("limit"))
    evaluated = [evaluated_samples(t, limit, sample_id, names) for t in tasks]
    log_dir = _log_dir(params)
    detection, indexes = _detect(params, tasks, evaluated, options, detect, data)
    if detect.dry_run:
        grouped = sorted(t for t, b in detection.tasks.items() if b)
        echo(f"dry run: detection would add {detection.calls} model calls ({detection.cached} "
             f"more already cached) for {detection.probes} probes on {len(grouped)} task(s)"
             + (f"; no detector for: {', '.join(detection.no_detector)}"
                if detection.no_detector else "") + "; nothing was run")
        return None
    echo(detection.summary())
    if not any(detection.tasks.values()):
        raise InputError("--contamination-detect: no task of this run has a detector "
                         f"({', '.join(detection.tasks)}); detectors exist for MMLU, "
                         "TruthfulQA and multiple-choice samples")
    if not detection.flags and options.flags is None:
        raise InputError(f"--contamination-detect: no flags to group by (the TS-Guessing filters "
                         f"left no probe: {dict(detection.dropped)})" if detection.method ==
                         "ts-guess" else "--contamination-detect overlap: no item to look for")
    selections = _select_detected(tasks, evaluated, detection, indexes, options, _run_model(params))
    if options.mode is not FilterMode.BOTH:
        if len(tasks) != 1 or detection.tasks[tasks[0].name] is None:
            raise InputError(f"--contamination-mode {options.mode.value} filters one task with a "
                             f"detector at a time ({', '.join(names)} given)")
        benchmark = str(detection.tasks[tasks[0].name])
        _restrict(params, tasks[0], evaluated[0], selections[benchmark], indexes.get(benchmark, {}))
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H-%M-%S")
    flags_file = write_flags(flags_path_beside(log_dir, stamp), detection.flags).resolve()
    paths = [p for p in (options.flags, flags_file if detection.flags else None) if p is not None]
    with tempfile.TemporaryDirectory(prefix="benchchecker_detect_") as tmp:
        context = Path(tmp) / "detection.json"
        context.write_text(json.dumps({
            "tasks": dict(detection.tasks), "index": indexes,
            "detection": {**detection.to_dict(), "flags_file": str(flags_file)}}),
            encoding="utf-8")
        start = len(hook.ANNOTATED)
        began = time.perf_counter()
        with _env({hook.ENV_FLAGS: os.pathsep.join(str(Path(p).resolve()) for p in paths),
                   hook.ENV_MODE: options.mode.value, hook.ENV_MODEL: options.model,
                   hook.ENV_DETECTION: str(context)}):
            result = original(**params)
        evaluation_s = time.perf_counter() - began
    _report(hook.ANNOTATED[start:])
    echo(f"flags detected in this run written to {flags_file}")
    echo(timing_line(detection, evaluation_s))
    return result


def _report(done: list[Any]) -> None:
    from ..scores import format_table

    if not done:
        raise ExecutionError("the benchchecker Inspect hook annotated no log (see "
                             "Inspect's warnings above); the logs are Inspect's own")
    for location, selection, scores in done:
        click.echo(format_table(scores, title=f"benchchecker: scores by contamination "
                                              f"group ({selection.benchmark}, flags model "
                                              f"'{selection.model}', mode "
                                              f"{selection.mode.value})"))
        echo(f"flags and grouped scores written into {location}")


def bare_detect_option(args: list[str]) -> list[str]:
    """``--contamination-detect`` not followed by a method (``inspect eval --contamination-detect
    task.py``) spelt ``--contamination-detect=ts-guess``: its value is optional, and a task named
    after it is not that value."""
    from ..detection import DETECT_METHODS

    return [f"{a}=ts-guess" if a == "--contamination-detect"
            and (k + 1 == len(args) or args[k + 1] not in DETECT_METHODS) else a
            for k, a in enumerate(args)]


@functools.cache
def _make_eval_command() -> click.Command:
    from ._compat import eval_command as inspect_eval_command

    eval_command = inspect_eval_command()  # first: a missing Inspect is one line naming the extra
    from . import _hook as hook  # registers the hook even where the entry point is not installed
    from ._detect import parse_data_option

    command = copy.copy(eval_command)
    command.params = list(eval_command.params) + click_options() + click_detect_options() + [
        click.Option(["--contamination-data", "contamination_data"], multiple=True,
                     metavar="BENCHMARK=PATH", help=DATA_HELP)]
    original = eval_command.callback
    assert original is not None

    def callback(**params: Any) -> Any:
        detect = pop_detect_options(params)
        data = params.pop("contamination_data")
        options = pop_filter_options(params, detect=detect.enabled)
        if data and not detect.enabled:
            raise InputError("--contamination-data needs --contamination-detect")
        if not options.enabled:
            return original(**params)
        with echo_warnings():
            if detect.enabled:
                return _run_detected(original, params, options, detect, parse_data_option(data))
            _plan(params, options)
            start = len(hook.ANNOTATED)
            with _env({hook.ENV_FLAGS: str(options.flags.resolve()),  # type: ignore[union-attr]
                       hook.ENV_MODE: options.mode.value, hook.ENV_MODEL: options.model}):
                result = original(**params)
            _report(hook.ANNOTATED[start:])
            return result

    command.callback = callback
    parse_args = command.parse_args

    def parse(ctx: click.Context, args: list[str]) -> list[str]:
        return parse_args(ctx, bare_detect_option(args))

    command.parse_args = parse  # type: ignore[method-assign]
    command.help = (eval_command.help or "") + (
        "\n\nbenchchecker: --contamination-filter FLAGS groups samples by contamination flags; "
        "--contamination-detect makes them in the run (see `benchchecker inspect --help`).")
    return command
