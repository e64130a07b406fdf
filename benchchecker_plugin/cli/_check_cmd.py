"""``benchchecker check``: the pre-release contamination check for model teams."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import InputError
from ..models import ModelOptions
from ._executor_options import ExecutorOptions, executor_options, remote_batch
from ._options import dry_run_summary, model_options
from ._outputs import check_outputs_outside_inputs

if TYPE_CHECKING:
    from ..overlap import Shard


@click.command("check")
@model_options
@click.option("--cutoff", required=True, metavar="DATE",
              help="The model's training-data cutoff (YYYY-MM-DD, YYYY-MM or YYYY): Stage I and II read "
                   "each repository as it was then.")
@click.option("--benchmarks", default="swe-bench-verified,mmlu,truthfulqa", show_default=True,
              help="Comma-separated: swe-bench-verified, bugsinpy, defects4j (Stage I + II), mmlu, "
                   "truthfulqa (TS-Guessing).")
@click.option("--repos-dir", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              help="Local clones of the bug-fixing benchmarks' repositories (owner__name/ or name/). "
                   "Without it, Stage I and II are skipped and the report says so.")
@click.option("--data", "data", multiple=True, metavar="BENCHMARK=PATH",
              help="Local data instead of the hub, repeatable: mmlu=../shared/data/mmlu, "
                   "truthfulqa=.../TruthfulQA.csv, swe-bench-verified=instances.jsonl (PATH alone "
                   "with one benchmark).")
@click.option("--limit", default=None, metavar="N|BENCHMARK=N,...",
              help="A quick look: probe a stratified sample of N items per benchmark (taken in turn "
                   "from every MMLU subject, TruthfulQA category, repository; the same --seed gives "
                   "the same sample), or one limit per benchmark: --limit mmlu=200,truthfulqa=100.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the --limit sample and of the masked options.")
@click.option("--n-queries", type=click.IntRange(min=1), default=50, show_default=True,
              help="Stage I probes per repository.")
@click.option("--ts-modes", default="multichoice", show_default=True,
              help="TS-Guessing modes, comma-separated: multichoice, question.")
@click.option("--corpus", "corpora", multiple=True, metavar="PATH",
              help="Repeatable: the model's training corpus (as `benchchecker overlap --corpus`: "
                   ".jsonl[.gz|.zst], .parquet, .txt, a folder, hf:NAME). The checked items are also "
                   "looked for there (benchchecker.overlap, the driver of `benchchecker overlap`) "
                   "and the report gains a corpus overlap section.")
@click.option("--corpus-option", "corpus_options", multiple=True, metavar="KEY=VALUE",
              help="Repeatable, with --corpus: any setting of `benchchecker overlap` by its option's "
                   "name: rule=coverage, engine=index, index=DIR, top-k=5, text-field=content, "
                   "id-field=url, state=DIR, template-items=10, index-partitions=4.")
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("benchchecker-report"), show_default=True,
              help="Report folder: flags.jsonl (merged), flags/<stage>.jsonl, index.html, summary.md "
                   "and summary.json (rates with exact 95% intervals, to paste in a model card).")
@executor_options
def check(model_opts: ModelOptions, cutoff: str, benchmarks: str, repos_dir: Path | None,
          data: tuple[str, ...], limit: str | None, seed: int, n_queries: int, ts_modes: str,
          corpora: tuple[str, ...], corpus_options: tuple[str, ...], out_dir: Path,
          executor_opts: ExecutorOptions) -> None:
    """Check a model before release: which benchmark instances has it probably seen?

    Runs Stage I (repository presence) per repository and Stage II (patch presence at --cutoff) per
    instance of the bug-fixing benchmarks, and TS-Guessing per item of MMLU / TruthfulQA, with one
    progress bar per stage. With --corpus (you have the training data), the same items are also
    looked for in it (corpus overlap: one flag per item, flags/overlap.jsonl, a report section). Model answers are cached: a run stopped half-way and started again
    repeats no finished call. --dry-run prints the number of model calls and stops. With
    --executor ray the model is asked from the cluster's workers (an API model under one shared
    --max-concurrency limit); the cache and the report stay here.

    \b
    Example (offline, on local data):
      benchchecker check --model hf/smollm2-135m --cutoff 2024-06 \\
          --benchmarks mmlu,truthfulqa --data mmlu=../shared/data/mmlu \\
          --data truthfulqa=../shared/data/truthfulqa/TruthfulQA.csv --limit 200 -o report/
    """
    from ..check import (
        CheckConfig,
        parse_data_options,
        parse_limits,
        run_check,
        write_check_report,
        write_check_summary,
    )
    from ..cutoff import parse_cutoff

    parse_cutoff(cutoff)  # validate early: a bad date is a one-line error before any model loads
    names = tuple(b.strip() for b in benchmarks.split(",") if b.strip())
    config = CheckConfig(
        benchmarks=names, cutoff=cutoff,
        repos_dir=repos_dir, data=parse_data_options(data, names), limits=parse_limits(limit), seed=seed,
        n_queries=n_queries,
        ts_modes=tuple(m.strip() for m in ts_modes.split(",") if m.strip()))
    if corpus_options and not corpora:
        raise InputError("--corpus-option needs --corpus (the corpus it configures)")
    check_outputs_outside_inputs(
        [("-o", out_dir)],
        [*(("--corpus", c) for c in corpora), *(("--data", d) for d in config.data.values()),
         ("--repos-dir", repos_dir)])
    if corpora:
        from ..overlap import overlap_settings

        overlap_settings(corpora, corpus_options)   # a bad setting: one line, now
        shards = _check_corpus(corpora)
        if model_opts.dry_run:   # model calls only: the corpus is listed, not scanned
            click.echo(f"dry run: the corpus overlap scan ({len(shards)} shard(s), "
                       f"{sum(s.size for s in shards) / 1e6:.1f} MB) is not run", err=True)
        else:
            config = dataclasses.replace(config, corpora=corpora, corpus_options=corpus_options)
    model = model_opts.build(executor=executor_opts.build())
    config = dataclasses.replace(config, batch_size=remote_batch(model, config.batch_size, executor_opts))
    result = run_check(model, config, model_name=model_opts.spec,
                       on_stage=lambda msg: click.echo(f"-> {msg}", err=True))
    if model_opts.dry_run:
        for note in result.notes:
            click.echo(f"note: {note}", err=True)
        click.echo(dry_run_summary(model))
        return
    paths = result.write(out_dir)
    page = write_check_report(result, out_dir / "index.html")
    summaries = write_check_summary(result, out_dir)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    counts = {v: sum(1 for f in result.merged if f.verdict.value == v)
              for v in ("contaminated", "clean", "undecided")}
    click.echo(f"{len(result.merged)} merged verdicts: {counts['contaminated']} contaminated, "
               f"{counts['clean']} clean, {counts['undecided']} undecided")
    if result.overlap is not None:
        o = result.overlap
        click.echo(f"corpus overlap ({o.rule}): {o.counts()['contaminated']} contaminated, "
                   f"{o.counts()['clean']} clean, {o.counts()['undecided']} undecided in "
                   f"{o.documents} documents ({o.shards} shard(s), {len(o.failed)} failed)")
    click.echo(f"flags: {paths['merged']}")
    click.echo(f"report: {page} (summary.md, summary.json beside it)")
    for row in json.loads(summaries["json"].read_text())["methods"]:
        click.echo(f"{row['benchmark']} {row['method']}: {row['statement']}"
                   + (f" (dropped {row['dropped']} of {row['sampled']} sampled)" if row["dropped"] else ""))


def _check_corpus(corpora: tuple[str, ...]) -> tuple[Shard, ...]:
    """Every ``--corpus`` shard listed before the model runs (and returned): its notes printed,
    and a shard that cannot be read (a dangling link, a FIFO, an unsupported compression, an empty
    file) refused now, by name, rather than after the run as items that are undecided."""
    from ..overlap import corpus_shards

    listing = corpus_shards(corpora)
    for note in listing.notes:
        click.echo(f"note: {note}", err=True)
    failed = listing.failed
    if len(failed) == 1:
        raise InputError(f"--corpus: {next(iter(failed.values()))}; nothing was run")
    if failed:
        for line in failed.values():
            click.echo(f"failed shard: {line}", err=True)
        raise InputError(f"--corpus: {len(failed)} of {len(listing.shards)} shard(s) cannot be read "
                         "(listed above); nothing was run")
    return listing.shards
