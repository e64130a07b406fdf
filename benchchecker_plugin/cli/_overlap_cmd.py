"""``benchchecker overlap``: which benchmark items occur in a training corpus you have."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ._executor_options import ExecutorOptions, executor_options
from ._overlap_task import overlap_queries, task_options

if TYPE_CHECKING:
    from ..overlap import BenchmarkTable, ItemResult, ScanStats, Shard

# = overlap.metric_names() and DEFAULT_RULE (tests/overlap/test_cli.py): --help imports no numba
RULES = ("any_ngram", "coverage", "longest", "retrieval", "token_level")
DEFAULT_RULE = "coverage"


@click.command("overlap")
@click.option("--benchmark", default=None, metavar="NAME",
              help="mmlu, truthfulqa, swe-bench-verified (with --data instances.jsonl), or any NAME "
                   "with --data items.jsonl (fields id and text, or question [+ answer]). Or --task.")
@task_options
@click.option("--data", default=None, metavar="[NAME=]PATH",
              help="Local benchmark data: the MMLU folder, TruthfulQA.csv, a SWE-bench instances "
                   "file, or items.jsonl; NAME=PATH is the same as PATH (as in check --data). "
                   "Default for mmlu/truthfulqa: the hub through datasets.")
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
                   "(ConTAM: longest matched run >= 50%% of the item), retrieval (Deng et al.: a "
                   "13-word chunk of the top-k documents >= 0.8 Rouge-L; --engine index). Every "
                   "metric is in evidence.")
@click.option("--engine", type=click.Choice(("scan", "index")), default="scan", show_default=True,
              help="scan: the corpus streamed once past the benchmark's n-grams. index: a BM25 index "
                   "of the corpus in --index DIR (built there if new or empty, else reused), each "
                   "item's --top-k documents verified by the same metrics, plus retrieval.")
@click.option("--index", "index_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The index folder of --engine index.")
@click.option("--index-partitions", type=click.IntRange(min=1), default=1, show_default=True,
              help="Build the index as this many partitions (contiguous runs of --corpus shards, one "
                   "BM25 index each; with --executor ray one Ray task each, building and searching); "
                   "each item's top-k is merged across them by score. A folder on a filesystem every "
                   "worker reaches.")
@click.option("--top-k", type=click.IntRange(min=1), default=10, show_default=True,
              help="Documents retrieved per item with --engine index (Deng et al.: 1, 5, 10).")
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
def overlap(benchmark: str | None, tasks: str | None, include_path: str | None,
            task_metadata: str | None, data: str | None, corpora: tuple[str, ...], text_field: str,
            id_field: str, rule: str, engine: str, index_dir: Path | None, index_partitions: int,
            top_k: int,
            template_items: int, model_name: str, output: Path, state: Path | None,
            executor_opts: ExecutorOptions) -> None:
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
    task per shard (same flags as locally); --state DIR makes a killed run resumable. With --engine
    index, --index-partitions N builds N indexes (one Ray task each with --executor ray) and merges
    each item's top-k across them.

    With --task, any lm-eval multiple_choice task (read as `ts-guess --task` reads it) gives the
    queries: each document's question + gold choice, ids as `ts-guess --task` names them.

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
        overlap_flags,
        scan_corpus,
        shards_of,
    )
    from ..progress import bytes_bar

    if engine == "index" and index_dir is None:
        raise InputError("--engine index needs --index DIR (the index is built there if new or empty)")
    if rule == "retrieval" and engine != "index":
        raise InputError("--rule retrieval needs --engine index (it reads each item's retrieved documents)")
    benchmark, items = overlap_queries(benchmark, data, tasks, include_path, task_metadata,
                                       lambda line: click.echo(line, err=True))
    shards = [s for c in corpora for s in shards_of(c)]
    table = build_table(items, DEFAULT_METRICS, template_items=template_items)
    click.echo(f"{benchmark}: {len(items)} items, {int((table.n_tokens < 13).sum())} shorter than 13 "
               f"words (whole-item rule), {table.masked} template n-grams masked; "
               f"{len(shards)} corpus shard(s)", err=True)
    if engine == "index" and index_dir is not None:
        results, stats = _index_engine(table, shards, index_dir, top_k, text_field, id_field,
                                       index_partitions, executor_opts)
    else:
        with bytes_bar(desc="overlap scan", total=sum(s.size for s in shards)) as bar:
            if state is None and not executor_opts.is_ray:
                stats = scan_corpus(table, shards, text_field=text_field, id_field=id_field,
                                    on_bytes=bar.update)
            else:   # shard by shard: kept in --state, on a Ray cluster with --executor ray
                from ..overlap import ray_runner, scan_shards

                runner = ray_runner(executor_opts.ray_address, executor_opts.ray_retries,
                                    text_field=text_field, id_field=id_field,
                                    on_bytes=bar.update) if executor_opts.is_ray else None
                stats, resumed = scan_shards(table, shards, text_field=text_field, id_field=id_field,
                                             state=state, runner=runner, on_bytes=bar.update)
                if resumed:
                    click.echo(f"resumed {resumed} of {len(shards)} shard(s) from {state}", err=True)
        results = item_results(table, DEFAULT_METRICS)
    flags = overlap_flags(results, stats, rule=rule, model=model_name)
    write_flags(output, flags)
    counts = {v: sum(1 for f in flags if f.verdict.value == v)
              for v in ("contaminated", "clean", "undecided")}
    click.echo(f"{'index of' if engine == 'index' else 'scanned'} {stats.documents} documents, "
               f"{stats.bytes / 1e6:.1f} MB; {stats.seconds:.1f} s"
               + (f" for top-{top_k} retrieval and verification" if engine == "index"
                  else f" ({stats.mb_per_s:.1f} MB/s)"))
    click.echo(f"{rule}: {counts['contaminated']} contaminated, {counts['clean']} clean, "
               f"{counts['undecided']} undecided -> {output}")
    if stats.failed:
        for reason in stats.failed.values():
            click.echo(f"failed shard: {reason}", err=True)
        raise InputError(f"{len(stats.failed)} of {stats.shards} corpus shard(s) failed (listed "
                         "above); items not found are undecided")


def _index_engine(table: BenchmarkTable, shards: list[Shard], index_dir: Path, top_k: int, text_field: str,
                  id_field: str, partitions: int, executor_opts: ExecutorOptions
                  ) -> tuple[list[ItemResult], ScanStats]:
    """--engine index: build the index (in partitions) into a new or empty ``index_dir``, else
    reuse it."""
    from ..overlap import (
        DEFAULT_METRICS,
        MANIFEST,
        PARTS,
        Retrieval,
        build_index,
        build_parted_index,
        index_results,
        local_map,
        open_index,
        ray_map,
    )
    from ..progress import bytes_bar

    map_fn = ray_map(executor_opts.ray_address, executor_opts.ray_retries) if executor_opts.is_ray \
        else local_map
    if not (index_dir / MANIFEST).is_file() and not (index_dir / PARTS).is_file():
        if partitions > 1 or executor_opts.is_ray:
            p = build_parted_index(shards, index_dir, partitions, text_field=text_field, id_field=id_field,
                                   map_fn=map_fn)
            click.echo(f"indexed {sum(n for *_, n in p.parts)} documents in {len(p.parts)} partition(s) "
                       f"in {p.seconds:.1f} s -> {index_dir}", err=True)
        else:
            with bytes_bar(desc="overlap index", total=sum(s.size for s in shards)) as bar:
                m = build_index(shards, index_dir, text_field=text_field, id_field=id_field,
                                on_bytes=bar.update)
            click.echo(f"indexed {m.documents} documents in {m.seconds:.1f} s -> {index_dir}", err=True)
    index = open_index(index_dir, shards, text_field=text_field, id_field=id_field, map_fn=map_fn)
    return index_results(index, table, (*DEFAULT_METRICS, Retrieval()), k=top_k)
