"""``benchchecker overlap``: which benchmark items occur in a training corpus you have."""

from __future__ import annotations

from pathlib import Path

import click

from .executor_options import ExecutorOptions, executor_options

__all__ = ["overlap"]

# = overlap.metric_names() and DEFAULT_RULE (tests/overlap/test_cli.py): --help imports no numba
RULES = ("any_ngram", "coverage", "longest", "token_level")
DEFAULT_RULE = "coverage"


@click.command("overlap")
@click.option("--benchmark", required=True, metavar="NAME",
              help="mmlu, truthfulqa, swe-bench-verified (with --data instances.jsonl), or any NAME "
                   "with --data items.jsonl (fields id and text, or question [+ answer]).")
@click.option("--data", type=click.Path(exists=True, path_type=Path), default=None,
              help="Local benchmark data: the MMLU folder, TruthfulQA.csv, a SWE-bench instances "
                   "file, or items.jsonl. Default for mmlu/truthfulqa: the hub through datasets.")
@click.option("--corpus", "corpora", multiple=True, required=True, metavar="PATH",
              help="Repeatable: .jsonl, .jsonl.gz, .jsonl.zst, .parquet, .txt, a folder of them, "
                   "or hf:NAME_OR_PATH[#SPLIT] (datasets, streamed).")
@click.option("--text-field", default="text", show_default=True,
              help="The field (column) holding each corpus document's text.")
@click.option("--id-field", default="id", show_default=True,
              help="The field naming each document (else its record number).")
@click.option("--rule", type=click.Choice(RULES), default=DEFAULT_RULE, show_default=True,
              help="Which metric decides `contaminated` and gives `score`: coverage (PaLM: >= 70%% "
                   "of 8-grams), any_ngram (GPT-3: any 13-gram in <= 10 documents), token_level "
                   "(Llama 2: dirty >= 80%% of tokens, clean < 20%%, else undecided), longest "
                   "(ConTAM: longest matched run >= 50%% of the item). Every metric is in evidence.")
@click.option("--template-items", type=click.IntRange(min=2), default=10, show_default=True,
              help="An n-gram found in this many items of the benchmark itself is a template: masked.")
@click.option("--model-name", default="*", show_default=True,
              help="The model trained on this corpus (the flags' model field; * = any model).")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Flags file to write (JSON Lines, atomically).")
@click.option("--state", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Keep each finished shard's result here; a rerun (after a kill) skips them and "
                   "gives the same flags. Keyed by shard path, size, mtime and benchmark table.")
@executor_options
def overlap(benchmark: str, data: Path | None, corpora: tuple[str, ...], text_field: str,
            id_field: str, rule: str, template_items: int, model_name: str, output: Path,
            state: Path | None, executor_opts: ExecutorOptions) -> None:
    """Which benchmark items occur in a training corpus you have (n-gram overlap).

    Use it when you have the training data; without it, ask the model instead (ts-guess). The
    benchmark's queries (MMLU: question + gold answer; TruthfulQA: the question; SWE-bench: problem
    statement + gold patch) are normalised (NFKC, casefold, punctuation to spaces, words), their 8-
    and 13-grams put in a hash table (items shorter than n: the whole item; n-grams in
    --template-items items of the benchmark: masked), and the corpus is streamed once. One flag per
    instance (method benchchecker.overlap, instance ids as ts-guess names them), with every metric
    and up to 5 matches (file, document, offsets, text) in its evidence.

    A shard that cannot be read (or lacks --text-field) is reported, the others are scanned, items
    not found are then undecided (not clean), and the command exits 2. --executor ray scans one Ray
    task per shard (same flags as locally); --state DIR makes a killed run resumable.

    \b
    Example:
      benchchecker overlap --benchmark mmlu --data ../shared/data/mmlu \\
          --corpus corpus/ --corpus extra.jsonl.zst -o out/overlap_mmlu.jsonl
    """
    from ..errors import InputError
    from ..flags import write_flags
    from ..overlap import (
        DEFAULT_METRICS,
        build_table,
        item_results,
        load_overlap_items,
        overlap_flags,
        scan_corpus,
        shards_of,
    )
    from ..progress import bytes_bar

    items = load_overlap_items(benchmark, data)
    shards = [s for c in corpora for s in shards_of(c)]
    table = build_table(items, DEFAULT_METRICS, template_items=template_items)
    click.echo(f"{benchmark}: {len(items)} items, {int((table.n_tokens < 13).sum())} shorter than 13 "
               f"words (whole-item rule), {table.masked} template n-grams masked; "
               f"{len(shards)} corpus shard(s)", err=True)
    with bytes_bar(desc="overlap scan", total=sum(s.size for s in shards)) as bar:
        if state is None and not executor_opts.is_ray:
            stats = scan_corpus(table, shards, text_field=text_field, id_field=id_field,
                                on_bytes=bar.update)
        else:   # shard by shard: kept in --state, on a Ray cluster with --executor ray
            from ..overlap.remote import ray_runner
            from ..overlap.resume import scan_shards

            runner = ray_runner(executor_opts.ray_address, executor_opts.ray_retries, text_field=text_field,
                                id_field=id_field, on_bytes=bar.update) if executor_opts.is_ray else None
            stats, resumed = scan_shards(table, shards, text_field=text_field, id_field=id_field,
                                         state=state, runner=runner, on_bytes=bar.update)
            if resumed:
                click.echo(f"resumed {resumed} of {len(shards)} shard(s) from {state}", err=True)
    flags = overlap_flags(item_results(table, DEFAULT_METRICS), stats, rule=rule, model=model_name)
    write_flags(output, flags)
    counts = {v: sum(1 for f in flags if f.verdict.value == v)
              for v in ("contaminated", "clean", "undecided")}
    click.echo(f"scanned {stats.documents} documents, {stats.bytes / 1e6:.1f} MB in {stats.seconds:.1f} s "
               f"({stats.mb_per_s:.1f} MB/s)")
    click.echo(f"{rule}: {counts['contaminated']} contaminated, {counts['clean']} clean, "
               f"{counts['undecided']} undecided -> {output}")
    if stats.failed:
        for reason in stats.failed.values():
            click.echo(f"failed shard: {reason}", err=True)
        raise InputError(f"{len(stats.failed)} of {stats.shards} corpus shard(s) failed (listed "
                         "above); items not found are undecided")
