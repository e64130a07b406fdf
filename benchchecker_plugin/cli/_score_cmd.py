"""``benchchecker score``, ``rescore`` and ``leaderboard``: detector quality, and results re-scored
without the instances flagged as contaminated."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..errors import DataError, InputError
from ..flags import read_flags
from ..rescore_options import DEFAULT_N_BOOT, DEFAULT_SEED, RescoreOptions
from ._outputs import writes_into

if TYPE_CHECKING:  # pandas is imported where used: `--help` stays fast
    import pandas as pd

# = sorted(benchmarks.KNOWN) (tests/test_benchmarks.py); a copy so that `--help` imports nothing
_KNOWN = ("bugsinpy", "defects4j", "mmlu", "multi-swe-bench", "swe-bench", "swe-bench-lite",
          "swe-bench-multimodal", "swe-bench-verified", "truthfulqa")


#: the options below show :class:`RescoreOptions`' defaults (their one definition)
_OPTION_FIELDS = tuple(f.name for f in dataclasses.fields(RescoreOptions))


def _rescore_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Pass the command's rescore options (its parameters named as :class:`RescoreOptions`'
    fields) as one ``opts: RescoreOptions`` argument; applied below the click options."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs["opts"] = RescoreOptions(**{f: kwargs.pop(f) for f in _OPTION_FIELDS if f in kwargs})
        return fn(*args, **kwargs)

    return wrapper


def _benchmark_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from ..benchmarks import check_name

    try:
        return check_name(value)
    except InputError as exc:
        raise click.BadParameter(str(exc)) from None




# ----------------------------------------------------------------------------------- helpers
def _clean_json(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean_json(v) for v in value]
    if hasattr(value, "item"):  # numpy scalar
        return _clean_json(value.item())
    return value


def _emit_json(obj: dict[str, Any]) -> None:
    click.echo(json.dumps(_clean_json(obj), indent=2, allow_nan=False))


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [_clean_json(r) for r in frame.to_dict(orient="records")]


def _print_table(frame: pd.DataFrame) -> None:
    import pandas as pd

    text = [c for c in frame.columns if frame[c].dtype == object]
    frame = frame.assign(**{c: frame[c].where(frame[c].notna(), "") for c in text})
    with pd.option_context("display.max_rows", None, "display.max_columns", None,
                           "display.width", 250, "display.float_format", "{:.4f}".format):
        click.echo(frame.to_string(index=False, na_rep=""))


# the columns a reader needs on a terminal; the files (--out, --json, leaderboard.csv) hold the rest
_RATE_VIEW = (("submission", "submission"), ("group", "group"), ("model", "model"), ("tier", "tier"),
              ("n_submissions", "subs"), ("n_instances", "n"), ("n_clean", "clean n"),
              ("n_contaminated", "contam. n"), ("n_undecided", "undec. n"), ("original_rate", "original"),
              ("clean_rate", "clean"))


def _print_rates(frame: pd.DataFrame) -> None:
    """A rate table (rescore, leaderboard) as a compact rich table: who, tier, counts, the
    original and clean rates and the drop with its interval (or 'too few' with its n); every
    name in full."""
    import pandas as pd
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ..report import drop_text, pct

    cols = [(c, label) for c, label in _RATE_VIEW if c in frame.columns]
    table = Table(show_edge=False, pad_edge=False)
    names = {"submission", "group", "model"}
    for c, label in cols:
        table.add_column(label, justify="left" if c in names | {"tier"} else "right",
                         no_wrap=c in names, overflow="ignore" if c in names else "fold")
    table.add_column("drop [95% CI]", justify="right")
    for _, row in frame.iterrows():
        cells = [pct(row[c]) if c.endswith("_rate") else "" if pd.isna(row[c]) else str(row[c])
                 for c, _ in cols]
        table.add_row(*[Text(c) for c in cells], Text(drop_text(row)))
    widest = sum(max([len(label)] + [len(str(v)) for v in frame[c]]) + 3 for c, label in cols if c in names)
    Console(width=max(120, widest + 110), highlight=False).print(table)


_COMMON = [
    click.option("--flags", "flags_path", required=True, type=click.Path(exists=True, path_type=Path),
                 help="Flags file (.jsonl) or folder of them."),
    click.option("--tiers", "tiers_path", type=click.Path(path_type=Path),
                 help="Per-instance tiers: .jsonl/.csv/.parquet with instance_id + difficulty, "
                      "a datasets name, or a Multi-SWE-bench annotation workbook (.xlsx, with "
                      "--benchmark multi-swe-bench). Tiers only label instances."),
    click.option("--instances", "instances_path", type=click.Path(path_type=Path),
                 help="The benchmark's instance list (denominator); default: the ids in --tiers."),
    click.option("--benchmark", default=RescoreOptions.benchmark, show_default=True,
                 metavar="NAME", callback=_benchmark_name,
                 help="Which benchmark's flags to use: any name the flags use; known ones "
                      f"({', '.join(_KNOWN)}) bring their tier scheme."),
    click.option("--format", "fmt", default="auto", show_default=True,
                 help="Results format: auto, swebench-experiments, swebench-run-report, "
                      "swebench-instance-logs, multi-swe-bench, lm-eval, inspect."),
    click.option("--tier-field", default=RescoreOptions.tier_field, show_default=True,
                 help="Column of --tiers holding the tier."),
    click.option("--id-field", default=RescoreOptions.id_field, show_default=True,
                 help="Column of --tiers / --instances holding the instance id."),
    click.option("--group-hard", is_flag=True,
                 help="Merge '1-4 hours' and '>4 hours' into one 'hard' tier."),
    click.option("--n-boot", default=RescoreOptions.n_boot, show_default=True, type=click.IntRange(min=0),
                 help="Bootstrap resamples for the drop's interval (0: none)."),
    click.option("--seed", default=RescoreOptions.seed, show_default=True, type=click.IntRange(min=0)),
    click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables."),
]


def _common(fn: Any) -> Any:
    for option in reversed(_COMMON):
        fn = option(fn)
    return fn


# ----------------------------------------------------------------------------------- score
@click.command()
@click.option("--flags", "flags_path", required=True, type=click.Path(exists=True, path_type=Path),
              help="Flags file (.jsonl) or folder of them.")
@click.option("--labels", "labels_path", required=True, type=click.Path(exists=True, path_type=Path),
              help="Ground truth: .jsonl/.csv with instance_id, label (1/0, true/false, "
                   "contaminated/clean) and optionally model.")
@click.option("--fpr", "fpr_target", default=0.05, show_default=True, type=click.FloatRange(0, 1),
              help="FPR at which TPR is reported.")
@click.option("--n-boot", default=DEFAULT_N_BOOT, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=DEFAULT_SEED, show_default=True, type=click.IntRange(min=0))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
def score(flags_path: Path, labels_path: Path, fpr_target: float, n_boot: int, seed: int,
          as_json: bool) -> None:
    """How well flags find the truly contaminated instances: AUC, TPR, FPR, TPR@FPR, with intervals.

    Reads a flags file and a labels file; prints one row per (benchmark, model, method) with AUC of
    the scores, TPR at FPR <= --fpr, and TPR / FPR / precision of the 'contaminated' verdicts
    (undecided counts as not flagged; how many is in n_undecided), each with a percentile
    bootstrap interval. Flags without a label are skipped (n_unlabeled).

    \b
    Example:
      benchchecker score --flags flags.jsonl --labels truth.csv --json
    """
    from ..scoring import read_labels, score_flags

    rows = score_flags(read_flags(flags_path), read_labels(labels_path), fpr=fpr_target, n_boot=n_boot,
                       seed=seed)
    if not any(r["n"] for r in rows):
        raise DataError(f"{labels_path}: no label matches any flag in {flags_path}")
    import pandas as pd

    table = pd.DataFrame(rows)
    if as_json:
        _emit_json({"fpr_target": fpr_target, "n_boot": n_boot, "seed": seed, "ci": 0.95,
                    "rows": _records(table)})
    else:
        _print_table(table)


def _minimums(fn: Any) -> Any:
    fn = click.option("--min-resolved-clean", default=RescoreOptions.min_resolved_clean, show_default=True,
                      type=click.IntRange(min=0),
                      help="... and at least this many of them resolved (distinct instances).")(fn)
    return click.option("--min-clean", default=RescoreOptions.min_clean, show_default=True,
                        type=click.IntRange(min=0),
                        help="A drop needs at least this many clean instances; fewer reads 'too "
                             "few (clean n, resolved n)' (CSV: empty drop and a note).")(fn)


# ----------------------------------------------------------------------------------- rescore
@click.command()
@click.option("--results", "results_path", required=True, type=click.Path(exists=True, path_type=Path),
              help="One run's results (swebench run report, final_report.json, samples_*.jsonl, "
                   "Inspect log, one experiments submission folder).")
@_common
@click.option("--model", default=None, help="Model behind the run (default: from the results).")
@click.option("--out", "out_path", type=click.Path(path_type=Path),
              help="Also write the table as CSV (leaderboard.csv columns).")
@_minimums
@_rescore_options
def rescore(results_path: Path, flags_path: Path, fmt: str, as_json: bool, model: str | None,
            out_path: Path | None, opts: RescoreOptions) -> None:
    """Re-score one run without its contaminated instances, per difficulty tier.

    Reads the run's resolved ids, the flags (for the run's model, plus "*" flags) and the tiers;
    prints one row per tier with original, clean-only, contaminated-only and undecided resolution
    rates, the drop 1 - clean / original (on the "all" row compared within tiers,
    Mantel-Haenszel) and clean vs contaminated, each with a cluster-bootstrap interval (columns
    as leaderboard.csv). A tier with fewer than --min-clean clean or --min-resolved-clean
    resolved clean instances reads "too few" instead of a drop.

    \b
    Example:
      benchchecker rescore --results gpt-4o.run1.json --flags flags.jsonl \\
          --tiers swebench_verified_composite.jsonl --model gpt-4o --out rescored.csv
    """
    from ..leaderboard import rescore_run
    from ..report import write_csv
    run = rescore_run(results_path, flags_path, opts, fmt=fmt, model=model)
    if out_path:
        write_csv(run.table, out_path)
    if as_json:
        sub = run.submissions[0]
        _emit_json({"benchmark": opts.benchmark, "submission": sub.name, "model": sub.model,
                    "denominator": run.denominator, "n_boot": opts.n_boot, "seed": opts.seed,
                    "ci": opts.ci,
                    "notes": list(run.notes), "rows": _records(run.table)})
        return
    for note in run.notes:
        click.echo(f"note: {note}", err=True)
    _print_rates(run.table)


# ----------------------------------------------------------------------------------- leaderboard
#: = report.leaderboard.LEADERBOARD_FILES (tests/robustness/test_leaderboard_files.py); a copy so
#: that `--help` does not import pandas
_LEADERBOARD_FILES = ("README.md", "index.html", "leaderboard.csv", "leaderboard.md", "summary.csv")


@writes_into("out_dir", _LEADERBOARD_FILES)
@click.command()
@click.option("--submissions", "submissions_path", required=True,
              type=click.Path(exists=True, path_type=Path),
              help="Folder of submissions (SWE-bench experiments layout, runs with final_report.json,"
                   " run reports, per-instance logs).")
@_common
@click.option("--model-map", "model_map_path", type=click.Path(exists=True, path_type=Path),
              help="CSV submission -> model(s) (';'-separated); overrides the metadata.")
@_minimums
@click.option("--official", "official_path", type=click.Path(exists=True, path_type=Path),
              help="The official leaderboards.json: a submission whose resolved count differs from "
                   "it by more than --tolerance of the instances is not scored (default: each "
                   "submission's own leaderboard_entry.json, where there is one).")
@click.option("--tolerance", default=RescoreOptions.tolerance, show_default=True, type=click.FloatRange(0, 1),
              help="Allowed difference from the official resolved count, as a share of the instances.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for leaderboard.csv, summary.csv, leaderboard.md, index.html and README.md.")
@_rescore_options
def leaderboard(submissions_path: Path, flags_path: Path, fmt: str, as_json: bool,
                model_map_path: Path | None, official_path: Path | None, out_dir: Path,
                opts: RescoreOptions) -> None:
    """Re-score every submission of a leaderboard and publish the filtered leaderboard.

    Reads each submission's resolved ids and model (metadata, or --model-map), applies the flags
    for that model (plus "*" flags), and writes to --out: leaderboard.csv (one row per submission
    and tier), summary.csv (pooled over all submissions and each submission year), leaderboard.md,
    index.html (self-contained page: sortable main table, pooled summary, plots) and README.md.
    The denominator is the benchmark's instance list. Summaries pool counts within tiers
    (Mantel-Haenszel over submission x tier strata), never average per-submission ratios;
    intervals come from a cluster bootstrap over instances. A cell with fewer than --min-clean
    clean or --min-resolved-clean resolved clean instances reads "too few". Submissions whose
    resolved count disagrees with the official board are listed, not scored.

    \b
    Example:
      benchchecker leaderboard --submissions experiments/evaluation/verified \\
          --flags flags.jsonl --tiers swebench_verified_composite.jsonl \\
          --model-map submission_models.csv --out published/
    """
    from ..leaderboard import build_leaderboard, write_leaderboard

    board = build_leaderboard(submissions_path, flags_path, opts, fmt=fmt,
                              model_map_path=model_map_path, official_path=official_path)
    paths = write_leaderboard(board, out_dir)
    table = board.table
    summary = board.summary
    if as_json:
        _emit_json({"benchmark": opts.benchmark, "n_submissions": len(board.submissions),
                    "denominator": board.denominator, "flags": board.flags_line,
                    "min_clean": opts.min_clean, "min_resolved_clean": opts.min_resolved_clean,
                    "n_boot": opts.n_boot, "seed": opts.seed, "ci": opts.ci,
                    "notes": list(board.notes), "files": {k: str(v) for k, v in paths.items()},
                    "excluded": [{"submission": s, "reason": r} for s, r in board.excluded],
                    "rows": _records(table),
                    "summary": _records(summary) if summary is not None else []})
        return
    click.echo(board.flags_line, err=True)
    for note in board.notes:
        click.echo(f"note: {note}", err=True)
    _print_rates(table[table["tier"] == "all"])
    if summary is not None and len(summary):
        click.echo("\npooled over submissions (tier-stratified, distinct instances):")
        _print_rates(summary[summary["tier"] == "all"])
    click.echo(f"wrote {', '.join(str(p) for p in paths.values())}", err=sys.stderr.isatty())
