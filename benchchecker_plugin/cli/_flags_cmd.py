"""``benchchecker flags``: validate, merge and summarise flags files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..errors import InputError
from ..flags import (
    ASSUME_REPO_SEEN_REASON,
    MERGED_METHOD,
    STAGE1_METHOD,
    MergePolicy,
    Verdict,
    iter_flags,
    merge_flags,
    read_flags,
    write_flags,
)
from ._lazy import LazyGroup

_CONVERTERS = {
    "from-lm-eval": "harness_adapters.lm_eval._flags:from_lm_eval",
    "from-inspect": "harness_adapters.inspect._flags:from_inspect",
}
_CONVERTER_HELP = {  # listed without importing the converters (tests/cli/test_help_imports.py)
    "from-lm-eval": "Convert lm-eval TS-Guessing samples into contamination flags.",
    "from-inspect": "Convert Inspect TS-Guessing logs into contamination flags.",
}


@click.group(cls=LazyGroup, lazy_commands=_CONVERTERS, lazy_help=_CONVERTER_HELP)
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
@click.option("--policy", type=click.Choice([p.value for p in MergePolicy]),
              default=MergePolicy.ANY.value, show_default=True,
              help="any: contaminated if any method says so, clean only if every method says "
                   "clean; all: contaminated only if every method says so; majority: the larger "
                   "side wins unless the undecided could overturn it; benchchecker: Stage I "
                   "(repository seen) AND Stage II (patch present). A method's null (undecided) is "
                   "a vote; a method with no record for an instance does not vote.")
@click.option("--assume-repo-seen", is_flag=True,
              help="With --policy benchchecker: where no Stage I flag exists (closed models), "
                   f"take the repository as seen ({ASSUME_REPO_SEEN_REASON}); the merged "
                   "evidence records the assumption.")
def merge(paths: tuple[Path, ...], output: Path, policy: str, assume_repo_seen: bool) -> None:
    """Merge several methods' flags into one verdict per (benchmark, instance, model).

    Records with model "*" join every model's verdict for that instance. The merged record keeps
    each input method's verdict, score and p-value in its evidence.

    \b
    Examples:
      benchchecker flags merge stage1.jsonl stage2.jsonl -o merged.jsonl
      benchchecker flags merge stage2.jsonl -o merged.jsonl --policy benchchecker --assume-repo-seen
    """
    records = []
    keys_of: dict[Path, set[tuple[str, str]]] = {}
    for path in paths:   # merge_flags below refuses merged records too, but knows no file
        keys = keys_of.setdefault(path, set())
        for f in iter_flags(path):
            if f.method == MERGED_METHOD:
                raise InputError(f"{path}: cannot merge already-merged flags (instance "
                                 f"{f.instance_id}); merge the per-method files instead")
            records.append(f)
            keys.add((f.benchmark, f.instance_id))
    merged = merge_flags(records, policy=policy, assume_repo_seen=assume_repo_seen)
    _warn_unjoined(keys_of)
    write_flags(output, merged)
    counts = Counter(m.verdict for m in merged)
    click.echo(f"{len(records)} records from {len(paths)} file(s) -> {len(merged)} merged verdicts "
               f"({counts[Verdict.CONTAMINATED]} contaminated, {counts[Verdict.CLEAN]} clean, "
               f"{counts[Verdict.UNDECIDED]} undecided) in {output}")
    if MergePolicy(policy) is MergePolicy.BENCHCHECKER:
        assumed = sum("assumed" in m.evidence for m in merged)
        no_stage1 = sum(STAGE1_METHOD in m.evidence.get("missing", ()) for m in merged)
        if assumed:
            click.echo(f"note: {assumed} of {len(merged)} verdicts assume {STAGE1_METHOD} = true "
                       f"({ASSUME_REPO_SEEN_REASON})", err=True)
        if no_stage1:
            click.echo(f"warning: {no_stage1} of {len(merged)} verdicts have no {STAGE1_METHOD} "
                       "flag: undecided unless Stage II says clean (closed model? add "
                       "--assume-repo-seen)", err=True)


def _warn_unjoined(keys_of: dict[Path, set[tuple[str, str]]]) -> None:
    """With several files, say how many (benchmark, instance) keys of each meet no other file's
    records (under any policy such a verdict hears one file only), naming the benchmarks."""
    if len(keys_of) < 2:
        return
    for path, keys in keys_of.items():
        others = set().union(*(k for p, k in keys_of.items() if p != path))
        alone = keys - others
        if alone:
            names = ", ".join(sorted({b for b, _ in keys}))
            other_names = ", ".join(sorted({b for b, _ in others})) or "none"
            click.echo(f"warning: {len(alone)} of {len(keys)} instances in {path} meet no record of "
                       f"the other files (benchmark {names} here, {other_names} there): their "
                       "verdicts hear this file only", err=True)


@flags.command("patch-dates")
@click.argument("instances")
@click.option("--cutoffs", "cutoffs_path", required=True, type=click.Path(path_type=Path),
              help="Model -> training cutoff: JSON {model: cutoff}, or CSV with model and cutoff "
                   "columns (model_cutoffs.csv), or a model map with model_cutoffs.")
@click.option("--dates", "dates_paths", multiple=True, type=click.Path(path_type=Path),
              help="SWE-bench file(s) giving created_at for instances whose INSTANCES row lacks "
                   "it (e.g. a full-fields copy of the benchmark). Repeatable.")
@click.option("--benchmark", default=None,
              help="Benchmark name of the flags (default: from the instances file).")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Flags file to write (atomically).")
def patch_dates(instances: str, cutoffs_path: Path, dates_paths: tuple[Path, ...],
                benchmark: str | None, output: Path) -> None:
    """Clone-free patch-date flags: was each instance's fix public before each model's cutoff?

    INSTANCES is a SWE-bench .jsonl/.json file (or dataset name). Within a repository PR numbers
    grow with time, so each fix's creation date is bracketed by the dated instances around it;
    a fix created before the cutoff period is flagged contaminated, one created after it clean,
    and one whose bracket overlaps it undecided. One flag per (instance, model with a known
    cutoff), method benchchecker.patch_date, model-specific.

    \b
    Example:
      benchchecker flags patch-dates swebench_verified_composite.jsonl \\
          --dates swebench_verified_fullfields_subset.jsonl \\
          --cutoffs model_cutoffs.csv -o patch_date_flags.jsonl
    """
    from ..cutoffs_file import read_cutoffs
    from ..errors import DataError
    from ..instances import load_swebench
    from ..patch_dates import dated_rows, fix_dates, patch_date_flags

    table = read_cutoffs(cutoffs_path)
    if not table.cutoffs:
        raise DataError(f"{cutoffs_path}: no model has a known cutoff")
    loaded = load_swebench(instances, benchmark=benchmark)
    if not loaded:
        raise DataError(f"{instances}: no instances")
    rows = dated_rows(loaded, [d for path in dates_paths for d in load_swebench(path)])
    n_dated = sum(1 for r in rows if r["created_at"])
    flags_out = patch_date_flags(fix_dates(rows), table.cutoffs,
                                 benchmark=benchmark or loaded[0].benchmark)
    write_flags(output, flags_out)
    counts = Counter(f.verdict for f in flags_out)
    click.echo(f"{len(rows)} instances ({n_dated} with created_at) x {len(table.cutoffs)} models "
               f"-> {len(flags_out)} flags ({counts[Verdict.CONTAMINATED]} contaminated, "
               f"{counts[Verdict.CLEAN]} clean, {counts[Verdict.UNDECIDED]} undecided) in {output}")
    if table.unknown:
        shown = ", ".join(table.unknown[:5]) + (" ..." if len(table.unknown) > 5 else "")
        click.echo(f"note: {len(table.unknown)} model(s) without a known cutoff left out: {shown}",
                   err=True)
    if not n_dated:
        click.echo(f"warning: no instance of {instances} has created_at: every flag is undecided "
                   "(give --dates FILE with dated instances)", err=True)


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
    names = ("benchmark", "model", "method")
    for col in (*names, "instances", "contaminated", "clean", "undecided", "score min",
                "score max"):
        # names are never cut: two models that share a long prefix must stay two readable rows
        table.add_column(col, justify="left" if col in names else "right",
                         no_wrap=col in names, overflow="ignore" if col in names else "ellipsis")
    for (benchmark, model, method), recs in sorted(groups.items()):
        c = Counter(r.verdict for r in recs)
        scores = [r.score for r in recs]
        # names as text, never as rich markup (a model named "[/]" or "[bold]x")
        table.add_row(Text(benchmark), Text(model), Text(method), str(len(recs)), str(c[Verdict.CONTAMINATED]),
                      str(c[Verdict.CLEAN]), str(c[Verdict.UNDECIDED]), f"{min(scores):.4g}",
                      f"{max(scores):.4g}")
    widest = [max((len(key[i]) for key in groups), default=0) for i in range(len(names))]
    Console(width=max(140, sum(widest) + 80)).print(table)
    if not groups:
        click.echo("no records")
