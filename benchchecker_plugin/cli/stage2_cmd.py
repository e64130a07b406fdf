"""``benchchecker patch-presence``: BenchChecker stage II flags (was the gold patch in the repo?)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..errors import InputError
from ..flags import ANY_MODEL, write_flags
from ..instances import FORMATS, load_instances
from ..models.executor import LocalExecutor

__all__ = ["patch_presence"]


@click.command("patch-presence")
@click.option("--instances", "source", required=True, metavar="FILE_OR_DATASET",
              help="SWE-bench .jsonl/.json or dataset name (princeton-nlp/SWE-bench_Verified), a "
                   "BugsInPy checkout (projects/<p>/bugs/<n>/bug.info + bug_patch.txt), or a "
                   "Defects4J folder (<Project>/active-bugs.csv + patches/).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Format of --instances; auto decides from what the path is.")
@click.option("--repos-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="Folder of full git clones; repository owner/name is looked up as owner__name/, "
                   "then name/. Shallow clones are refused.")
@click.option("--cutoff", required=True, metavar="DATE",
              help="The model's training cutoff, YYYY-MM-DD (end of that day, UTC) or an ISO datetime.")
@click.option("--model", default=ANY_MODEL, show_default=True,
              help="Model name written into each flag (the cutoff is that model's).")
@click.option("--similarity", type=click.Choice(["difflib+minilm", "difflib", "minilm", "exact"]),
              default="difflib+minilm", show_default=True,
              help="Line similarity: difflib shortlist reranked by the shipped MiniLM embedding "
                   "model (default), difflib alone, MiniLM alone, or exact string equality.")
@click.option("--no-preprocess", is_flag=True,
              help="Compare raw lines (no comment/docstring removal, no formatting normalisation).")
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.7, show_default=True,
              help="Present when every matched logical line has at least this similarity.")
@click.option("--verify", type=click.Choice(["none", "local", "swebench"]), default="none", show_default=True,
              help="Run the tests for inconclusive instances: local (temp export of the base commit, "
                   "the instance's or --test-cmd's command) or swebench (the harness, needs Docker).")
@click.option("--test-cmd", default=None, help="Test command for --verify local (default: the instance's).")
@click.option("--timeout", type=click.IntRange(min=1), default=900, show_default=True,
              help="Seconds per test run under --verify.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N instances.")
@click.option("--instance-id", "instance_ids", multiple=True, help="Only these instances (repeatable).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Instances processed in parallel (threads).")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Flags file to write (JSON Lines, atomically).")
def patch_presence(source: str, fmt: str, repos_dir: Path, cutoff: str, model: str, similarity: str,
                   no_preprocess: bool, threshold: float, verify: str, test_cmd: str | None, timeout: int,
                   limit: int | None, instance_ids: tuple[str, ...], workers: int, output: Path) -> None:
    """Was each instance's gold patch already in its repository at the training cutoff?

    For every instance: the repository snapshot at the cutoff (last commit at or before it), the
    gold patch's changed logical lines located there (same function, a renamed or moved one by
    syntax-tree matching) and compared after removing comments and normalising formatting.
    Writes one flag per instance (method benchchecker.stage2): contaminated true (present),
    false (the snapshot holds the buggy lines), null (gone or refactored: inconclusive, or an
    error, in evidence.error); score = the least matched-line similarity. A failing instance does
    not stop the run; a summary line goes to stderr.

    \b
    Example:
      benchchecker patch-presence --instances swebench_verified.jsonl \\
          --repos-dir repos/ --cutoff 2023-04-30 --model gpt-4-0613 -o stage2.jsonl
    """
    from ..stage2 import LocalRunner, PresenceConfig, SwebenchRunner, patch_presence as run, summary_line
    from ..repos import parse_cutoff

    when = parse_cutoff(cutoff)
    instances = load_instances(source, fmt)
    if instance_ids:
        wanted = set(instance_ids)
        instances = [i for i in instances if i.instance_id in wanted]
        missing = wanted - {i.instance_id for i in instances}
        if missing:
            raise InputError(f"{source}: no instance(s) {', '.join(sorted(missing))}")
    if limit:
        instances = instances[:limit]
    runner = None
    if verify == "local":
        runner = LocalRunner(repos_dir, test_cmd=test_cmd, timeout=timeout)
    elif verify == "swebench":
        runner = SwebenchRunner(timeout=timeout)
    config = PresenceConfig(threshold=threshold, preprocess=not no_preprocess, similarity=similarity,
                            runner=runner)
    flags = run(instances, repos_dir, when, model=model, config=config,
                executor=LocalExecutor(workers) if workers > 1 else None)
    write_flags(output, flags)
    click.echo(f"{summary_line(flags)}; wrote {os.fspath(output)}", err=True)
    for f in flags:
        if "error" in f.evidence:
            click.echo(f"  failed {f.instance_id}: {f.evidence['error']}", err=True)
