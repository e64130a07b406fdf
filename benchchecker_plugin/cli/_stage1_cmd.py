"""``benchchecker repo-presence`` (Stage I, with its ``calibrate`` sub-form) and
``benchchecker baselines`` (logit membership-inference scores)."""

from __future__ import annotations

import functools
import json
import os
import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from ..errors import InputError
from ..models import ModelOptions
from ._executor_options import ExecutorOptions, executor_options, remote_batch
from ._options import dry_run_summary, max_tokens_option, model_options

_LANGS = click.Choice(["python", "java"])


def _reference(model_opts: ModelOptions, spec: str | None) -> Any:
    """The ``--reference`` model: the same model options, another spec, never a dry run."""
    return replace(model_opts, spec=spec, dry_run=False).build() if spec else None


def _p0(value: str | None) -> float | None:
    """``--p0`` is a number or a calibration JSON written by ``repo-presence calibrate``."""
    if value is None:
        return None
    try:
        p = float(value)
    except ValueError:
        path = Path(value)
        if not path.is_file():
            raise InputError(f"--p0 {value!r} is neither a number nor a calibration file") from None
        try:
            p = float(json.loads(path.read_text(encoding="utf-8"))["p0"])
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{value}: not a calibration file (needs a numeric 'p0'): {exc}") from exc
    if not 0 < p < 1:   # a calibration file's p0 is named by its file
        where = "--p0" if _is_number(value) else f"{value}: 'p0'"
        raise InputError(f"{where} must lie in (0, 1), got {p}")
    return p


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _instances_of(source: str, repo_path: Path, repo_name: str | None) -> list[tuple[str, str]]:
    from ..instances import load_instances

    name = repo_name or repo_path.resolve().name
    keys = [(i.benchmark, i.instance_id) for i in load_instances(source)
            if i.repo == name or i.repo.split("/")[-1] == name or i.repo.replace("/", "__") == name]
    if not keys:
        raise InputError(f"{source}: no instance has repository {name!r} (set --repo-name owner/name)")
    return keys


_common: list[Callable[[Any], Any]] = [
    click.option("--language", type=_LANGS, default="python", show_default=True,
                 help="Source language mined (and default p0: 0.08 python, 0.2 java)."),
    click.option("--n-queries", type=click.IntRange(min=1), default=100, show_default=True,
                 help="Queries per repository (at most; small repositories give fewer)."),
    click.option("--samples", "n_samples", type=click.IntRange(min=1), default=5, show_default=True,
                 help="Samples per query; a query is a hit when at least half reproduce the target."),
    click.option("--temperature", type=click.FloatRange(min=0), default=1.0, show_default=True),
    max_tokens_option(16, help="Tokens generated per sample (targets are at most 40 characters)."),
    click.option("--seed", type=int, default=0, show_default=True,
                 help="Seed of query sampling and of the first sample (sample i uses seed+i)."),
]


def _with_common(fn: Any) -> Any:
    for opt in reversed(_common):
        fn = opt(fn)
    return fn


@click.group("repo-presence", invoke_without_command=True)
@model_options
@click.option("--repo", "repo", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="The repository: a folder of source files, or a git clone (with --cutoff).")
@click.option("--cutoff", metavar="DATE", default=None,
              help="Read a git repository as of this date (YYYY-MM-DD); default: the working tree.")
@_with_common
@click.option("--reference", metavar="SPEC", default=None,
              help="hf/ model that scores target entropy (max sub-token loss); the highest-entropy "
                   "targets are kept and hits are weighted by it. Default: no entropy ranking.")
@click.option("--min-entropy", type=float, default=0.0, show_default=True,
              help="Drop targets whose entropy (nats) is below this (needs --reference).")
@click.option("--p0", "p0_arg", metavar="P|FILE", default=None,
              help="Chance hit probability: a number or a calibration JSON from "
                   "'repo-presence calibrate' (default 0.08 python, 0.2 java).")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Significance level of the decision.")
@click.option("--instances", metavar="FILE_OR_DATASET", default=None,
              help="Benchmark instances (any format patch-presence reads): one flag per instance "
                   "of this repository instead of one flag for the repository.")
@click.option("--repo-name", default=None, help="owner/name of --repo, to match --instances "
              "(default: the folder name).")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Flags file to write (JSON Lines).")
@executor_options
@click.pass_context
def repo_presence(ctx: click.Context, model_opts: ModelOptions, repo: Path | None,
                  cutoff: str | None, language: str, n_queries: int, n_samples: int,
                  temperature: float, max_tokens: int, seed: int, reference: str | None,
                  min_entropy: float, p0_arg: str | None, alpha: float, instances: str | None,
                  repo_name: str | None, output: Path | None, executor_opts: ExecutorOptions) -> None:
    """Stage I: was the model trained on this repository? (text outputs only)

    Mines recurring patterns in the repository (tree-sitter clones, simhash near-duplicates,
    PrefixSpan co-occurrences), turns each into a query (the code before a slot) and a target (what
    the slot holds here but differs elsewhere), keeps distinctive, context-independent,
    non-duplicate pairs, samples the model at temperature 1.0 and counts exact reproductions. A
    one-sided binomial test against p0 decides.

    Writes flags with method benchchecker.stage1: benchmark "repo" and instance_id = the
    repository name, or one per --instances instance of the repository. score = -log10(p-value)
    (capped at 300), p_value = the binomial p-value; hits, queries, hit rate and the
    entropy-weighted p-value are in evidence.

    \b
    Examples:
      benchchecker repo-presence --model hf/smollm2-135m --repo ./flask -o flask.jsonl
      benchchecker repo-presence --model openai-compatible/llama --repo ./django \\
          --cutoff 2023-06-30 --instances swebench_verified.jsonl --repo-name django/django \\
          --p0 calib.json -o stage1.jsonl
      benchchecker repo-presence calibrate --model hf/smollm2-135m --repo new1/ --repo new2/ \\
          -o calib.json
    """
    if ctx.invoked_subcommand is not None:
        return
    if repo is None:
        raise click.UsageError("repo-presence needs --repo (or the calibrate sub-form)")
    dry_run, batch_size, model_spec = model_opts.dry_run, model_opts.batch_size, model_opts.spec
    if output is None and not dry_run:
        raise click.UsageError("give -o/--output (or --dry-run)")
    from ..flags import write_flags
    from ..stage1 import build_queries, presence_flags, read_sources
    from ..stage1 import repo_presence as run

    p0 = _p0(p0_arg)
    keys = _instances_of(instances, repo, repo_name) if instances else None
    files = read_sources(repo, language=language, cutoff=cutoff)
    if not files:
        raise InputError(f"{repo}: no {language} source files")
    ref = _reference(model_opts, reference)
    queries = build_queries(files, language=language, n_queries=n_queries, reference=ref,
                            min_entropy=min_entropy, seed=seed)
    # --executor ray: the probes are asked from the cluster's workers, answers cached here
    model = model_opts.build(executor=executor_opts.build())
    batch_size = remote_batch(model, batch_size, executor_opts)
    name = repo_name or repo.resolve().name
    with warnings.catch_warnings():
        if dry_run:  # every answer is a "not called" error: the test is undecided by design
            warnings.simplefilter("ignore", RuntimeWarning)
        result = run(model, files, language=language, queries=queries, n_samples=n_samples,
                     temperature=temperature, max_tokens=max_tokens, batch_size=batch_size, p0=p0,
                     alpha=alpha, seed=seed, name=name)
    if dry_run:
        click.echo(f"{len(queries)} queries x {n_samples} samples; {dry_run_summary(model)}")
        return
    assert output is not None  # checked above: only --dry-run (returned) may omit it
    flags = presence_flags(result, instances=keys, model=model_spec)
    write_flags(output, flags)
    t = result.test
    verdict = {True: "PRESENT", False: "not detected", None: "undecided"}[t.contaminated]
    click.echo(f"{name}: {t.hits}/{t.queries} hits (p0={t.p0:.3g}), p={t.p_value:.3g} -> {verdict}; "
               f"{result.failed_queries} failed queries; wrote {len(flags)} flag(s) to "
               f"{os.fspath(output)}", err=True)


@repo_presence.command("calibrate")
@model_options
@click.option("--repo", "repos", type=click.Path(exists=True, file_okay=False, path_type=Path),
              multiple=True, required=True,
              help="A repository known to be EXCLUDED from the model's training data (created "
                   "after its cutoff). Repeatable; more repositories give a tighter p0.")
@_with_common
@executor_options
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Calibration JSON to write (pass it to repo-presence --p0).")
def calibrate(model_opts: ModelOptions, repos: tuple[Path, ...], language: str, n_queries: int,
              n_samples: int, temperature: float, max_tokens: int, seed: int,
              executor_opts: ExecutorOptions, output: Path) -> None:
    """Estimate p0 (the chance hit rate) of a model from repositories it cannot have seen.

    Probes each repository exactly as repo-presence does and pools hits over queries:
    p0 = (hits + 0.5) / (queries + 1); the 95% Clopper-Pearson upper bound is reported too.

    \b
    Example:
      benchchecker repo-presence calibrate --model hf/smollm2-135m \\
          --repo pkgs/new_a --repo pkgs/new_b -o calib.json
      benchchecker repo-presence --model hf/smollm2-135m --repo ./flask --p0 calib.json -o f.jsonl
    """
    from ..execution import LocalExecutor
    from ..stage1 import calibrate_p0, mine_repository
    from ..stage1 import repo_presence as run

    # mining is per repository and needs no model: it runs where --executor says (a Ray worker
    # needs the repository at the same path); then the probes of one repository at a time
    executor = executor_opts.build() or LocalExecutor()
    mined = executor.map(functools.partial(mine_repository, language=language, n_queries=n_queries,
                                           seed=seed), [str(r) for r in repos], desc="mine repositories")
    # the model is asked from the cluster's workers too (answers come back to this cache)
    model, model_spec = model_opts.build(executor=executor_opts.build()), model_opts.spec
    batch_size = remote_batch(model, model_opts.batch_size, executor_opts)
    per_repo: list[dict[str, Any]] = []
    for r, m in zip(repos, mined):
        if not m.ok or m.value is None:
            raise InputError(f"{r}: mining failed ({m.error})")
        files, queries = m.value
        if not files:
            raise InputError(f"{r}: no {language} source files")
        with warnings.catch_warnings():
            if model_opts.dry_run:  # every answer is a "not called" error, by design
                warnings.simplefilter("ignore", RuntimeWarning)
            res = run(model, files, language=language, queries=queries, n_samples=n_samples,
                      temperature=temperature, max_tokens=max_tokens, batch_size=batch_size,
                      seed=seed, name=r.resolve().name)
        per_repo.append({"repo": res.repo, "hits": res.test.hits, "queries": res.test.queries,
                         "failed_queries": res.failed_queries})
    if model_opts.dry_run:
        click.echo(f"{len(repos)} repositories; {dry_run_summary(model)}")
        return
    if not any(x["queries"] for x in per_repo):
        raise InputError(f"{', '.join(map(str, repos))}: no usable queries (too little {language} "
                         "source to mine; add larger repositories)")
    cal = calibrate_p0([(x["hits"], x["queries"]) for x in per_repo])
    doc = {"model": model_spec, "language": language, "p0": cal.p0, "upper": cal.upper,
           "hits": cal.hits, "queries": cal.queries, "n_samples": n_samples,
           "temperature": temperature, "repos": per_repo}
    output.parent.mkdir(parents=True, exist_ok=True)
    from ..atomic import write_text_atomic

    write_text_atomic(output, json.dumps(doc, indent=2) + "\n")
    click.echo(f"p0 = {cal.p0:.4f} (95% upper {cal.upper:.4f}) from {cal.hits}/{cal.queries} hits "
               f"in {cal.repos} repositories; wrote {os.fspath(output)}", err=True)


@click.command("baselines")
@model_options
@click.option("--repo", "repos", type=click.Path(exists=True, file_okay=False, path_type=Path),
              multiple=True, required=True, help="Repository folder (repeatable).")
@click.option("--cutoff", metavar="DATE", default=None,
              help="Read each git --repo as of this date (YYYY-MM-DD, YYYY-MM, YYYY), as Stage I "
                   "and II do; needed for the --no-checkout clones of `repos fetch`. Default: "
                   "the working tree.")
@click.option("--language", type=_LANGS, default="python", show_default=True)
@click.option("--k", "k", type=click.FloatRange(0, 1, min_open=True), default=0.2, show_default=True,
              help="Fraction of lowest-scoring tokens for Min-K% and Min-K%++.")
@click.option("--max-chars", type=click.IntRange(min=0), default=4000, show_default=True,
              help="Score each file on its first N characters (~N/4 tokens, cut at a line end); "
                   "0: whole files (long files are scored in context-length windows, ~10x "
                   "slower on a CPU).")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Flags file (methods benchchecker.baseline.{loss,zlib,min_k,min_k_pp}).")
@executor_options
def baselines(model_opts: ModelOptions, repos: tuple[Path, ...], cutoff: str | None, language: str,
              k: float, max_chars: int, output: Path | None, executor_opts: ExecutorOptions) -> None:
    """Logit membership-inference scores of repositories: loss, zlib, Min-K% and Min-K%++.

    One forward pass per file gives all four; a repository's score is the token-weighted mean
    over its files. Higher means "more likely trained on" for every column. These need a model
    with log-probabilities (hf/...); compare them with the text-only repo-presence. With
    --executor ray each worker loads the model once and scores shards of files; the token scores
    come back to this process's cache.

    \b
    Example:
      benchchecker baselines --model hf/smollm2-135m --repo ./flask --repo ./new_pkg -o b.jsonl
      benchchecker baselines --repo clones/psf__requests --cutoff 2024-06 -o b.jsonl
    """
    from ..baselines import METHODS, baseline_flags, repo_logit_scores
    from ..flags import write_flags
    from ..models import LogprobModel
    from ..stage1 import read_sources

    texts = {r.resolve().name: [f.text for f in read_sources(r, language=language, cutoff=cutoff)]
             for r in repos}
    if len(texts) != len(repos):
        raise InputError("two --repo folders have the same name; rename one")
    for folder in repos:
        if not texts[folder.resolve().name]:
            raise InputError(f"{folder}: no {language} source files")
    model_spec, batch_size, dry_run = model_opts.spec, model_opts.batch_size, model_opts.dry_run
    model = model_opts.build(executor=executor_opts.build())
    if not isinstance(model, LogprobModel):
        raise InputError(f"--model {model_spec}: this backend gives no log-probabilities (use hf/...)")
    results = repo_logit_scores(model, texts, k=k, batch_size=remote_batch(model, batch_size, executor_opts),
                                max_chars=max_chars or None)
    if dry_run:
        click.echo(f"{sum(len(v) for v in texts.values())} files to score; {dry_run_summary(model)}")
        return
    click.echo("repo\tfiles\ttokens\t" + "\t".join(METHODS))
    for r in results:
        click.echo(f"{r.repo}\t{r.files}\t{r.n_tokens}\t" + "\t".join(f"{r.scores[m]:.5g}" for m in METHODS))
    if output is not None:
        write_flags(output, baseline_flags(results, model=model_spec))
        click.echo(f"wrote {os.fspath(output)}", err=True)
