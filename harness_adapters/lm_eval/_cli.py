"""``benchchecker lm-eval run``: lm-evaluation-harness's own ``run`` command with the
contamination options added.

lm-eval's parser (``lm_eval._cli.HarnessCLI``, a private API reached through :mod:`._compat`)
parses every argument; our options are added to its ``run`` sub-parser and removed from the
namespace before ``execute`` (lm-eval rejects keys it does not know). With
``--contamination-detect`` the run first makes its own flags
(:func:`harness_adapters.lm_eval._detect.detect_in_run`: TS-Guessing on its MMLU / TruthfulQA docs
through its own model, written to ``benchchecker_flags_<date>.jsonl``), merged with any
``--contamination-filter`` flags. With flags:

- the run's docs are mapped to benchmark instance ids (see :func:`instance_id_of`) and grouped by
  the flags' verdicts for the run's model;
- ``--contamination-mode clean|contaminated`` restricts the docs through lm-eval's own
  ``--samples`` (intersected with a ``--samples`` or ``--limit`` you gave);
- after the run, each line of the run's ``samples_*.jsonl`` gains a ``benchchecker`` object
  (instance id, benchmark, flags model, group); no other key of a line changes;
- ``benchchecker_<date>.json`` is written beside lm-eval's ``results_<date>.json`` (never over
  it) with full / clean / contaminated scores and the relative drop per task, filter and metric,
  and the same table is printed after lm-eval's.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from benchchecker_plugin.atomic import write_text_atomic
from benchchecker_plugin.errors import ExecutionError, InputError
from benchchecker_plugin.flags import write_flags

from ..common import (
    FILTER_OPTIONS,
    FilterMode,
    FilterOptions,
    Selection,
    echo,
    echo_warnings,
    flags_digest,
    pop_filter_options,
)
from ..detection import (
    DETECT_OPTIONS,
    Detection,
    DetectOptions,
    flags_path_beside,
    pop_detect_options,
    timing_line,
)
from ..options import add_argparse_options
from ._plan import evaluated_indices, instance_id_of, model_candidates, plan_filtered_run
from ._yaml_includes import refuse_special_yaml

if TYPE_CHECKING:  # ..scores loads numba and pandas: imported where used, `--help` stays fast
    from ..scores import GroupedScore

EPILOG = """\
benchchecker contamination detection (flags made in this run, any multiple_choice task):
  $ benchchecker lm-eval run --model hf --model_args pretrained=$(benchchecker models path \
        hf/smollm2-135m) --include_path tasks/lm_eval --tasks mmlu_local_astronomy \
        --metadata '{"data": "../shared/data/mmlu"}' --output_path out/ --contamination-detect
  asks the run's own model the TS-Guessing probes of exactly the docs it evaluates, writes
  out/<model>/benchchecker_flags_<date>.jsonl and scores full / clean / contaminated groups;
  --dry-run prints how many model calls detection adds. With
  --contamination-detect overlap --contamination-corpus PATH the docs are looked up in the
  model's training corpus instead (benchchecker.overlap flags, no model call).

benchchecker contamination filter (flags made elsewhere):
  $ benchchecker lm-eval run --model hf --model_args pretrained=HuggingFaceTB/SmolLM2-135M \\
        --tasks mmlu_abstract_algebra --output_path out/ --log_samples \\
        --contamination-filter flags.jsonl --contamination-mode both
  writes out/<model>/benchchecker_<date>.json beside lm-eval's results_<date>.json and adds a
  "benchchecker" object (instance_id, group) to each line of the run's samples_*.jsonl.
"""


@click.group("lm-eval")
def lm_eval() -> None:
    """lm-evaluation-harness commands with contamination filtering.

    \b
    benchchecker lm-eval run <every lm-eval run argument> --contamination-detect
        [--contamination-filter FLAGS] [--contamination-mode both|clean|contaminated]
        [--contamination-model NAME] [--dry-run]

    See `benchchecker lm-eval run --help` (lm-eval's own help, with our options at the end).
    """


@lm_eval.command("run", add_help_option=False,
                 context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(args: tuple[str, ...]) -> None:
    """Run `lm-eval run ARGS`, detecting contamination and/or filtered by contamination flags.

    Reads: every lm-eval `run` argument, a flags file or folder (--contamination-filter).
    With --contamination-detect, the run's MMLU / TruthfulQA docs and those of any other
    multiple_choice task (read through its own definition) are first asked as TS-Guessing
    probes through the run's own model (through the response cache).
    Writes: lm-eval's own output (with a filter --output_path is required; the per-sample results
    the grouped scores come from are kept only with --log_samples, as lm-eval does), plus
    benchchecker_<date>.json (and benchchecker_flags_<date>.jsonl with --contamination-detect)
    beside its results_<date>.json, and a "benchchecker" object on each line of the run's
    samples_*.jsonl.

    \b
    Example:
      benchchecker lm-eval run --model hf --model_args pretrained=gpt2 --tasks mmlu_anatomy \\
          --output_path out/ --log_samples --contamination-filter flags.jsonl
    """
    cli, namespace = parse(list(args))
    refuse_special_yaml(getattr(namespace, "include_path", None))   # lm-eval would wait on a FIFO
    detect = pop_detect_options(namespace.__dict__)
    options = pop_filter_options(namespace.__dict__, detect=detect.enabled)
    if not options.enabled:
        run_unfiltered(cli, namespace)
        return
    with echo_warnings():
        execute_filtered(cli, namespace, options, detect)


#: what a run that stopped on the unreachable hub is told (its tasks' data or its model need it)
HUB_HINT = ("the Hugging Face hub is unreachable here: read local copies (a task: --include_path DIR "
            "with a task YAML whose dataset_path is a local folder, or the shipped tasks/lm_eval "
            "*_local tasks with --metadata '{\"data\": PATH}'; a model: --model_args "
            "pretrained=LOCAL_FOLDER)")


def run_unfiltered(cli: Any, namespace: argparse.Namespace) -> None:
    """lm-eval's own run, as ``lm-eval run`` would do it, but with the hub asked once (out of
    reach, offline mode is on: no retries) and a run that stops on the hub being unreachable told
    so in one line naming the local-copy options, not by a 70-line traceback."""
    from benchchecker_plugin.hub_reach import offline_unless_reachable

    from ._detect import exception_line, hub_unreachable

    offline_unless_reachable()
    try:
        cli.execute(namespace)
    except Exception as exc:
        if not hub_unreachable(exc):
            raise
        raise InputError(f"lm-eval run stopped ({type(exc).__name__}: {exception_line(exc)}); "
                         f"{HUB_HINT}") from None


def parse(argv: list[str]) -> tuple[Any, argparse.Namespace]:
    """lm-eval's own ``HarnessCLI`` with our options on its ``run`` parser; parse ``run ARGV``."""
    from ._compat import harness_cli, parse_run, run_parser

    cli = harness_cli()
    parser = run_parser(cli)
    group = parser.add_argument_group("benchchecker contamination filter")
    # lm-eval spells its options with underscores (--output_path, --log_samples): so do we here,
    # the hyphenated names kept as aliases (the spelling of our other commands)
    add_argparse_options(group, options=FILTER_OPTIONS + DETECT_OPTIONS, underscores=True)
    parser.epilog = (parser.epilog or "") + "\n" + EPILOG
    return cli, parse_run(cli, argv)


def _task_manager(cfg: Any) -> Any:
    """A TaskManager for the run's tasks: only ``--include_path`` when every task is found there
    (indexing lm-eval's thousands of built-in tasks takes tens of seconds), else the full one."""
    from ._detect import local_task_manager

    names = [t for task in (cfg.tasks if isinstance(cfg.tasks, list) else [cfg.tasks])
             for t in str(task).split(",") if t]
    if not any(n.endswith(".yaml") for n in names):
        local = local_task_manager(names, cfg.include_path, cfg.metadata)
        if local is not None:
            cfg.tasks = [m for n in names for m in local.match_tasks([n])]
            return local
    try:
        return cfg.process_tasks(cfg.metadata)
    except ValueError as exc:   # lm-eval's "Tasks not found: x": one line naming the task
        where = f" or under --include_path {cfg.include_path}" if cfg.include_path else ""
        raise InputError(f"--tasks {','.join(names)}: {exc} (no such task in lm-eval{where}; "
                         "`lm_eval ls tasks` lists them)") from None


def _load_tasks(namespace: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """lm-eval's config and its leaf task objects (loaded the way lm-eval loads them)."""
    from lm_eval.config.evaluate_config import EvaluatorConfig

    # our read of the config before the run: lm-eval says its own warnings (--limit ...) when it
    # runs; said here too, each would be printed twice
    config_log = logging.getLogger(EvaluatorConfig.__module__)
    was, config_log.disabled = config_log.disabled, True
    try:
        cfg = EvaluatorConfig.from_cli(argparse.Namespace(**vars(namespace)))
    finally:
        config_log.disabled = was
    if not cfg.tasks:
        raise InputError("--contamination-filter / --contamination-detect need --tasks")
    from ._detect import OFFLINE_HINT, load_each

    manager = _task_manager(cfg)   # (may set cfg.tasks to the names it matched)
    tasks, failed = load_each(manager, cfg.tasks if isinstance(cfg.tasks, list) else [cfg.tasks])
    offline = {name: why for name, why in failed.items() if why.endswith(OFFLINE_HINT)}
    if offline:   # lm-eval's own run would stop on the same download: one line, before it
        raise InputError(f"--tasks {', '.join(offline)}: {next(iter(offline.values()))}")
    for name, why in failed.items():
        echo(f"cannot read task {name} ({why}); it runs unfiltered")
    return cfg, tasks


def execute_filtered(cli: Any, namespace: argparse.Namespace, options: FilterOptions,
                     detect: DetectOptions | None = None) -> None:
    """Detect (optionally), plan the subset, run lm-eval, annotate its samples, write the
    flags and the grouped scores."""
    from ..scores import format_table

    detect = detect or DetectOptions()
    if not namespace.output_path:
        given = "--contamination-detect" if options.flags is None else "--contamination-filter"
        raise InputError(f"{given} needs --output_path (lm-eval writes the per-sample results "
                         "the grouped scores come from there)")
    keep_samples = bool(getattr(namespace, "log_samples", False))   # the grouped scores need them
    namespace.log_samples = True
    cfg, tasks = _load_tasks(namespace)
    docs = {name: list(task.eval_docs) for name, task in tasks.items()}
    indices = evaluated_indices(docs, limit=cfg.limit, samples=cfg.samples)
    from ._detect import detect_in_run, reusing

    detection: Detection | None
    if detect.enabled and detect.method == "overlap":   # the training corpus, not the model
        from ._overlap import overlap_in_run

        detection, lm = overlap_in_run(cfg, tasks, docs, indices, options, detect), None
    else:
        detection, lm = (detect_in_run(cfg, tasks, docs, indices, options, detect)
                         if detect.enabled else (None, None))
    if detection is not None and detect.dry_run:
        grouped = sorted(t for t, b in detection.tasks.items() if b)
        echo(f"dry run: detection would add {detection.calls} model calls ({detection.cached} "
             f"more already cached) for {detection.probes} probes on {len(grouped)} task(s)"
             + (f"; no detector for: {', '.join(detection.no_detector)}"
                if detection.no_detector else "") + "; nothing was run")
        return
    if detection is not None:
        echo(detection.summary())
        if not any(detection.tasks.values()):
            raise InputError("--contamination-detect: no task of this run has a detector "
                             f"({', '.join(detection.tasks)}); detectors exist for MMLU, "
                             "TruthfulQA and multiple_choice tasks")
    plan = plan_filtered_run(docs, indices, options,
                             model_candidates=model_candidates(cfg.model, cfg.model_args),
                             detection=detection, on_selection=lambda s: echo(s.summary()))
    task_benchmark, selections = plan.task_benchmark, plan.selections
    if plan.samples is not None:
        namespace.samples, namespace.limit = json.dumps(dict(plan.samples)), None

    root = Path(namespace.output_path)
    root = root.parent if root.suffix == ".json" else root
    before = _snapshot(root)
    start = time.perf_counter()
    with reusing(cfg.model, lm):
        cli.execute(namespace)
    evaluation_s = time.perf_counter() - start
    written = {p for p, m in _snapshot(root).items() if before.get(p) != m}
    samples = sorted(p for p in written if p.name.startswith("samples_") and p.suffix == ".jsonl")
    results = sorted(p for p in written if p.suffix == ".json"
                     and not p.name.startswith("benchchecker_"))
    if not samples:
        raise ExecutionError(f"lm-eval wrote no samples_*.jsonl under {root}; cannot score groups")
    from ..scores import pooled_scores

    scores: list[GroupedScore] = []
    values: dict[str, dict[str, dict[tuple[str, str], dict[str, float]]]] = {}
    for path in samples:
        task = _task_of(path, list(docs))
        benchmark = task_benchmark[task]
        if benchmark is not None:
            task_scores, values.setdefault(benchmark, {})[task] = _annotate(
                path, task, selections[benchmark], docs)
            scores += task_scores
    pooled = {b: pooled_scores(per_task, selections[b])   # the tasks as strata of one estimate
              for b, per_task in values.items()}
    scores += [s for rows in pooled.values() for s in rows]
    target = _beside(results, samples[0])
    report: dict[str, Any] = {
        "flags": str(options.flags) if options.flags else None, "mode": options.mode.value}
    first = next(iter(selections.values()))
    report.update({"benchmark": first.benchmark, "model": first.model, "counts": first.counts()})
    report["groups"] = [{"benchmark": b, "model": s.model, "counts": s.counts(),
                         "tasks": sorted(t for t, tb in task_benchmark.items() if tb == b)}
                        for b, s in selections.items()]
    if detection is not None:
        flags_file = flags_path_beside(target.parent, target.stem[len("benchchecker_"):])
        write_flags(flags_file, detection.flags)
        report["detection"] = {**detection.to_dict(), "flags_file": str(flags_file)}
    report["timings"] = {"detection_s": round(detection.seconds, 3) if detection else None,
                         "evaluation_s": round(evaluation_s, 3)}
    if not keep_samples:   # written for the grouped scores only: lm-eval writes them on --log_samples
        for path in samples:
            path.unlink()
    report["samples_files"] = [str(p) for p in samples] if keep_samples else []
    report["scores"] = [s.to_dict() for s in scores]
    _write_json(target, report)
    for path in results:
        _mark_results(path, options, report, target)
    for benchmark, selection in selections.items():
        rows = [s for s in scores if task_benchmark.get(s.task) == benchmark] + pooled.get(benchmark, [])
        click.echo(format_table(rows, title=f"benchchecker: scores by contamination group "
                                            f"({benchmark}, flags model '{selection.model}', "
                                            f"mode {options.mode.value})"))
    if detection is not None:
        echo(f"flags detected in this run written to {report['detection']['flags_file']}")
    echo(f"grouped scores written to {target}")
    echo(timing_line(detection, evaluation_s))


def _mark_results(path: Path, options: FilterOptions, report: Mapping[str, Any],
                  ours: Path) -> None:
    """Add a ``benchchecker`` key to lm-eval's own ``results_*.json``: whoever shares that file
    also shares that its scores are of a filtered run (mode, the flags' hash, subset sizes)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    used = [options.flags] + ([Path(report["detection"]["flags_file"])]
                              if "detection" in report else [])
    data["benchchecker"] = {
        "mode": options.mode.value,
        "note": ("scores are of the "
                 + ("full run" if options.mode is FilterMode.BOTH else f"{options.mode.value} subset only")
                 + f"; grouped scores in {ours.name}"),
        "flags": [str(p) for p in used if p is not None], "flags_sha256": flags_digest(used),
        "detect": "detection" in report,
        "evaluated": {g["benchmark"]: g["counts"] for g in report["groups"]},
        "subset_sizes": _subset_sizes(report), "grouped_scores_file": ours.name}
    _write_json(path, data)


def _subset_sizes(report: Mapping[str, Any]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for s in report["scores"]:
        if s["tier"] == "all" and s.get("n_tasks", 1) == 1:
            sizes[s["task"]] = max(sizes.get(s["task"], 0), int(s["n_instances"]))
    return sizes


def _snapshot(root: Path) -> dict[Path, tuple[int, int]]:
    if not root.exists():
        return {}
    return {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*") if p.is_file()}


def _beside(results: Sequence[Path], sample: Path) -> Path:
    """``benchchecker_<date>.json`` in the folder of lm-eval's results file of this run."""
    base = results[0] if results else sample
    stem = base.stem
    date = stem.split("_", 1)[1] if stem.startswith("results_") else stem.rsplit("_", 1)[-1]
    target = base.parent / f"benchchecker_{date}.json"
    n = 1
    while target.exists():
        target, n = base.parent / f"benchchecker_{date}.{n}.json", n + 1
    return target


def _task_of(path: Path, tasks: Sequence[str]) -> str:
    name = path.stem[len("samples_"):]
    matches = [t for t in tasks if name.startswith(f"{t}_")]
    if not matches:
        raise ExecutionError(f"{path}: no task of this run matches the file name")
    return max(matches, key=len)


def _annotate(path: Path, task: str, selection: Selection, docs: Mapping[str, Any]
              ) -> tuple[list[GroupedScore], dict[tuple[str, str], dict[str, float]]]:
    """Add a ``benchchecker`` object to each line of one samples file of ``task`` (atomic
    rewrite; every other key kept as written), and return the grouped scores of its metrics and
    the per-instance values they came from (``{(filter, metric): {instance_id: value}}``)."""
    from ..scores import grouped_scores

    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[str] = []
    values: dict[tuple[str, str], dict[str, float]] = {}
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        if "benchchecker" in record:
            raise ExecutionError(f"{path}:{lineno}: already annotated; refusing to annotate twice")
        iid = instance_id_of(record["doc_id"], record.get("doc"), task=task,
                             benchmark=selection.benchmark)
        group = selection.groups.get(iid)
        if group is None:
            raise ExecutionError(f"{path}:{lineno}: doc {record['doc_id']} (instance '{iid}') "
                                 "was not planned for this run")
        record["benchchecker"] = {"instance_id": iid, "benchmark": selection.benchmark,
                                  "model": selection.model, "group": group.value}
        out.append(json.dumps(record, ensure_ascii=False))
        for metric in record.get("metrics", []):
            value = record.get(metric)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                values.setdefault((record.get("filter", "none"), metric), {})[iid] = float(value)
    write_text_atomic(path, "\n".join(out) + "\n")
    return [s for (f, m), v in sorted(values.items())
            for s in grouped_scores(v, selection, task=task, filter=f, metric=m)], values


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, allow_nan=True) + "\n")
