"""``benchchecker flags``: validate, merge and summarise flags files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from ..flags import MergePolicy, iter_flags, merge_flags, read_flags, write_flags
from ..flags.record import Verdict
from .lazy import LazyGroup

__all__ = ["flags"]

_CONVERTERS = {
    "from-lm-eval": "harness_adapters.lm_eval.flags:from_lm_eval",
    "from-inspect": "harness_adapters.inspect.flags:from_inspect",
}


@click.group(cls=LazyGroup, lazy_commands=_CONVERTERS)
def flags() -> None:
    """Read, check, combine and convert contamination flags files.

    A flags file is JSON Lines, one record per (benchmark, instance, model, method), following the
    schema shipped in the package (benchchecker_plugin/flags/schema.json).
    """


@flags.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(paths: tuple[Path, ...]) -> None:
    """Check flags files (or folders of *.jsonl) against the schema.

    Prints the number of valid records per file; the first bad record stops with its file, line and
    field, and a non-zero exit code.

    Example: benchchecker flags validate out/flags.jsonl
    """
    for path in paths:
        n = len(read_flags(path))
        click.echo(f"{path}: {n} valid record{'s' if n != 1 else ''}")


@flags.command("merge")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Merged flags file to write (atomically).")
@click.option("--policy", type=click.Choice([p.value for p in MergePolicy]), default="any",
              show_default=True,
              help="any: contaminated if any method says so; all: only if every deciding method "
                   "does; majority: the larger side wins (tie = undecided).")
def merge(paths: tuple[Path, ...], output: Path, policy: str) -> None:
    """Merge several methods' flags into one verdict per (benchmark, instance, model).

    Records with model "*" join every model's verdict for that instance. The merged record keeps
    each input method's verdict, score and p-value in its evidence.

    Example: benchchecker flags merge stage1.jsonl stage2.jsonl -o merged.jsonl
    """
    records = [f for path in paths for f in iter_flags(path)]
    merged = merge_flags(records, policy=policy)
    write_flags(output, merged)
    counts = Counter(m.verdict for m in merged)
    click.echo(f"{len(records)} records from {len(paths)} file(s) -> {len(merged)} merged verdicts "
               f"({counts[Verdict.CONTAMINATED]} contaminated, {counts[Verdict.CLEAN]} clean, "
               f"{counts[Verdict.UNDECIDED]} undecided) in {output}")


@flags.command("show")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
def show(paths: tuple[Path, ...]) -> None:
    """Summarise flags per benchmark, model and method: how many instances are contaminated,
    clean or undecided, and the score range.

    Example: benchchecker flags show out/flags.jsonl
    """
    groups: dict[tuple[str, str, str], list] = {}
    for path in paths:
        for f in iter_flags(path):
            groups.setdefault((f.benchmark, f.model, f.method), []).append(f)
    table = Table(title="contamination flags")
    for col in ("benchmark", "model", "method", "instances", "contaminated", "clean", "undecided",
                "score min", "score max"):
        table.add_column(col, justify="right" if col not in ("benchmark", "model", "method") else "left")
    for (benchmark, model, method), recs in sorted(groups.items()):
        c = Counter(r.verdict for r in recs)
        scores = [r.score for r in recs]
        table.add_row(benchmark, model, method, str(len(recs)), str(c[Verdict.CONTAMINATED]),
                      str(c[Verdict.CLEAN]), str(c[Verdict.UNDECIDED]), f"{min(scores):.4g}",
                      f"{max(scores):.4g}")
    Console(width=140).print(table)
    if not groups:
        click.echo("no records")
