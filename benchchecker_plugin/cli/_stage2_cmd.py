"""``benchchecker patch-presence``: BenchChecker stage II flags (was the gold patch in the repo?)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..errors import InputError
from ..execution import Executor
from ..flags import ANY_MODEL, write_flags
from ..instances import load_instances
from ._executor_options import ExecutorOptions, executor_options
from ._options import instances_options

if TYPE_CHECKING:
    from ..cutoffs_file import ModelCutoffs
    from ..flags import ContaminationFlag
    from ..instances import BugInstance
    from ..stage2 import GridRun, PresenceConfig

#: instances per task with --state and no --instances-per-task (= stage2's: a copy, so that --help
#: imports nothing heavy; tests/cli/test_stage2_state.py holds them equal)
STATE_TASK_SIZE = 20


@click.command("patch-presence")
@instances_options
@click.option("--repos-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="Folder of full git clones; repository owner/name is looked up as owner__name/, "
                   "then name/. Shallow clones are refused.")
@click.option("--snapshot-source", type=click.Choice(["auto", "git", "releases"]), default="auto",
              show_default=True,
              help="Where snapshots come from: git clones (DIR/owner__name), release snapshots "
                   "(DIR/owner__name.releases, made by 'repos fetch --from-releases'), or auto: the "
                   "clone where there is one, else the releases. Each flag names its source in "
                   "evidence.snapshot_source.")
@click.option("--releases-dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Folder of the release snapshots (default: --repos-dir).")
@click.option("--lag-margin", type=click.FloatRange(min=0), default=None, metavar="DAYS",
              help="Release snapshots: correct the release lag. A fix absent from the release at the "
                   "cutoff counts as present when its PR was created before the cutoff and it is in "
                   "the first higher release after the cutoff, uploaded within DAYS of it "
                   "(evidence.lag_correction). Off unless given.")
@click.option("--no-merge-dates", is_flag=True,
              help="Git clones: do not use the fix's merge date (first-parent commit naming the PR) "
                   "to settle 'merged after the cutoff' instances clean.")
@click.option("--cutoff", default=None, metavar="DATE",
              help="The model's training cutoff, YYYY-MM-DD (end of that day, UTC) or an ISO datetime "
                   "(or give --cutoffs).")
@click.option("--model", default=ANY_MODEL, show_default=True,
              help="Model name written into each flag (the cutoff is that model's).")
@click.option("--cutoffs", "cutoffs_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE",
              help="Every model's cutoff in one run, instead of --cutoff/--model: a CSV with model "
                   "and cutoff columns (model_cutoffs.csv), a JSON object {model: cutoff}, or the "
                   "leaderboard's --model-map CSV with a model_cutoffs column (model=cutoff;...). "
                   "One flag per (instance, model); models on the same snapshot commit share the "
                   "work. Models without a known cutoff are skipped (counted on stderr).")
@click.option("--similarity", type=click.Choice(["difflib+minilm", "difflib", "minilm", "exact"]),
              default="difflib+minilm", show_default=True,
              help="Line similarity: difflib shortlist reranked by the shipped MiniLM embedding "
                   "model (default), difflib alone, MiniLM alone, or exact string equality.")
@click.option("--no-preprocess", is_flag=True,
              help="Compare raw lines (no comment/docstring removal, no formatting normalisation).")
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.7, show_default=True,
              help="Present when every matched logical line has at least this similarity.")
@click.option("--verify", type=click.Choice(["none", "local", "venv", "swebench"]), default="none",
              show_default=True,
              help="Run the tests for inconclusive instances: local (temp export of the base commit, "
                   "the instance's or --test-cmd's command, confined: no shell, scrubbed "
                   "environment, read-only machine, no network) or swebench (the harness, needs "
                   "Docker). venv: a virtual environment per repository version, built from its "
                   "specification (--env-specs) and the package registry, trusted only where the "
                   "gold patch passes; then a failure settles 'clean'. Decided from the named "
                   "FAIL_TO_PASS/PASS_TO_PASS results.")
@click.option("--env-specs", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="For --verify venv: JSON {repo: {version: spec}} in swebench's per-version shape "
                   "(python, packages, pip_packages, install, test_cmd); default: the shipped table "
                   "of the 12 SWE-bench Verified repositories (swebench 4.0.3's, MIT).")
@click.option("--env-constraints", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="For --verify venv: a pip constraints file applied to every install of every "
                   "build, e.g. the releases of the benchmark's era (docutils<0.22 keeps "
                   "docutils.utils.roman, which sphinx 3.x imports). Part of each environment's key.")
@click.option("--envs-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="For --verify venv: where environments are built and kept, with the recorded "
                   "outcomes (default: ~/.cache/benchchecker/venvs).")
@click.option("--test-cmd", default=None,
              help="Test command for --verify local (default: the instance's); steps separated by "
                   "';' or '&&', no pipes or redirections (it runs without a shell).")
@click.option("--allow-unsandboxed", is_flag=True,
              help="UNSAFE: let --verify local/venv run the data's code where it cannot be confined "
                   "(no user namespaces here): it runs as you, with your files and the network "
                   "(only its environment is scrubbed). Only for data you trust.")
@click.option("--timeout", type=click.IntRange(min=1), default=900, show_default=True,
              help="Seconds per test run under --verify.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N instances.")
@click.option("--instance-id", "instance_ids", multiple=True, help="Only these instances (repeatable).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Instances processed in parallel (threads).")
@executor_options
@click.option("--state", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Keep each finished task (a repository's instances, or --instances-per-task of "
                   "them) in DIR as it finishes; a rerun with the same DIR takes them from there and "
                   "computes the rest, writing the flags one uninterrupted run writes. A task is "
                   "computed again when its instances, cutoffs, settings or the clone's refs changed, "
                   "or when it failed as a whole; an instance's error is kept with its task (delete "
                   "DIR to compute everything again).")
@click.option("--instances-per-task", type=click.IntRange(min=1), default=None, metavar="N",
              help="Cut each repository's instances into tasks of N: the unit --executor ray ships "
                   f"to a worker and --state keeps. Default: one task per repository; with --state, "
                   f"{STATE_TASK_SIZE} (a kill loses at most the tasks in flight; models sharing a "
                   "snapshot still share its work within a task).")
@click.option("--dry-run", is_flag=True,
              help="Say what would be read (instances x cutoffs, each repository's clone found or "
                   "missing under --repos-dir) and stop: nothing is read from git, nothing written.")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Flags file to write (JSON Lines, atomically).")
def patch_presence(source: str, fmt: str, repos_dir: Path, snapshot_source: str, releases_dir: Path | None,
                   lag_margin: float | None, no_merge_dates: bool, cutoff: str | None, model: str,
                   cutoffs_file: Path | None, similarity: str, no_preprocess: bool, threshold: float,
                   verify: str, env_specs: Path | None, env_constraints: Path | None, envs_dir: Path | None,
                   test_cmd: str | None,
                   allow_unsandboxed: bool, timeout: int,
                   limit: int | None, instance_ids: tuple[str, ...], workers: int,
                   executor_opts: ExecutorOptions, state: Path | None, instances_per_task: int | None,
                   dry_run: bool, output: Path) -> None:
    """Was each instance's gold patch already in its repository at the training cutoff?

    For every instance: the repository snapshot at the cutoff (last commit at or before it), the
    gold patch's changed logical lines located there (same function, a renamed or moved one by
    syntax-tree matching) and compared after removing comments and normalising formatting.
    Writes one flag per instance, or per (instance, model) with --cutoffs (method
    benchchecker.stage2): contaminated true (present), false (the snapshot holds the buggy lines,
    category pre-patch-only: the code the fix changes is there unfixed, so the fix was not yet in
    the repository at the cutoff; clean even when the fix is old and was rewritten later, since
    the cutoff's snapshot is what is judged), null (gone or refactored: inconclusive, or an error,
    in evidence.error); score = the least
    matched-line similarity. A failing instance does not stop the run; a summary line goes to
    stderr. The flags are written once, when every instance is done: a killed run leaves the
    previous output as it was. With --state DIR each finished task is kept as it finishes, and
    the same command run again takes them from there: a long run killed at any point resumes.

    \b
    Examples:
      benchchecker patch-presence --instances swebench_verified.jsonl \\
          --repos-dir repos/ --cutoff 2023-04-30 --model gpt-4-0613 -o stage2.jsonl
      benchchecker patch-presence --instances swebench_verified.jsonl \\
          --repos-dir repos/ --cutoffs model_cutoffs.csv --state s2_state/ \\
          -o stage2_all_models.jsonl
    """
    from ..cutoff import parse_cutoff
    from ..stage2 import PresenceConfig, run_stage2, summary_line
    from ..testrun import make_runner
    if (cutoff is None) == (cutoffs_file is None):
        raise click.UsageError("give exactly one of --cutoff (one model) or --cutoffs FILE (every "
                               "model of the file)")
    ctx = click.get_current_context()
    if cutoffs_file is not None and ctx.get_parameter_source("model") is not click.core.ParameterSource.DEFAULT:
        raise click.UsageError("--model names the model of --cutoff; with --cutoffs the models come "
                               "from the file")
    if state is not None:
        from ._outputs import check_outputs_outside_inputs

        check_outputs_outside_inputs([("--state", state)], [
            ("--instances", source), ("--repos-dir", repos_dir), ("--releases-dir", releases_dir),
            ("--cutoffs", cutoffs_file), ("-o", output)])
    when = parse_cutoff(cutoff) if cutoff is not None else None
    table = None
    if cutoffs_file is not None:
        from ..cutoffs_file import read_cutoffs

        table = read_cutoffs(cutoffs_file)
        if not table.cutoffs:
            raise InputError(f"{cutoffs_file}: no model with a known cutoff")
    instances = load_instances(source, fmt)
    if instance_ids:
        wanted = set(instance_ids)
        instances = [i for i in instances if i.instance_id in wanted]
        missing = wanted - {i.instance_id for i in instances}
        if missing:
            raise InputError(f"{source}: no instance(s) {', '.join(sorted(missing))}")
    if limit:
        instances = instances[:limit]
    if dry_run:
        models = len(table.cutoffs) if table is not None else 1
        for line in _dry_run_lines(instances, repos_dir, models):
            click.echo(line)
        return
    runner = make_runner(verify, repos_dir=repos_dir, timeout=timeout, test_cmd=test_cmd,
                         allow_unsandboxed=allow_unsandboxed, env_specs=env_specs, envs_dir=envs_dir,
                         env_constraints=env_constraints)
    config = PresenceConfig(threshold=threshold, preprocess=not no_preprocess, similarity=similarity,
                            runner=runner, snapshot_source=snapshot_source, releases_dir=releases_dir,
                            lag_margin_days=lag_margin, merge_dates=not no_merge_dates)
    units = Units(executor_opts.build(), workers, state, instances_per_task)
    if table is not None:
        _run_grid(instances, repos_dir, table, config, units, output)
        return
    assert when is not None  # no --cutoffs, so --cutoff was given (exactly one, checked above)
    run = run_stage2(instances, repos_dir, {model: when}, config=config, desc="patch presence",
                     reuse_counts=False, **units.kwargs())
    flags = list(run.flags)
    write_flags(output, flags)
    click.echo(f"{summary_line(flags)}{_resumed(run, state)}; wrote {os.fspath(output)}", err=True)
    for f in flags:
        if "error" in f.evidence:
            click.echo(f"  failed {f.instance_id}: {f.evidence['error']}", err=True)
    _fail_if_nothing_succeeded(flags)


def _dry_run_lines(instances: Sequence[BugInstance], repos_dir: Path, models: int) -> list[str]:
    """What ``patch-presence --dry-run`` prints: the pairs to judge and, per repository, whether
    its clone is under ``repos_dir`` (found by the rule the run uses)."""
    from ..errors import RepositoryError
    from ..repos import find_repo

    by_repo: dict[str, list[BugInstance]] = {}
    for inst in instances:
        by_repo.setdefault(inst.repo, []).append(inst)
    lines = [f"dry run: {len(instances)} instance(s) x {models} model cutoff(s) = "
             f"{len(instances) * models} pair(s) over {len(by_repo)} repositor(y/ies)"]
    missing = 0
    for repo, group in sorted(by_repo.items()):
        try:
            where = f"clone {find_repo(repos_dir, group[0])}"
        except RepositoryError:
            where, missing = f"MISSING under {repos_dir} (benchchecker repos fetch)", missing + 1
        lines.append(f"  {repo}: {len(group)} instance(s); {where}")
    lines.append(f"nothing was read or written; {missing} repositor(y/ies) missing"
                 + (": their instances would be errors (undecided)" if missing else ""))
    return lines


def _fail_if_nothing_succeeded(flags: Sequence[ContaminationFlag]) -> None:
    """Exit non-zero (4, a repository failure) when every instance failed: the flags are
    written, all undecided with their errors, but the run did not do its job."""
    from ..errors import RepositoryError

    failed = [f for f in flags if "error" in f.evidence]
    if flags and len(failed) == len(flags):
        raise RepositoryError(f"all {len(flags)} patch-presence checks failed (first: "
                              f"{failed[0].instance_id}: {failed[0].evidence['error']})")


def _names(items: Sequence[str], most: int = 8) -> str:
    return ", ".join(items[:most]) + (f", ... ({len(items) - most} more)" if len(items) > most else "")


@dataclass(frozen=True)
class Units:
    """How the work is cut and run: the executor (``None``: this process), threads per task,
    the state folder and the instances per task."""

    executor: Executor | None
    workers: int
    state: Path | None
    per_task: int | None

    def kwargs(self) -> dict[str, Any]:
        return {"executor": self.executor, "workers": self.workers, "state": self.state,
                "instances_per_task": self.per_task}


def _resumed(run: GridRun, state: Path | None) -> str:
    return f" ({run.resumed} task(s) taken from --state {state})" if state is not None else ""


def _run_grid(instances: Sequence[BugInstance], repos_dir: Path, table: ModelCutoffs,
              config: PresenceConfig, units: Units, output: Path) -> None:
    """``--cutoffs``: one grid run over every model of the file, summarised on stderr."""
    from ..stage2 import run_stage2, summary_line

    if table.skipped:
        click.echo(f"{table.path}: skipped {len(table.skipped)} row(s) with no known cutoff: "
                   f"{_names(table.skipped)}", err=True)
    others = [m for m in table.unknown if m not in table.skipped]
    if others:
        click.echo(f"{table.path}: no known cutoff for {len(others)} more model(s): {_names(others)}", err=True)
    run = run_stage2(instances, repos_dir, table.cutoffs, config=config, **units.kwargs())
    write_flags(output, run.flags)
    counts = summary_line(run.flags).partition(": ")[2]
    click.echo(f"{len(instances)} instances x {run.models} models = {len(run.flags)} flags: {counts}; "
               f"{run.snapshots} distinct snapshots; blocks: {run.blocks_computed} matched, "
               f"{run.blocks_reused} reused whole, {run.alignments_reused} located again at a known "
               f"place{_resumed(run, units.state)}; wrote {os.fspath(output)}", err=True)
    failed: dict[tuple[str, str], int] = {}
    for f in run.flags:
        if "error" in f.evidence:
            key = (f.instance_id, f.evidence["error"])
            failed[key] = failed.get(key, 0) + 1
    for (iid, error), n in failed.items():
        click.echo(f"  failed {iid} ({n} model{'s' if n > 1 else ''}): {error}", err=True)
    _fail_if_nothing_succeeded(run.flags)
