"""``benchchecker overlap``: which benchmark items occur in a training corpus you have."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..overlap import DEFAULT_RULE, RULES, rules_help
from ._executor_options import ExecutorOptions, executor_options
from ._overlap_task import overlap_queries, task_options

if TYPE_CHECKING:
    from ..overlap import OverlapAudit


def _names(values: tuple[str, ...]) -> list[str]:
    """``--benchmark mmlu,truthfulqa --benchmark x``: the names in order, each once."""
    return list(dict.fromkeys(n.strip() for v in values for n in v.split(",") if n.strip()))


@click.command("overlap")
@click.option("--benchmark", "benchmarks", multiple=True, metavar="NAME[,NAME...]",
              help="Repeatable, or comma-separated: mmlu, truthfulqa, swe-bench-verified (with --data "
                   "instances.jsonl), or any NAME with --data items.jsonl (id and text, or question "
                   "[+ answer, options]). All are looked up in one pass over the corpus. Or --task.")
@task_options
@click.option("--data", "data", multiple=True, metavar="[NAME=]PATH",
              help="Repeatable: local benchmark data, NAME=PATH per benchmark (a bare PATH when one "
                   "benchmark is given): the MMLU folder, TruthfulQA.csv, a SWE-bench instances file, "
                   "or items.jsonl. Default for mmlu/truthfulqa: the hub through datasets.")
@click.option("--corpus", "corpora", multiple=True, required=True, metavar="PATH",
              help="Repeatable: .jsonl, .jsonl.gz, .jsonl.zst, .parquet, .txt, a folder of them, "
                   "or hf:NAME_OR_PATH[#SPLIT] (datasets, streamed). A shard reached twice is read once.")
@click.option("--text-field", default="text", show_default=True,
              help="The field (column) holding each corpus document's text.")
@click.option("--id-field", default="id", show_default=True,
              help="The field naming each document (else its record number).")
@click.option("--rule", type=click.Choice(RULES), default=DEFAULT_RULE, show_default=True,
              help="Which rule decides `contaminated` and gives `score` (every rule is in each "
                   "flag's evidence): " + rules_help() + ".")
@click.option("--engine", type=click.Choice(("scan", "index")), default="scan", show_default=True,
              help="scan: the corpus streamed once past the benchmark. index: a BM25 index of the "
                   "corpus's passages in --index DIR (built there if new or empty, else reused), each "
                   "item's --top-k passages verified the same way, plus retrieval.")
@click.option("--index", "index_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The index folder of --engine index.")
@click.option("--index-partitions", type=click.IntRange(min=1), default=1, show_default=True,
              help="Build the index as this many partitions (contiguous runs of --corpus shards, one "
                   "BM25 index each; with --executor ray one Ray task each, building and searching); "
                   "each item's top-k is merged across them by score. A folder on a filesystem every "
                   "worker reaches.")
@click.option("--top-k", type=click.IntRange(min=1), default=10, show_default=True,
              help="Passages retrieved per item with --engine index (Deng et al.: 1, 5, 10).")
@click.option("--template-items", type=click.IntRange(min=2), default=10, show_default=True,
              help="An n-gram found in this many items of a benchmark is a template: masked.")
@click.option("--model-name", default="*", show_default=True,
              help="The model trained on this corpus (the flags' model field; * = any model).")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Flags file to write (JSON Lines, atomically): every benchmark's flags.")
@click.option("--state", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Keep each finished shard's result here; a rerun (after a kill) skips them and "
                   "gives the same flags. Keyed by shard path, size, mtime, a content digest and the "
                   "benchmark table.")
@executor_options
def overlap(benchmarks: tuple[str, ...], tasks: str | None, include_path: str | None,
            task_metadata: str | None, data: tuple[str, ...], corpora: tuple[str, ...], text_field: str,
            id_field: str, rule: str, engine: str, index_dir: Path | None, index_partitions: int,
            top_k: int, template_items: int, model_name: str, output: Path, state: Path | None,
            executor_opts: ExecutorOptions) -> None:
    """Which benchmark items occur in a training corpus you have.

    Use it when you have the training data; without it, ask the model instead (ts-guess). The
    corpus is read the way benchmarks are really stored: JSON and Python escapes, HTML tags and
    entities, Markdown links, line-end hyphens and mojibake are seen through (on corpus and items
    alike), and every match quotes the raw text (file, document, code-point offsets, text).

    The default rule, parts, looks for each item's question (aligned: a changed, dropped or added
    word costs one word) and, within 400 words of it in the same document, its gold answer and
    options in any order and whatever stands between them: MMLU as CSV rows, JSON dumps, quiz
    pages, chat transcripts. The published n-gram rules (GPT-3, PaLM, Llama 2, ConTAM) read the
    item's query (MMLU: question + gold answer; TruthfulQA: the question; SWE-bench: problem
    statement + gold patch) and are all in each flag's evidence.

    Several benchmarks are looked up in one pass (--benchmark mmlu,truthfulqa). A shard that cannot
    be read is reported, the others are scanned, items not found are then undecided (not clean),
    and the command exits 2. --executor ray scans one Ray task per shard (same flags as locally);
    --state DIR makes a killed run resumable.

    With --task, any lm-eval multiple_choice task (read as `ts-guess --task` reads it) gives the
    items: question, gold choice and choices, ids as `ts-guess --task` names them.

    \b
    Examples:
      benchchecker overlap --benchmark mmlu --data ../shared/data/mmlu \\
          --corpus corpus/ --corpus extra.jsonl.zst -o out/overlap_mmlu.jsonl
      benchchecker overlap --benchmark mmlu,truthfulqa --data mmlu=../shared/data/mmlu \\
          --data truthfulqa=../shared/data/truthfulqa/TruthfulQA.csv --corpus corpus/ -o out/both.jsonl
    """
    from ..flags import write_flags
    from ..local_data import split_named
    from ..overlap import OverlapCorpus, OverlapRun, run_overlap
    from ..progress import bytes_bar
    from ._outputs import check_outputs_outside_inputs

    names = _names(benchmarks)
    check_outputs_outside_inputs(
        [("-o", output), ("--state", state), ("--index", index_dir)],
        [*(("--corpus", c) for c in corpora),
         *(("--data", split_named(d)[1]) for d in data), ("--include_path", include_path)])
    run = OverlapRun(rule=rule, engine=engine, index_dir=index_dir, index_partitions=index_partitions,
                     top_k=top_k, template_items=template_items, model=model_name, state=state,
                     executor=executor_opts.kind, ray_address=executor_opts.ray_address,
                     ray_retries=executor_opts.ray_retries)
    corpus = OverlapCorpus(tuple(corpora), text_field, id_field)
    label, items = overlap_queries(names, data, tasks, include_path, task_metadata,
                                   lambda line: click.echo(line, err=True))
    listing = corpus.listing()   # listed once: the progress total and the run
    with bytes_bar(desc="overlap", total=sum(s.size for s in listing.shards)) as bar:
        audit = run_overlap(items, corpus, run, on_bytes=bar.update,
                            say=lambda line: click.echo(line, err=True), listing=listing)
    write_flags(output, list(audit.flags))
    _summary(audit, top_k)
    for name in audit.benchmarks:
        c, kinds = audit.counts(name), audit.kinds(name)
        how = f" ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})" if kinds else ""
        click.echo(f"{name} [{rule}]: {c['contaminated']} contaminated{how}, {c['clean']} clean, "
                   f"{c['undecided']} undecided")
    click.echo(f"-> {output} ({len(audit.flags)} flags, {label})")
    if audit.failed:
        from ..errors import InputError

        for reason in audit.failed.values():
            click.echo(f"failed shard: {reason}", err=True)
        raise InputError(f"{len(audit.failed)} of {audit.shards} corpus shard(s) failed (listed "
                         "above); items not found are undecided")


def _summary(audit: OverlapAudit, top_k: int) -> None:
    """What was read, honest about a resumed run (only what this run read sets the rate)."""
    read = audit.scanned_bytes / 1e6
    if audit.engine == "index":
        click.echo(f"index of {audit.documents} documents, {audit.bytes / 1e6:.1f} MB; "
                   f"{audit.seconds:.1f} s for top-{top_k} retrieval and verification")
        return
    rate = f" ({read / audit.seconds:.1f} MB/s)" if audit.seconds > 0 and read > 0 else ""
    line = f"scanned {audit.documents} documents, {audit.bytes / 1e6:.1f} MB"
    if audit.resumed_shards:
        line += (f", of which {audit.resumed_shards} shard(s) ({audit.resumed_bytes / 1e6:.1f} MB) "
                 f"taken from --state and {read:.1f} MB read now")
    click.echo(f"{line}; {audit.seconds:.1f} s{rate}; {audit.total_seconds:.1f} s in all")
