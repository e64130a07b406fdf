"""``benchchecker swebench rescore``: grouped (full / clean / contaminated) resolution rates of
an existing SWE-bench or Multi-SWE-bench report per tier, without Docker; also what
``run_evaluation`` uses to score its own report."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

import click

from benchchecker_plugin.atomic import write_text_atomic
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.rescore_options import RescoreOptions, RescoreOverrides

from ..common import FilterMode, FilterOptions, Selection, echo, echo_warnings, run_filter

if TYPE_CHECKING:  # ..scores loads numba and pandas: imported where used, `--help` stays fast
    from ..scores import GroupedScore

TIERS_HELP = ("Per-instance difficulty tiers (.jsonl/.csv/.parquet with instance_id + difficulty, "
              "a datasets name, or a Multi-SWE-bench annotations .xlsx); adds one row per tier.")


def _load_run(path: Path) -> Any:
    from benchchecker_plugin.leaderboard import load_submissions

    subs = load_submissions(path)
    if len(subs) != 1:
        raise InputError(f"{path}: holds {len(subs)} runs; point at one report or one "
                         "<run_id>/<model> log folder")
    return subs[0]


def rescore_report(path: Path, selection: Selection, options: RescoreOptions | None = None,
                   **overrides: Unpack[RescoreOverrides]) -> list[GroupedScore]:
    """Grouped scores (per tier) of one report for the instances of ``selection``, tiers from
    ``options.tiers_path`` (its fields also by name, ``overrides``)."""
    from benchchecker_plugin.leaderboard import load_tiers

    from ..scores import grouped_scores

    opts = RescoreOptions.of(options, **overrides)
    run = _load_run(path)
    values = {i: 1.0 if i in run.resolved else 0.0 for i in selection.groups}
    tier_map = None
    if opts.tiers_path:
        from benchchecker_plugin.benchmarks import tier_scheme

        tier_map = load_tiers(opts.tiers_path, scheme=tier_scheme(selection.benchmark),
                              instance_ids=list(selection.groups))
    return grouped_scores(values, selection, task=run.name, metric="resolved", tiers=tier_map,
                          options=opts)


def write_beside(report: Path, selection: Selection, scores: list[GroupedScore],
                 extra: Mapping[str, Any] | None = None) -> Path:
    from ..scores import format_table

    target = report.with_name(report.stem + ".benchchecker.json")
    data = {"report": str(report), "benchmark": selection.benchmark, "model": selection.model,
            "mode": selection.mode.value, "counts": selection.counts(),
            **(extra or {}), "scores": [s.to_dict() for s in scores]}
    write_text_atomic(target, json.dumps(data, indent=2) + "\n")
    click.echo(format_table(scores, title=f"benchchecker: resolution rate by contamination group "
                                          f"({selection.benchmark}, flags model "
                                          f"'{selection.model}', mode {selection.mode.value})"))
    echo(f"grouped scores written to {target}")
    return target


def _has_any_model_flags(path: Path) -> bool:
    from benchchecker_plugin.flags import ANY_MODEL, read_flags

    return any(f.model == ANY_MODEL for f in read_flags(path))


@click.command("rescore")
@click.argument("report", type=click.Path(exists=True, path_type=Path))
@click.option("--contamination-filter", "--flags", "flags_path", required=True,
              type=click.Path(exists=True, path_type=Path),
              help="Flags file (.jsonl) or folder of them (--flags is the same option).")
@click.option("--tiers", "tiers_path", default=None, help=TIERS_HELP)
@click.option("--instances", "instances_path", default=None,
              help="The instances rates are over (denominator); default: the ids the report "
                   "lists as submitted, else the ids in --tiers. --tiers only labels tiers.")
@click.option("--benchmark", default=None,
              help="swe-bench-verified or multi-swe-bench (default: from the report and flags).")
@click.option("--contamination-model", "--model", "model", default=None,
              help="Model name the flags use (default: the report's, from its file name "
                   "<model>.<run_id>.json or its logs; --model is the same option).")
@click.option("--group-hard", is_flag=True, help="Merge '1-4 hours' and '>4 hours' into 'hard'.")
@click.option("--n-boot", default=RescoreOptions.n_boot, show_default=True,
              type=click.IntRange(min=0), help="Bootstrap resamples for the drop's interval (0: none).")
@click.option("--seed", default=RescoreOptions.seed, show_default=True, type=click.IntRange(min=0))
def rescore(report: Path, flags_path: Path, tiers_path: str | None, instances_path: str | None,
            benchmark: str | None, model: str | None, group_hard: bool, n_boot: int,
            seed: int) -> None:
    """Re-score an existing SWE-bench or Multi-SWE-bench report per tier, without Docker.

    REPORT_OR_LOG_DIR is a swebench run report (<model>.<run_id>.json), a per-instance log folder
    (logs/run_evaluation/<run_id>/<model>), or a Multi-SWE-bench final_report.json. Prints full,
    clean-only and contaminated-only resolution rates and the relative drop per tier (the same
    numbers as `benchchecker rescore`) and writes <report>.benchchecker.json beside a report file.

    \b
    Example:
      benchchecker swebench rescore gpt-4o.run1.json --flags flags.jsonl \\
          --tiers ../shared/data/swebench_verified/swebench_verified_composite.jsonl
    """
    from benchchecker_plugin.leaderboard import load_instance_ids, refuse_empty_submission

    from ..scores import format_table

    with echo_warnings():
        run = _load_run(report)
        # the denominator: --instances, else the run's instances; tiers only label (as rescore)
        if instances_path:
            ids = load_instance_ids(instances_path)
        elif run.submitted is not None:
            refuse_empty_submission(run.submitted, report)
            ids = sorted(run.submitted)
            echo(f"denominator: the {len(ids)} instances the report lists as submitted "
                 "(give --instances for another list)")
        elif tiers_path:
            ids = load_instance_ids(tiers_path)
            echo(f"denominator: the {len(ids)} instances of --tiers (the report lists no "
                 "submitted ids; give --instances for another list)")
        else:
            raise InputError(f"{report}: lists no submitted ids; give --instances or --tiers")
        hints = [benchmark] if benchmark else [str(report), run.format, str(tiers_path or "")]
        options = FilterOptions(flags_path, FilterMode.BOTH, model)
        if not model and not run.models and not _has_any_model_flags(flags_path):
            raise InputError(f"{report}: the report does not name its model (a run report is "
                             "<model>.<run_id>.json); pass --contamination-model NAME")
        selection = run_filter(options, hints=[h for h in hints if h],
                               model_candidates=list(run.models), instance_ids=ids)
        echo(selection.summary())
        scores = rescore_report(report, selection, RescoreOptions(
            tiers_path=tiers_path, group_hard=group_hard, n_boot=n_boot, seed=seed))
        if report.is_file():
            write_beside(report, selection, scores)
        else:
            click.echo(format_table(scores, title="benchchecker: resolution rate by "
                                                  "contamination group"))
