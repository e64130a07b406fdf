"""``benchchecker ts-guess``: TS-Guessing flags for MMLU and TruthfulQA, or for any lm-eval
multiple-choice task (``--task NAME --include_path DIR``), through the model layer."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import HubUnavailableError, InputError
from ..flags import write_flags
from ..models import ModelOptions
from ._executor_options import ExecutorOptions, executor_options, remote_batch
from ._options import dry_run_summary, max_tokens_option, model_options

# = tsguessing.BENCHMARKS, its Mode values and MULTICHOICE_THRESHOLD (tests/cli/test_help_imports.py):
# importing tsguessing loads scikit-learn, so `--help` reads these copies
BENCHMARKS = ("mmlu", "truthfulqa")
MODES = ("multichoice", "question")
MULTICHOICE_THRESHOLD = 0.8
#: ``--task``'s probe builder, in the lm-eval adapter: named as an entry point, never imported here
#: (the adapters import the core, not the reverse; the command groups are found the same way)
_TASK_PROBES = "harness_adapters.lm_eval._detect:probes_for_tasks"


@click.command("ts-guess")
@click.option("--benchmark", type=click.Choice(BENCHMARKS), default=None,
              help="mmlu (test split, 14,042 questions) or truthfulqa (817 questions). "
                   "Or --task.")
@click.option("--task", "--tasks", "tasks", default=None, metavar="NAME[,NAME...]",
              help="lm-eval task(s) or group(s) instead of --benchmark: any multiple_choice task, "
                   "read through its own definition (doc_to_text / doc_to_choice / doc_to_target "
                   "on its processed documents); flags name the task, instance ids are doc ids "
                   "(MMLU / TruthfulQA tasks keep those benchmarks' ids). --tasks, as lm-eval spells it, "
                   "is the same option. Needs lm-eval.")
@click.option("--include_path", "--include-path", "include_path", default=None, metavar="DIR",
              help="With --task: lm-eval's --include_path (a folder of task YAMLs).")
@click.option("--metadata", "task_metadata", default=None, metavar="JSON",
              help="With --task: lm-eval's --metadata (e.g. '{\"data\": \"../shared/data/mmlu\"}').")
@click.option("--mode", type=click.Choice(MODES), default="multichoice", show_default=True,
              help="multichoice: hide one wrong option and ask for it; question: hide one content "
                   "word of the question and ask for it.")
@model_options
@click.option("--data", default=None, metavar="[NAME=]PATH",
              help="Local data: the MMLU folder of <subject>_test.csv files (or its parent with test/), "
                   "or TruthfulQA.csv; mmlu=PATH is the same as PATH (as in check --data). Default: "
                   "cais/mmlu or truthfulqa/truthful_qa through datasets.")
@click.option("--subject", "subjects", multiple=True,
              help="MMLU only: keep these subjects (repeatable), e.g. --subject astronomy.")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Ask about the first N usable items only (after filtering).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the masked-option choice.")
@click.option("--hints/--no-hints", default=True, show_default=True,
              help="Name the benchmark and its metadata (MMLU subject; TruthfulQA type, category, "
                   "source) in the prompt.")
@max_tokens_option(32)
@executor_options
@click.option("--threshold", type=click.FloatRange(0, 1), default=MULTICHOICE_THRESHOLD, show_default=True,
              help="multichoice: contaminated when Rouge-L F1 against the masked option >= this "
                   "(question mode: exact match).")
@click.option("--model-name", default=None, help="Name written into the flags' model field (default: SPEC).")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Flags file to write (JSON Lines, atomically); not needed with --dry-run.")
def ts_guess(benchmark: str | None, tasks: str | None, include_path: str | None,
             task_metadata: str | None, mode: str, model_opts: ModelOptions, data: str | None,
             subjects: tuple[str, ...], limit: int | None, seed: int, hints: bool, max_tokens: int,
             executor_opts: ExecutorOptions, threshold: float, model_name: str | None,
             output: Path | None) -> None:
    """Ask a model to fill in a hidden part of each benchmark item (TS-Guessing).

    Reads MMLU or TruthfulQA, drops items a guess cannot tell anything about (correlated options,
    short questions, indexical TruthfulQA categories), hides one wrong option (multichoice) or one
    content word (question), asks the model at temperature 0, scores exact match and Rouge-L F1
    against the hidden text, and writes one flag per item (method ts_guessing.multichoice or
    ts_guessing.question; instance ids "<subject>/<row>" for MMLU, "<row>" for TruthfulQA).
    Prints how many items were used and dropped, and mean EM and Rouge-L. Answers go through the
    response cache (a re-run asks nothing twice; --no-cache turns it off); --dry-run prints how
    many model calls the run would make and writes nothing. With --executor ray the requests go
    out from the cluster's workers under one shared --max-concurrency limit, and the answers come
    back to this process's cache.

    With --task, any lm-eval multiple_choice task (ARC, HellaSwag, PIQA, MMLU-Pro, your own) is
    read through its own definition, exactly as `benchchecker lm-eval run --contamination-detect`
    reads it; a task that cannot be probed is one line saying why.

    \b
    Example:
      benchchecker ts-guess --benchmark mmlu --mode multichoice \\
          --model hf/HuggingFaceTB/SmolLM2-135M-Instruct --data ../shared/data/mmlu \\
          --limit 200 -o out/tsg_mmlu.jsonl
      benchchecker ts-guess --task my_arc --include_path my_tasks/ --model hf/smollm2-135m \\
          -o out/tsg_my_arc.jsonl
    """
    from .. import tsguessing
    from ..models import canonical_model_name
    from ..tsguessing import generation_params, load_items

    if output is None and not model_opts.dry_run:
        raise click.UsageError("give -o/--output (or --dry-run)")
    if (benchmark is None) == (tasks is None):
        raise InputError("give one of --benchmark or --task")
    if tasks is None and (include_path or task_metadata):
        raise InputError("--include_path and --metadata need --task")
    if tasks is not None:
        if data and mode == "multichoice" and not subjects:
            raise InputError(f"--data {data}: --task reads its data the lm-eval way: "
                             f"--metadata '{{\"data\": \"{data}\"}}'")
        if mode != "multichoice" or data or subjects:
            raise InputError("--task probes multichoice only and reads the task's own data "
                             "(no --mode question, --data or --subject)")
        _ts_guess_tasks(tasks, include_path, task_metadata, model_opts, limit, seed, hints,
                        max_tokens, executor_opts, threshold, model_name, output)
        return
    assert benchmark is not None
    from ..local_data import local_path

    path = local_path(data, benchmark)
    try:
        items = load_items(benchmark, path)
    except HubUnavailableError as exc:
        raise exc.naming("--data PATH") from exc
    if subjects:
        known = {i.metadata.get("subject") for i in items}
        unknown = sorted(set(subjects) - known)
        if unknown:
            raise InputError(f"--subject {', '.join(unknown)}: not a subject of {benchmark} "
                             f"(e.g. {', '.join(sorted(s for s in known if s)[:3]) or 'none'})")
        items = [i for i in items if i.metadata.get("subject") in subjects]
    model = model_opts.build(executor=executor_opts.build())
    result = tsguessing.ts_guess(model, items, mode, seed=seed, hints=hints, limit=limit,
                                 params=generation_params(max_tokens),
                                 # on Ray one call spans several workers' shards
                                 batch_size=remote_batch(model, model_opts.batch_size, executor_opts),
                                 model_name=model_name or canonical_model_name(model_opts.spec),
                                 threshold=threshold)
    if model_opts.dry_run:
        click.echo(f"{benchmark} {mode}: {len(result.flags)} probes; {dry_run_summary(model)}; "
                   f"nothing written")
        return
    assert output is not None   # checked above
    write_flags(output, result.flags)
    s = result.summary()
    reasons = sorted(result.dropped.items(), key=lambda kv: kv[0].value)
    dropped = ", ".join(f"{r.value} {n}" for r, n in reasons)
    click.echo(f"{benchmark} {mode}: {len(items)} items, {s['dropped']} dropped ({dropped or 'none'}), "
               f"{s['probes']} asked, {s['failed']} failed")
    click.echo(f"exact match {s['exact_match']:.3f}, Rouge-L {s['rouge_l']:.3f}, "
               f"{s['contaminated']} flagged contaminated -> {output}")
    if s["probes"] and not s["answered"]:   # written (all undecided), but nothing was measured
        from ..errors import ModelError

        first = next(f for f in result.flags if "error" in f.evidence)
        raise ModelError(f"all {s['probes']} probes failed (first: {first.instance_id}: "
                         f"{first.evidence['error']})")


def _ts_guess_tasks(tasks: str, include_path: str | None, task_metadata: str | None,
                    model_opts: ModelOptions, limit: int | None, seed: int, hints: bool,
                    max_tokens: int, executor_opts: ExecutorOptions, threshold: float,
                    model_name: str | None, output: Path | None) -> None:
    """``ts-guess --task``: the probes ``lm-eval run --contamination-detect`` builds for every
    document of the tasks, asked through the model layer."""

    from ..models import canonical_model_name
    from ..tsguessing import TSGuessResult, generation_params, run_probes
    from ._overlap_task import lm_eval_entry

    probes_for_tasks, metadata = lm_eval_entry(_TASK_PROBES, task_metadata,
                                               "`benchchecker ts-guess --task`")
    benchmarks, probes, dropped, why = probes_for_tasks(
        [t for t in tasks.split(",") if t], include_path, metadata, seed=seed, hints=hints)
    for name, reason in why.items():
        click.echo(f"no detector for this task: {name} ({reason})", err=True)
    if limit is not None:
        kept: dict[str, int] = {}
        probes = [p for p in probes if (kept.setdefault(p.benchmark, 0) < limit
                                        and not kept.update({p.benchmark: kept[p.benchmark] + 1}))]
    if not probes:
        told = "; ".join(f"{name}: {reason}" for name, reason in why.items())
        if why and all(b is None for b in benchmarks.values()):   # no task could be read
            raise InputError(f"--task {tasks}: no probe to ask: {told}")
        reasons = ", ".join(f"{k} {n}" for k, n in sorted(dropped.items()))
        raise InputError(f"--task {tasks}: no probe to ask (every item was dropped: {reasons or 'none'}"
                         + (f"; {told}" if why else "") + ")")
    model = model_opts.build(executor=executor_opts.build())
    flags = run_probes(model, probes, params=generation_params(max_tokens),
                       batch_size=remote_batch(model, model_opts.batch_size, executor_opts),
                       model_name=model_name or canonical_model_name(model_opts.spec),
                       threshold=threshold)
    if model_opts.dry_run:
        click.echo(f"{tasks}: {len(probes)} probes; {dry_run_summary(model)}; nothing written")
        return
    assert output is not None   # checked by ts_guess
    write_flags(output, flags)
    for name, benchmark in benchmarks.items():
        if benchmark is None:
            continue
        mine = [f for f in flags if f.benchmark == benchmark]
        s = TSGuessResult(tuple(mine), {}).summary()
        click.echo(f"{name}: {len(mine)} asked, {s['failed']} failed, exact match "
                   f"{s['exact_match']:.3f}, Rouge-L {s['rouge_l']:.3f}, {s['contaminated']} "
                   "flagged contaminated")
    reasons = ", ".join(f"{k} {n}" for k, n in sorted(dropped.items()))
    click.echo(f"{len(flags)} flags ({reasons or 'none'} dropped) -> {output}")
