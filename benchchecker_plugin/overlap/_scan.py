"""The scan engine: the corpus streamed once past the benchmark table, in batches.

1. The benchmark table (:mod:`._table`): every item's tokens, parts, seeds and windows.
2. Documents are read in batches of about :data:`BATCH_BYTES` characters, tokenised through the
   storage-aware normaliser (:mod:`._tokenize`) and matched (:mod:`._match`): exact matches of the
   items' streams found from their seeds, windows of the published rules counted per document,
   questions aligned and their answers and options looked for nearby (:mod:`._verify`).
3. Each shard's result is a :class:`~._partial.ScanPartial`; the partials of consecutive shards
   combine into the corpus's, in shard order, whatever machine or order they were scanned in.

A shard that fails (:class:`~._corpus.ShardError`) keeps what its finished batches found and is
named with its reason; items found nowhere are then undecided, never clean (:mod:`._result`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence

from ._corpus import Shard, ShardError, iter_documents
from ._found import Found
from ._partial import ScanPartial, combine_all
from ._table import BenchmarkTable

BATCH_BYTES = 8 << 20


def batches(docs: Iterable[tuple[str, str]]) -> Iterator[tuple[list[str], list[str], int]]:
    """``(ids, texts, characters)`` of ``docs`` in batches of about :data:`BATCH_BYTES`."""
    ids: list[str] = []
    texts: list[str] = []
    size = 0
    try:
        for doc_id, text in docs:
            ids.append(doc_id)
            texts.append(text)
            size += len(text)
            if size >= BATCH_BYTES:
                yield ids, texts, size
                ids, texts, size = [], [], 0
    except ShardError:   # the documents read before a shard failed are scanned, then it fails
        if texts:
            yield ids, texts, size
        raise
    if texts:
        yield ids, texts, size


#: one scanner per process (the last table's): its look-up structures are built once, not per shard
_FOUND: dict[int, Found] = {}


def found_for(table: BenchmarkTable) -> Found:
    """This process's scanner of ``table`` (a fresh one for another table), reset."""
    found = _FOUND.get(id(table))
    if found is None or found.table is not table:
        _FOUND.clear()
        found = _FOUND[id(table)] = Found(table)
    else:
        found.reset()
    return found


def scan_shard(table: BenchmarkTable, shard: Shard, *, text_field: str = "text", id_field: str = "id",
               on_bytes: Callable[[int], None] | None = None) -> ScanPartial:
    """The partial of one shard. A shard that fails partway keeps what its finished batches found
    and names its failure. ``on_bytes`` hears the shard's file bytes read (compressed bytes for a
    compressed shard, characters for a dataset), the whole file by the end."""
    start = time.perf_counter()
    found = found_for(table)
    failed: tuple[tuple[str, str], ...] = ()
    where = [0]
    told = 0
    try:
        for ids, texts, size in batches(iter_documents(shard, text_field, id_field, where=where)):
            found.batch(shard.name, ids, texts)
            if on_bytes is not None:
                step = where[0] - told if shard.size else size
                told += step
                on_bytes(step)
    except ShardError as exc:
        failed = ((shard.name, str(exc)),)
    if on_bytes is not None and shard.size > told:
        on_bytes(shard.size - told)
    return found.partial((shard.name,), time.perf_counter() - start, failed)


def scan_corpus(table: BenchmarkTable, shards: Sequence[Shard], *, text_field: str = "text",
                id_field: str = "id", on_bytes: Callable[[int], None] | None = None) -> ScanPartial:
    """Every shard once, in order, combined."""
    return combine_all((scan_shard(table, shard, text_field=text_field, id_field=id_field,
                                   on_bytes=on_bytes) for shard in shards), len(table.items), table.sizes)


def scan_texts(table: BenchmarkTable, texts: Sequence[str], name: str = "<memory>") -> ScanPartial:
    """Text already in memory (one document per string), as one shard named ``name``."""
    start = time.perf_counter()
    found = found_for(table)
    for ids, batch, _ in batches((str(i), t) for i, t in enumerate(texts)):
        found.batch(name, ids, batch)
    return found.partial((name,), time.perf_counter() - start)
