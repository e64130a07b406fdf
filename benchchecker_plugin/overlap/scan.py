"""The scan engine: the benchmark's n-grams in a hash table, the corpus streamed once.

1. Every item is tokenised (:mod:`.normalize`); for each metric size ``n`` its windows are its
   n-grams, or the whole item when it has fewer than ``n`` tokens.
2. A window key found in ``template_items`` or more distinct items is a benchmark template: masked
   (not looked for; counted per item).
3. The remaining distinct keys go into an open-addressing table (a few MB); a bit-set on the
   shortest window length gates the lookups.
4. Documents are read in batches, tokenised and hashed by numba kernels; each table entry counts
   the distinct documents it occurs in and keeps its first location.
5. Each item's windows and counts are handed to every metric (:mod:`.result`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from . import _kernels as K
from .corpus import Shard, ShardError, iter_documents
from .items import OverlapItem
from .metrics import DEFAULT_METRICS, ItemWindows, Metric
from .normalize import BASE, prepare

__all__ = ["BenchmarkTable", "Location", "ScanStats", "Scanner", "TEMPLATE_ITEMS", "batches",
           "build_table", "scan_corpus", "scan_documents", "scan_texts"]

TEMPLATE_ITEMS = 10
BATCH_BYTES = 8 << 20
MAX_LOCATIONS = 200_000
SNIPPET = 200


def _powers(k_max: int) -> np.ndarray:
    out = np.empty(k_max + 1, np.uint64)
    p = 1
    for k in range(k_max + 1):
        out[k] = p
        p = (p * BASE) & ((1 << 64) - 1)
    return out


def _tokenize(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[bytes]]:
    """Token hashes, byte starts/ends and per-document token ranges of ``texts``."""
    data = [prepare(t) for t in texts]
    buf = np.frombuffer(b"".join(data), np.uint8)
    ends = np.cumsum(np.fromiter((len(d) for d in data), np.int64, len(data)))
    cap = buf.size // 2 + len(data) + 1
    th = np.empty(cap, np.uint64)
    ts = np.empty(cap, np.int64)
    te = np.empty(cap, np.int64)
    doc_tok = np.empty(len(data) + 1, np.int64)
    n = K.tokenize(buf, ends, th, ts, te, doc_tok)
    return th[:n], ts[:n], te[:n], doc_tok, data


@dataclass(frozen=True)
class Location:
    """Where a window was first found: shard, document id, character offsets, text (bounded)."""

    corpus: str
    doc: str
    start: int
    end: int
    text: str

    def to_dict(self) -> dict[str, object]:
        return {"corpus": self.corpus, "doc": self.doc, "start": self.start, "end": self.end,
                "text": self.text}


@dataclass
class BenchmarkTable:
    """The benchmark side of a scan (see the module): per size ``n``, every item's windows."""

    items: list[OverlapItem]
    n_tokens: np.ndarray
    sizes: tuple[int, ...]
    # per size: window item, start, entry (-1: masked), sorted by (item, start)
    windows: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]
    keys: np.ndarray                      # entry -> key
    lengths: np.ndarray                   # entry -> window length
    masked: int
    doc_count: np.ndarray = field(init=False)
    locations: dict[int, Location] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.doc_count = np.zeros(self.keys.size, np.int64)

    def item_windows(self, n: int, index: int) -> ItemWindows:
        item, start, entry = self.windows[n]
        lo, hi = np.searchsorted(item, [index, index + 1])
        e = entry[lo:hi]
        counts = np.where(e >= 0, self.doc_count[np.maximum(e, 0)], -1)
        return ItemWindows(int(self.n_tokens[index]), n, start[lo:hi], counts)

    def item_entries(self, n: int, index: int) -> np.ndarray:
        item, _, entry = self.windows[n]
        lo, hi = np.searchsorted(item, [index, index + 1])
        return entry[lo:hi]


def build_table(items: Sequence[OverlapItem], metrics: Sequence[Metric] = DEFAULT_METRICS, *,
                template_items: int = TEMPLATE_ITEMS) -> BenchmarkTable:
    """The benchmark table of ``items`` for the sizes ``metrics`` use."""
    if not items:
        raise InputError("the benchmark has no item to look for")
    if template_items < 2:
        raise InputError(f"template_items must be >= 2, got {template_items}")
    sizes = tuple(sorted({m.n for m in metrics}))
    th, _, _, doc_tok, _ = _tokenize([i.text for i in items])
    n_tokens = np.diff(doc_tok)
    pre = np.empty(th.size + 1, np.uint64)
    K.prefix(th, th.size, pre)
    powers = _powers(max(sizes))
    per: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for n in sizes:
        count = np.where(n_tokens >= n, n_tokens - n + 1, (n_tokens > 0).astype(np.int64))
        item = np.repeat(np.arange(len(items)), count)
        offs = np.arange(item.size) - np.repeat(np.cumsum(count) - count, count)
        length = np.minimum(n, n_tokens)[item]
        keys = np.empty(item.size, np.uint64)
        K.window_keys(pre, powers, doc_tok[item] + offs, length, keys)
        per[n] = (item, offs, keys, length)   # type: ignore[assignment]
    all_item = np.concatenate([per[n][0] for n in sizes])
    all_key = np.concatenate([per[n][2] for n in sizes])
    all_len = np.concatenate([per[n][3] for n in sizes])   # type: ignore[misc]
    uniq, inverse = np.unique(all_key, return_inverse=True)
    pairs = np.unique(inverse.astype(np.int64) * len(items) + all_item)
    n_items = np.bincount(pairs // len(items), minlength=uniq.size)
    live = n_items < template_items
    entry_of_uniq = np.where(live, np.cumsum(live) - 1, -1)
    lengths = np.zeros(int(live.sum()), np.int64)
    lengths[entry_of_uniq[inverse][entry_of_uniq[inverse] >= 0]] = all_len[entry_of_uniq[inverse] >= 0]
    windows = {}
    at = 0
    for n in sizes:
        item, offs = per[n][0], per[n][1]
        windows[n] = (item, offs, entry_of_uniq[inverse[at:at + item.size]])
        at += item.size
    return BenchmarkTable(list(items), n_tokens, sizes, windows, uniq[live], lengths,
                          int((~live).sum()))


@dataclass
class ScanStats:
    """What a scan read: shards, documents, text bytes, seconds; failed shards with why."""

    shards: int = 0
    documents: int = 0
    bytes: int = 0
    seconds: float = 0.0
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def mb_per_s(self) -> float:
        return self.bytes / 1e6 / self.seconds if self.seconds > 0 else float("nan")


class Scanner:
    """The corpus side of a scan: the table's hash table and gate, fed one batch at a time
    (:meth:`batch`), counting into ``self.t`` (which :mod:`.partial` swaps per shard)."""

    def __init__(self, table: BenchmarkTable) -> None:
        self.t = table
        size = 1 << max(4, int(2 * max(table.keys.size, 1) - 1).bit_length())
        self.tk, self.tv = K.build_table(table.keys, size)
        self.lengths = np.unique(table.lengths)
        g = int(self.lengths[0]) if self.lengths.size else 1
        self.bits = np.zeros(1 << 18, np.uint64)   # 2^24 gate bits: 2 MB
        self.powers = _powers(int(self.lengths[-1]) if self.lengths.size else 1)
        self._gate(table, g)
        self.last_doc = np.full(table.keys.size, -1, np.int64)
        self.recorded = np.zeros(table.keys.size, np.uint8)
        # a slot per entry: an entry's first location is never deferred for want of room (what a
        # shard records would then hang on what the shards before it recorded)
        cap = max(1 << 14, table.keys.size)
        self.hit_e = np.empty(cap, np.int64)
        self.hit_d = np.empty(cap, np.int64)
        self.hit_t = np.empty(cap, np.int64)
        self.docs = 0

    def _gate(self, table: BenchmarkTable, g: int) -> None:
        # the first g tokens of every live window: recomputed from the items' token streams
        th, _, _, doc_tok, _ = _tokenize([i.text for i in table.items])
        pre = np.empty(th.size + 1, np.uint64)
        K.prefix(th, th.size, pre)
        powers = _powers(g)
        for n in table.sizes:
            item, start, entry = table.windows[n]
            ok = entry >= 0
            keys = np.empty(int(ok.sum()), np.uint64)
            K.window_keys(pre, powers, doc_tok[item[ok]] + start[ok], np.full(keys.size, g, np.int64),
                          keys)
            K.gate_bits(keys, self.bits)

    def batch(self, shard: str, ids: list[str], texts: list[str]) -> None:
        if not self.lengths.size:
            return
        th, ts, te, doc_tok, data = _tokenize(texts)
        pre = np.empty(th.size + 1, np.uint64)
        K.prefix(th, th.size, pre)
        n_hits = K.scan(pre, self.powers, doc_tok, len(texts), self.docs, self.bits, self.lengths,
                        self.tk, self.tv, self.last_doc, self.t.doc_count, self.recorded,
                        self.hit_e, self.hit_d, self.hit_t, 0)
        self.docs += len(texts)
        starts = np.concatenate(([0], np.cumsum([len(x) for x in data])))
        for j in range(n_hits):
            e, d, i = int(self.hit_e[j]), int(self.hit_d[j]), int(self.hit_t[j])
            if len(self.t.locations) >= MAX_LOCATIONS:
                break
            last = i + int(self.t.lengths[e]) - 1
            self.t.locations[e] = _location(shard, ids[d], texts[d], data[d], int(ts[i]),
                                            int(te[last]), int(starts[d]))


def _location(shard: str, doc: str, text: str, prepared: bytes, b0: int, b1: int,
              base: int) -> Location:
    """Character offsets of bytes [b0, b1) of the batch (document at ``base``) in ``text``; for
    non-ASCII text, offsets and text are those of the normalised text."""
    b0, b1 = b0 - base, b1 - base
    if text.isascii():
        return Location(shard, doc, b0, b1, text[b0:b1][:SNIPPET])
    norm = prepared.decode("utf-8")
    c0 = len(prepared[:b0].decode("utf-8"))
    c1 = len(prepared[:b1].decode("utf-8"))
    return Location(shard, doc, c0, c1, norm[c0:c1][:SNIPPET])


def batches(docs: Iterable[tuple[str, str]]) -> Iterable[tuple[list[str], list[str], int]]:
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


def scan_texts(table: BenchmarkTable, texts: Sequence[str], name: str = "<memory>") -> ScanStats:
    """Scan text already in memory (one document per string) into ``table``."""
    start = time.perf_counter()
    scanner = Scanner(table)
    stats = ScanStats(shards=1)
    for ids, batch, size in batches((str(i), t) for i, t in enumerate(texts)):
        scanner.batch(name, ids, batch)
        stats.documents += len(batch)
        stats.bytes += size
    stats.seconds = time.perf_counter() - start
    return stats


def scan_documents(table: BenchmarkTable, documents: Iterable[tuple[str, str, str]]) -> ScanStats:
    """Scan ``(shard name, document id, text)`` documents into ``table``, in the order given (the
    index engine's retrieved documents, in corpus order)."""
    start = time.perf_counter()
    scanner = Scanner(table)
    stats = ScanStats()
    for shard, group in itertools.groupby(documents, key=lambda d: d[0]):
        stats.shards += 1
        for ids, batch, size in batches((doc, text) for _, doc, text in group):
            scanner.batch(shard, ids, batch)
            stats.documents += len(batch)
            stats.bytes += size
    stats.seconds = time.perf_counter() - start
    return stats


def scan_corpus(table: BenchmarkTable, shards: Sequence[Shard], *, text_field: str = "text",
                id_field: str = "id", on_bytes: Callable[[int], None] | None = None) -> ScanStats:
    """Stream every shard once into ``table``; a shard that fails is recorded in
    ``stats.failed`` (with its one-line reason) and the scan goes on."""
    start = time.perf_counter()
    scanner = Scanner(table)
    stats = ScanStats()
    for shard in shards:
        stats.shards += 1
        try:
            for ids, batch, size in batches(iter_documents(shard, text_field, id_field)):
                scanner.batch(shard.name, ids, batch)
                stats.documents += len(batch)
                stats.bytes += size
                if on_bytes is not None:
                    on_bytes(size)
        except ShardError as exc:
            stats.failed[shard.name] = str(exc)
    stats.seconds = time.perf_counter() - start
    return stats
