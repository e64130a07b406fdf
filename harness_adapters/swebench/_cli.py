"""``benchchecker swebench``: the SWE-bench harness with contamination filtering, and re-scoring
of existing SWE-bench / Multi-SWE-bench reports per difficulty tier.

``run_evaluation`` takes every argument of ``python -m swebench.harness.run_evaluation`` plus the
contamination options and ``--contamination-tiers``; it groups the predictions' instances by the
flags for the predictions' model, passes the subset as ``--instance_ids`` (modes ``clean`` /
``contaminated``), runs the harness unchanged in a subprocess (its output streams through; its
log folder and run report are its own), then re-scores the run report per tier and writes
``<report>.benchchecker.json`` beside it.

With ``--contamination-detect`` the run first makes its own flags (Stage II at the model's cutoff,
:mod:`._detect`), written beside the report before the harness starts and merged with any
``--contamination-filter`` flags; ``--dry-run`` says what detection would do and runs nothing.

``rescore`` reads an existing run report, per-instance log folder, or Multi-SWE-bench
``final_report.json`` with the same loaders and scorer as ``benchchecker rescore`` and prints the
same numbers, without Docker.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from benchchecker_plugin.errors import ExecutionError, InputError

from ..common import (
    FILTER_OPTIONS,
    FilterMode,
    Selection,
    echo,
    echo_warnings,
    pop_filter_options,
    run_filter,
)
from ..detection import timing_line
from ..options import add_argparse_options
from ._detect import DETECT_OPTION_HELP, DETECT_SWITCHES, DETECT_VALUED, DetectRequest, add_detect_arguments
from ._rescore import TIERS_HELP, rescore, rescore_report, write_beside

if TYPE_CHECKING:  # ..scores loads numba and pandas: imported where used, `--help` stays fast
    from benchchecker_plugin.flags import ContaminationFlag

    from ..detection import Detection

HARNESS = "swebench.harness.run_evaluation"


@click.group("swebench")
def swebench() -> None:
    """SWE-bench harness with contamination filtering; re-scoring of its reports.

    \b
    benchchecker swebench run_evaluation <every run_evaluation argument> --contamination-filter F
        [--contamination-mode both|clean|contaminated] [--contamination-tiers T]
    benchchecker swebench run_evaluation <...> --contamination-detect --contamination-repos-dir DIR
        (--contamination-cutoff DATE | --contamination-cutoffs FILE) [--dry-run] [--contamination-filter F]
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
    add_argparse_options(p, FILTER_OPTIONS, with_help=False)
    p.add_argument("--contamination-tiers", dest="contamination_tiers")
    add_detect_arguments(p)
    return p


_OURS = {*(o.name for o in FILTER_OPTIONS), "--contamination-tiers", *DETECT_VALUED}

#: Our options as ``run_evaluation --help`` lists them (before the harness's own help).
OPTION_HELP = (
    *((o.usage, o.help) for o in FILTER_OPTIONS),
    ("--contamination-tiers T", TIERS_HELP),
    *DETECT_OPTION_HELP,
)


def _strip(argv: Sequence[str], names: set[str], *, nargs_plus: bool = False,
           switches: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """``argv`` without the options in ``names`` and their value (all values with
    ``nargs_plus``, up to the next option), and without the value-less options in ``switches``."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        i += 1
        if tok in switches:
            continue
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
        from benchchecker_plugin.swebench_compat import load_swebench_dataset

        try:
            rows = load_swebench_dataset(dataset_name, split, "`benchchecker swebench run_evaluation`")
        except Exception as exc:  # datasets / pyarrow / json raise many types: one line naming it
            raise InputError(f"--dataset_name {dataset_name}: cannot load split {split!r} "
                             f"({type(exc).__name__}: {exc})") from exc
        return [{"instance_id": d["instance_id"], "model_name_or_path": "gold"} for d in rows]
    from benchchecker_plugin.swebench_compat import predictions_from_file

    try:
        return list(predictions_from_file(path, dataset_name, split, "`benchchecker swebench run_evaluation`"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read predictions ({exc})") from None


@dataclass(frozen=True)
class RunInputs:
    """What a filtered run reads from its predictions: the one model they name, the run's
    instance ids (the predictions narrowed by ``--instance_ids``, in prediction order) and every
    predicted id."""

    model: str
    ids: tuple[str, ...]
    known: tuple[str, ...]


def read_run(ns: argparse.Namespace) -> RunInputs:
    """The :class:`RunInputs` of parsed ``run_evaluation`` arguments (one-line errors)."""
    if not ns.predictions_path or not ns.run_id:
        raise InputError("run_evaluation needs --predictions_path and --run_id")
    preds = _predictions(ns.predictions_path, ns.dataset_name, ns.split)
    models = sorted({str(p.get("model_name_or_path", "")) for p in preds})
    if len(models) != 1:
        raise InputError(f"{ns.predictions_path}: predictions name {len(models)} models "
                         f"({', '.join(models[:3])}); filter one model per run")
    # both name files and folders (the report, the harness's logs): a NUL there was a traceback
    for what, value in ((f"{ns.predictions_path}: model_name_or_path", models[0]), ("--run_id", str(ns.run_id))):
        if not value.strip() or any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise InputError(f"{what} {value!r} is empty or has a control character")
    ids = known = [str(p["instance_id"]) for p in preds]
    if ns.instance_ids:
        wanted = set(ns.instance_ids)
        ids = [i for i in ids if i in wanted]
    return RunInputs(models[0], tuple(ids), tuple(known))


def report_path(ns: argparse.Namespace, model: str) -> Path:
    """Where ``make_run_report`` writes the run report of ``model``'s predictions."""
    return Path(ns.report_dir) / f"{model.replace('/', '__')}.{ns.run_id}.json"


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
        return report_path(self.args, self.model)


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    return _harness_parser().parse_known_args(list(argv))[0]


def plan_run(argv: Sequence[str], *, detected: Sequence[ContaminationFlag] = (),
             inputs: RunInputs | None = None) -> RunPlan:
    """Parse and plan one ``run_evaluation`` command line (see :class:`RunPlan`); ``detected``
    are the flags ``--contamination-detect`` made (merged with ``--contamination-filter``'s),
    ``inputs`` the predictions already read."""
    ns = _parse(argv)
    options = pop_filter_options(dict(vars(ns)), detect=ns.contamination_detect)
    harness = _strip(argv, _OURS, switches=DETECT_SWITCHES)
    if not options.enabled:
        return RunPlan(tuple(harness), None, "", ns)
    run = inputs or read_run(ns)
    selection = run_filter(options, hints=[ns.dataset_name], model_candidates=[run.model],
                           instance_ids=run.ids, known_ids=run.known, detected=detected)
    if options.mode is not FilterMode.BOTH:
        harness = _strip(harness, {"-i", "--instance_ids"}, nargs_plus=True)
        harness += ["--instance_ids", *selection.selected]
    return RunPlan(tuple(harness), selection, run.model, ns)


def harness_argv(argv: Sequence[str]) -> list[str]:
    """The command line that runs the harness for ``argv`` (what ``run_evaluation`` executes)."""
    return [sys.executable, "-m", HARNESS, *plan_run(argv).argv]


def _run_harness(cmd: list[str]) -> None:
    """Run the harness, streaming its output; a failure is one line naming its cause. A traceback
    is held back until the harness ends: shown after a success or an unknown failure, dropped when
    the one-line error says it all (Docker not reachable: ~40 lines of docker-py frames that hid it)."""
    tail: deque[str] = deque(maxlen=40)
    held: list[str] = []
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          bufsize=1) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if held or line.startswith("Traceback (most recent call last):"):
                held.append(line)
            else:
                sys.stdout.write(line)
            tail.append(line.rstrip())
    last = next((t for t in reversed(tail) if t.strip()), "no output")
    if not (proc.returncode != 0 and "DockerException" in last):
        sys.stdout.write("".join(held))
    if proc.returncode != 0:
        if "DockerException" in last:
            raise ExecutionError(f"swebench harness stopped: Docker is not reachable ({last}); "
                                 "start Docker, or re-score an existing report with "
                                 "`benchchecker swebench rescore`")
        raise ExecutionError(f"swebench harness exited with code {proc.returncode}: {last}")


@swebench.command("run_evaluation", add_help_option=False,
                  context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run_evaluation(args: tuple[str, ...]) -> None:
    """Run `python -m swebench.harness.run_evaluation ARGS`, filtered by contamination flags
    given (--contamination-filter) or made in the run (--contamination-detect).

    Reads: every run_evaluation argument (-d, -p, -id, -i, --report_dir, ...) and the options
    below. Writes: the harness's own logs and run report, plus
    <model>.<run_id>.benchchecker.json beside the report (grouped scores per tier; with
    detection a "detection" block and "timings"), and with --contamination-detect the flags
    <model>.<run_id>.benchchecker_flags.jsonl there, before the harness starts.

    \b
    Examples:
      benchchecker swebench run_evaluation -d princeton-nlp/SWE-bench_Verified \\
          -p preds.jsonl -id run1 --contamination-filter flags.jsonl \\
          --contamination-mode clean --contamination-tiers swebench_verified_composite.jsonl
      benchchecker swebench run_evaluation -d verified.jsonl -p preds.jsonl -id run1 \\
          --contamination-detect --contamination-cutoff 2024-04-30 --contamination-repos-dir repos/
    """
    if "-h" in args or "--help" in args:
        click.echo(_help(click.get_current_context()))
        sys.stdout.flush()
        subprocess.run([sys.executable, "-m", HARNESS, "--help"], check=False)
        return
    from benchchecker_plugin.extras import require

    require("swebench.harness", "`benchchecker swebench run_evaluation`")
    with echo_warnings():
        ns = _parse(args)
        request = DetectRequest.from_namespace(ns)
        inputs = detection = block = None
        if request is not None:
            from ._detect import detect_run

            inputs = read_run(ns)
            made = detect_run(request, dataset=ns.dataset_name, split=ns.split, ids=inputs.ids,
                              model=ns.contamination_model or inputs.model,
                              report=report_path(ns, inputs.model))
            if made is None:  # --dry-run
                return
            detection, block = made
        plan = plan_run(args, detected=detection.flags if detection else (), inputs=inputs)
        if plan.selection is not None:
            echo(plan.selection.summary())
        start = time.perf_counter()
        _run_harness([sys.executable, "-m", HARNESS, *plan.argv])
        if plan.selection is not None:
            finish_run(plan, time.perf_counter() - start, detection, block)


def _help(ctx: click.Context) -> str:
    """Our help: the docstring, then every option we add (the harness's help follows)."""
    formatter = ctx.make_formatter()
    assert ctx.command is not None
    ctx.command.format_help(ctx, formatter)
    with formatter.section("Options added by benchchecker (removed before the harness runs)"):
        formatter.write_dl(list(OPTION_HELP))
    return formatter.getvalue() + "\nThe harness's own options:"


def finish_run(plan: RunPlan, evaluation_s: float, detection: Detection | None = None,
               detection_block: Mapping[str, Any] | None = None) -> Path:
    """After the harness: re-score its run report per tier for the plan's selection and write
    ``<report>.benchchecker.json`` (with the ``detection`` block and ``timings``); the last
    stderr line is the timing line."""
    assert plan.selection is not None
    if not plan.report.is_file():
        raise ExecutionError(f"the harness wrote no run report at {plan.report}")
    scores = rescore_report(plan.report, plan.selection, tiers_path=plan.args.contamination_tiers)
    extra: dict[str, Any] = {}
    if detection_block is not None:
        extra["detection"] = dict(detection_block)
    extra["timings"] = {"detection_s": round(detection.seconds, 3) if detection else None,
                        "evaluation_s": round(evaluation_s, 3)}
    target = write_beside(plan.report, plan.selection, scores, extra)
    echo(timing_line(detection, evaluation_s))
    return target


swebench.add_command(rescore)
