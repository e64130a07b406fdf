"""``benchchecker swebench``: the SWE-bench harness with contamination filtering, and re-scoring
of existing SWE-bench / Multi-SWE-bench reports per difficulty tier.

``run_evaluation`` takes every argument of ``python -m swebench.harness.run_evaluation`` plus the
contamination options and ``--contamination-tiers``; it groups the predictions' instances by the
flags for the predictions' model, passes the subset as ``--instance_ids`` (modes ``clean`` /
``contaminated``), runs the harness unchanged in a subprocess (its output streams through; its
log folder and run report are its own), then re-scores the run report per tier and writes
``<report>.benchchecker.json`` beside it.

``rescore`` reads an existing run report, per-instance log folder, or Multi-SWE-bench
``final_report.json`` with the same loaders and scorer as ``benchchecker rescore`` and prints the
same numbers, without Docker.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import click

from benchchecker_plugin.errors import ExecutionError, InputError

from ..common import FilterOptions, Mode, Selection, echo, echo_warnings, run_filter

if TYPE_CHECKING:  # ..scores loads numba and pandas: imported where used, `--help` stays fast
    from ..scores import GroupedScore

__all__ = ["RunPlan", "harness_argv", "plan_run", "rescore_report", "swebench"]

HARNESS = "swebench.harness.run_evaluation"
_TIERS_HELP = ("Per-instance difficulty tiers (.jsonl/.csv/.parquet with instance_id + difficulty, "
               "or a datasets name); adds one row per tier.")


@click.group("swebench")
def swebench() -> None:
    """SWE-bench harness with contamination filtering; re-scoring of its reports.

    \b
    benchchecker swebench run_evaluation <every run_evaluation argument> --contamination-filter F
        [--contamination-mode both|clean|contaminated] [--contamination-tiers T]
    benchchecker swebench rescore REPORT_OR_LOG_DIR --flags F [--tiers T]
    """


# ------------------------------------------------------------------------------ run_evaluation

def _harness_parser() -> argparse.ArgumentParser:
    """The run_evaluation arguments this wrapper reads (the harness parses them itself)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("-d", "--dataset_name", default="SWE-bench/SWE-bench_Lite")
    p.add_argument("-s", "--split", default="test")
    p.add_argument("-i", "--instance_ids", nargs="+")
    p.add_argument("-p", "--predictions_path")
    p.add_argument("-id", "--run_id")
    p.add_argument("--report_dir", default=".")
    p.add_argument("--contamination-filter", dest="contamination_filter")
    p.add_argument("--contamination-mode", dest="contamination_mode", default="both",
                   choices=[m.value for m in Mode])
    p.add_argument("--contamination-model", dest="contamination_model")
    p.add_argument("--contamination-tiers", dest="contamination_tiers")
    return p


_OURS = {"--contamination-filter", "--contamination-mode", "--contamination-model",
         "--contamination-tiers"}


def _strip(argv: Sequence[str], names: set[str], *, nargs_plus: bool = False) -> list[str]:
    """``argv`` without the options in ``names`` and their value (all values with
    ``nargs_plus``, up to the next option)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        i += 1
        if tok.split("=", 1)[0] not in names:
            out.append(tok)
        elif "=" not in tok:
            if nargs_plus:
                while i < len(argv) and not argv[i].startswith("-"):
                    i += 1
            else:
                i += 1
    return out


def _predictions(path: str, dataset_name: str, split: str) -> list[dict[str, Any]]:
    if path == "gold":
        from swebench.harness.utils import load_swebench_dataset

        return [{"instance_id": d["instance_id"], "model_name_or_path": "gold"}
                for d in load_swebench_dataset(dataset_name, split)]
    from swebench.harness.utils import get_predictions_from_file

    try:
        return list(get_predictions_from_file(path, dataset_name, split))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read predictions ({exc})") from None


@dataclass(frozen=True)
class RunPlan:
    """One ``run_evaluation`` command line, planned: the harness's own arguments (with the subset
    as ``--instance_ids`` for modes clean / contaminated), the selection (``None``: no filter),
    the predictions' model and the arguments read."""

    argv: tuple[str, ...]
    selection: Selection | None
    model: str
    args: argparse.Namespace

    @property
    def report(self) -> Path:
        """Where ``make_run_report`` writes this run's report."""
        return Path(self.args.report_dir) / f"{self.model.replace('/', '__')}.{self.args.run_id}.json"


def plan_run(argv: Sequence[str]) -> RunPlan:
    """Parse and plan one ``run_evaluation`` command line (see :class:`RunPlan`)."""
    ns, _ = _harness_parser().parse_known_args(list(argv))
    options = FilterOptions.from_values(ns.contamination_filter, ns.contamination_mode,
                                        ns.contamination_model)
    harness = _strip(_strip(argv, {o for o in _OURS if o != "--contamination-tiers"}),
                     {"--contamination-tiers"})
    if not options.enabled:
        return RunPlan(tuple(harness), None, "", ns)
    if not ns.predictions_path or not ns.run_id:
        raise InputError("run_evaluation needs --predictions_path and --run_id")
    preds = _predictions(ns.predictions_path, ns.dataset_name, ns.split)
    models = sorted({str(p.get("model_name_or_path", "")) for p in preds})
    if len(models) != 1:
        raise InputError(f"{ns.predictions_path}: predictions name {len(models)} models "
                         f"({', '.join(models[:3])}); filter one model per run")
    ids = known = [str(p["instance_id"]) for p in preds]
    if ns.instance_ids:
        wanted = set(ns.instance_ids)
        ids = [i for i in ids if i in wanted]
    selection = run_filter(options, hints=[ns.dataset_name], model_candidates=models,
                           instance_ids=ids, known_ids=known)
    if options.mode is not Mode.BOTH:
        harness = _strip(harness, {"-i", "--instance_ids"}, nargs_plus=True)
        harness += ["--instance_ids", *selection.selected]
    return RunPlan(tuple(harness), selection, models[0], ns)


def harness_argv(argv: Sequence[str]) -> list[str]:
    """The command line that runs the harness for ``argv`` (what ``run_evaluation`` executes)."""
    return [sys.executable, "-m", HARNESS, *plan_run(argv).argv]


def _run_harness(cmd: list[str]) -> None:
    """Run the harness, streaming its output; a failure is one line naming its cause."""
    tail: deque[str] = deque(maxlen=40)
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          bufsize=1) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            tail.append(line.rstrip())
    if proc.returncode != 0:
        last = next((t for t in reversed(tail) if t.strip()), "no output")
        if "DockerException" in last:
            raise ExecutionError(f"swebench harness stopped: Docker is not reachable ({last}); "
                                 "start Docker, or re-score an existing report with "
                                 "`benchchecker swebench rescore`")
        raise ExecutionError(f"swebench harness exited with code {proc.returncode}: {last}")


@swebench.command("run_evaluation", add_help_option=False,
                  context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run_evaluation(args: tuple[str, ...]) -> None:
    """Run `python -m swebench.harness.run_evaluation ARGS`, filtered by contamination flags.

    Reads: every run_evaluation argument (-d, -p, -id, -i, --report_dir, ...), the flags
    (--contamination-filter), optional --contamination-mode, --contamination-model and
    --contamination-tiers. Writes: the harness's own logs and run report, plus
    <model>.<run_id>.benchchecker.json beside the report.

    \b
    Example:
      benchchecker swebench run_evaluation -d princeton-nlp/SWE-bench_Verified \\
          -p preds.jsonl -id run1 --contamination-filter flags.jsonl \\
          --contamination-mode clean --contamination-tiers swebench_verified_composite.jsonl
    """
    if "-h" in args or "--help" in args:
        click.echo(click.get_current_context().get_help())
        subprocess.run([sys.executable, "-m", HARNESS, "--help"], check=False)
        return
    with echo_warnings():
        plan = plan_run(args)
        if plan.selection is not None:
            echo(plan.selection.summary())
        _run_harness([sys.executable, "-m", HARNESS, *plan.argv])
        if plan.selection is None:
            return
        if not plan.report.is_file():
            raise ExecutionError(f"the harness wrote no run report at {plan.report}")
        scores = rescore_report(plan.report, plan.selection, tiers=plan.args.contamination_tiers)
        _write_beside(plan.report, plan.selection, scores)


# ------------------------------------------------------------------------------ rescore

def _load_run(path: Path) -> Any:
    from benchchecker_plugin.leaderboard import load_submissions

    subs = load_submissions(path)
    if len(subs) != 1:
        raise InputError(f"{path}: holds {len(subs)} runs; point at one report or one "
                         "<run_id>/<model> log folder")
    return subs[0]


def rescore_report(path: Path, selection: Selection, *, tiers: str | None = None,
                   group_hard: bool = False, n_boot: int = 1000, seed: int = 0
                   ) -> list[GroupedScore]:
    """Grouped scores (per tier) of one report for the instances of ``selection``."""
    from benchchecker_plugin.leaderboard import load_tiers

    from ..scores import grouped_scores

    run = _load_run(path)
    values = {i: 1.0 if i in run.resolved else 0.0 for i in selection.groups}
    tier_map = None
    if tiers:
        scheme = "multi-swe-bench" if selection.benchmark == "multi-swe-bench" \
            else "swe-bench-verified"
        tier_map = load_tiers(tiers, scheme=scheme)
    return grouped_scores(values, selection, task=run.name, metric="resolved", tiers=tier_map,
                          group_hard=group_hard, n_boot=n_boot, seed=seed)


def _write_beside(report: Path, selection: Selection, scores: list[GroupedScore]) -> Path:
    from ..scores import format_table

    target = report.with_name(report.stem + ".benchchecker.json")
    data = {"report": str(report), "benchmark": selection.benchmark, "model": selection.model,
            "mode": selection.mode.value, "counts": selection.counts(),
            "scores": [s.to_dict() for s in scores]}
    target.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    click.echo(format_table(scores, title=f"benchchecker: resolution rate by contamination group "
                                          f"({selection.benchmark}, flags model "
                                          f"'{selection.model}', mode {selection.mode.value})"))
    echo(f"grouped scores written to {target}")
    return target


@swebench.command("rescore")
@click.argument("report", type=click.Path(exists=True, path_type=Path))
@click.option("--flags", "flags_path", required=True, type=click.Path(exists=True, path_type=Path),
              help="Flags file (.jsonl) or folder of them.")
@click.option("--tiers", "tiers_path", default=None, help=_TIERS_HELP)
@click.option("--instances", "instances_path", default=None,
              help="The benchmark's instance list (denominator); default: the ids in --tiers, "
                   "else the ids the report lists as submitted.")
@click.option("--benchmark", default=None,
              help="swe-bench-verified or multi-swe-bench (default: from the report and flags).")
@click.option("--model", default=None, help="Model name the flags use (default: the report's).")
@click.option("--group-hard", is_flag=True, help="Merge '1-4 hours' and '>4 hours' into 'hard'.")
@click.option("--n-boot", default=1000, show_default=True, type=click.IntRange(min=0),
              help="Bootstrap resamples for the drop's interval (0: none).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0))
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
    from benchchecker_plugin.leaderboard import load_instance_ids

    from ..scores import format_table

    with echo_warnings():
        run = _load_run(report)
        if instances_path or tiers_path:
            ids = load_instance_ids(instances_path or tiers_path)  # type: ignore[arg-type]
        elif run.submitted:
            ids = sorted(run.submitted)
            echo(f"denominator: the {len(ids)} instances the report lists as submitted "
                 "(give --instances or --tiers for the benchmark's list)")
        else:
            raise InputError(f"{report}: lists no submitted ids; give --instances or --tiers")
        hints = [benchmark] if benchmark else [str(report), run.format, str(tiers_path or "")]
        options = FilterOptions(flags_path, Mode.BOTH, model)
        selection = run_filter(options, hints=[h for h in hints if h],
                               model_candidates=list(run.models) or [run.name], instance_ids=ids)
        echo(selection.summary())
        scores = rescore_report(report, selection, tiers=tiers_path, group_hard=group_hard,
                                n_boot=n_boot, seed=seed)
        if report.is_file():
            _write_beside(report, selection, scores)
        else:
            click.echo(format_table(scores, title="benchchecker: resolution rate by "
                                                  "contamination group"))
