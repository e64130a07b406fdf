"""Per-shard scan results that merge: what the scan of a run of shards found, combined associatively.

A :class:`ScanPartial` holds what scanning a contiguous run of shards found: per benchmark-table
entry the number of distinct documents holding it (sparse), the first location of each entry in
scan order (at most :data:`~.scan.MAX_LOCATIONS`), the documents and bytes read and the shards
that failed (with their counts up to the failure, as one scan keeps them).

:func:`combine` of ``a`` then ``b`` (a's shards before b's) sums the counts and keeps a's locations,
then b's for the entries a has none for: the first occurrence in corpus order, which is what one
scan over both records. So :func:`apply` of the partials of every shard, combined in shard order
(grouped in any way), leaves the table exactly as :func:`~.scan.scan_corpus` over all shards does,
and the flags are the same byte for byte.

The quote cap is exact too: a partial quotes either every entry it found (``complete``) or the
first ``MAX_LOCATIONS`` in its scan order (``full``); ``a`` then ``b`` needs at most
``MAX_LOCATIONS - len(a)`` of b's entries new to a, and b's quoted prefix holds at least that many,
at most ``len(a)`` of its entries being a's.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from . import _scan
from ._corpus import Shard, ShardError, iter_documents
from ._scan import BenchmarkTable, Location, Scanner, ScanStats, batches

#: bumped whenever what a partial means changes (tokenisation, hashing, locations)
FORMAT = 1

COMPLETE, FULL = "complete", "full"


@dataclass(frozen=True, eq=False)
class ScanPartial:
    """What the scan of ``shards`` (in order) found (see the module).

    ``entries`` (ascending) and ``counts``: the table entries found and in how many documents;
    ``loc_entries`` and ``locations``: the first location of each entry, in scan order;
    ``quotes``: ``complete`` (every entry found is quoted) or ``full`` (exactly the first
    ``MAX_LOCATIONS`` in scan order)."""

    shards: tuple[str, ...]
    entries: np.ndarray
    counts: np.ndarray
    loc_entries: np.ndarray
    locations: tuple[Location, ...]
    documents: int = 0
    bytes: int = 0
    seconds: float = 0.0
    failed: tuple[tuple[str, str], ...] = ()
    quotes: str = COMPLETE

    @staticmethod
    def empty() -> ScanPartial:
        none = np.zeros(0, np.int64)
        return ScanPartial((), none, none, none, ())


def table_fingerprint(table: BenchmarkTable) -> str:
    """A digest of everything a partial's numbers depend on: the table's keys (their order numbers
    the entries), window lengths, sizes and the partial format."""
    h = hashlib.sha256(f"overlap-partial/{FORMAT}/{_scan.MAX_LOCATIONS}/{_scan.SNIPPET}/{table.sizes}".encode())
    h.update(np.ascontiguousarray(table.keys, np.uint64).tobytes())
    h.update(np.ascontiguousarray(table.lengths, np.int64).tobytes())
    return h.hexdigest()


def combine(a: ScanPartial, b: ScanPartial) -> ScanPartial:
    """``a``'s shards then ``b``'s (see the module); associative."""
    both = np.concatenate([a.entries, b.entries])
    entries, inverse = np.unique(both, return_inverse=True)
    counts = np.bincount(inverse, weights=np.concatenate([a.counts, b.counts]),
                         minlength=entries.size).astype(np.int64)
    seen = set(a.loc_entries.tolist())
    room = _scan.MAX_LOCATIONS - len(a.locations)
    new = [j for j, e in enumerate(b.loc_entries.tolist()) if e not in seen][:max(room, 0)]
    loc_entries = np.concatenate([a.loc_entries, b.loc_entries[new]]).astype(np.int64)
    locations = a.locations + tuple(b.locations[j] for j in new)
    quotes = FULL if len(locations) >= _scan.MAX_LOCATIONS else COMPLETE
    return ScanPartial(a.shards + b.shards, entries, counts, loc_entries, locations,
                       a.documents + b.documents, a.bytes + b.bytes, a.seconds + b.seconds,
                       a.failed + b.failed, quotes)


def combine_all(partials: Sequence[ScanPartial]) -> ScanPartial:
    """The partials of consecutive runs of shards, in shard order, as one."""
    out = ScanPartial.empty()
    for p in partials:
        out = combine(out, p)
    return out


def apply(table: BenchmarkTable, partial: ScanPartial) -> ScanStats:
    """Put ``partial`` into a table not yet scanned: afterwards it is as if :func:`~.scan.scan_corpus`
    had scanned ``partial``'s shards into it (``seconds``: the shards' own scan time, summed)."""
    if partial.entries.size and int(partial.entries[-1]) >= table.keys.size:
        raise ValueError("the partial is of another benchmark table")
    table.doc_count[partial.entries] += partial.counts
    for e, loc in zip(partial.loc_entries.tolist(), partial.locations):
        table.locations.setdefault(e, loc)
    return ScanStats(len(partial.shards), partial.documents, partial.bytes, partial.seconds,
                     dict(partial.failed))


#: one scanner per process (the last table's): its hash table and gate are built once, not per shard
_SCANNER: dict[str, Scanner] = {}


def cached_table(fingerprint: str) -> BenchmarkTable | None:
    """The table this process last scanned with, if its fingerprint is ``fingerprint``."""
    scanner = _SCANNER.get(fingerprint)
    return scanner.t if scanner is not None else None


def _scanner(table: BenchmarkTable, fingerprint: str) -> Scanner:
    scanner = _SCANNER.get(fingerprint)
    if scanner is None:
        _SCANNER.clear()
        scanner = _SCANNER[fingerprint] = Scanner(table)
    # fresh counts, locations and recorded marks; last_doc stays valid: document numbers only grow
    scanner.t = replace(table, locations={})
    scanner.recorded[:] = 0
    return scanner


def scan_shard(table: BenchmarkTable, shard: Shard, *, text_field: str = "text", id_field: str = "id",
               on_bytes: Callable[[int], None] | None = None,
               fingerprint: str | None = None) -> ScanPartial:
    """The partial of one shard (``table`` itself is not changed). A shard that fails partway keeps
    what its finished batches found, as :func:`~.scan.scan_corpus` does, and names its failure."""
    start = time.perf_counter()
    scanner = _scanner(table, fingerprint or table_fingerprint(table))
    documents = size = 0
    failed: tuple[tuple[str, str], ...] = ()
    try:
        for ids, batch, n in batches(iter_documents(shard, text_field, id_field)):
            scanner.batch(shard.name, ids, batch)
            documents += len(batch)
            size += n
            if on_bytes is not None:
                on_bytes(n)
    except ShardError as exc:
        failed = ((shard.name, str(exc)),)
    t = scanner.t
    entries = np.flatnonzero(t.doc_count).astype(np.int64)
    loc_entries = np.fromiter(t.locations, np.int64, len(t.locations))
    return ScanPartial((shard.name,), entries, t.doc_count[entries].copy(), loc_entries,
                       tuple(t.locations.values()), documents, size, time.perf_counter() - start,
                       failed, FULL if len(t.locations) >= _scan.MAX_LOCATIONS else COMPLETE)
