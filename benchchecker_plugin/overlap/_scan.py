"""The scan engine: the benchmark's n-grams in a hash table, the corpus streamed once.

1. Every item is tokenised (:mod:`._normalize`); for each metric size ``n`` its windows are its
   n-grams, or the whole item when it has fewer than ``n`` tokens.
2. A window key found in ``template_items`` or more distinct items is a benchmark template: masked
   (not looked for; counted per item).
3. The remaining distinct keys go into an open-addressing table (a few MB); a bit-set on the
   shortest window length gates the lookups.
4. Documents are read in batches, tokenised and hashed by numba kernels; each table entry counts
   the distinct documents it occurs in and keeps its first location.
5. Each item's windows and counts are handed to every metric (:mod:`._result`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..errors import InputError
from . import _kernels as K
from ._corpus import Shard, ShardError, iter_documents
from ._items import OverlapItem
from ._metrics import DEFAULT_METRICS, ItemWindows, Metric
from ._normalize import BASE, alnum_bits, normalize, prepare

TEMPLATE_ITEMS = 10
BATCH_BYTES = 8 << 20
MAX_LOCATIONS = 200_000
SNIPPET = 200


def _distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` by sorting: numpy 2.4's hash-based ``unique`` takes 20x longer on a
    few million int64 (2.8 s against 0.12 s measured)."""
    s = np.sort(values)
    return s[np.concatenate(([True], s[1:] != s[:-1]))] if s.size else s


def _powers(k_max: int) -> np.ndarray:
    out = np.empty(k_max + 1, np.uint64)
    p = 1
    for k in range(k_max + 1):
        out[k] = p
        p = (p * BASE) & ((1 << 64) - 1)
    return out


class Tokens(NamedTuple):
    """A batch's token stream: hashes, byte starts/ends in the batch's buffer, per-document token
    ranges (``doc_tok[d]:doc_tok[d+1]``), polynomial prefix hashes (``pre[i]``: tokens before i)
    and each document's first byte in the buffer."""

    th: np.ndarray
    ts: np.ndarray
    te: np.ndarray
    doc_tok: np.ndarray
    pre: np.ndarray
    doc_byte: np.ndarray


def _tokenize(texts: Sequence[str], reuse: list[np.ndarray] | None = None) -> Tokens:
    """The token stream of ``texts`` (one document each), read by :func:`._kernels.tokenize`.
    ``reuse``: a list that keeps the output arrays between calls (grown as needed), so a scan of
    many batches does not fault in fresh pages for each; the result is then only valid until the
    next call with the same list."""
    data = [prepare(t) for t in texts]
    buf = np.frombuffer(b"".join(data), np.uint8)
    ends = np.cumsum(np.fromiter((len(d) for d in data), np.int64, len(data)))
    cap = buf.size // 2 + len(data) + 1
    if reuse is None or not reuse or reuse[0].size < cap:
        arrays = [np.empty(cap, np.uint64), np.empty(cap, np.int64), np.empty(cap, np.int64),
                  np.empty(cap + 1, np.uint64)]
        if reuse is not None:
            reuse[:] = arrays
    else:
        arrays = reuse
    th, ts, te, pre = arrays
    doc_tok = np.empty(len(data) + 1, np.int64)
    n = K.tokenize(buf, ends, alnum_bits(), th, ts, te, doc_tok, pre)
    return Tokens(th[:n], ts[:n], te[:n], doc_tok, pre[:n + 1], ends - np.diff(ends, prepend=0))


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
    # the items' token stream (prefix hashes, per-item token ranges): the scanner's gate reads it
    item_pre: np.ndarray = field(repr=False)
    item_tok: np.ndarray = field(repr=False)
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
    tok = _tokenize([i.text for i in items])
    doc_tok, pre = tok.doc_tok, tok.pre
    n_tokens = np.diff(doc_tok)
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
    pairs = _distinct(inverse.astype(np.int64) * len(items) + all_item)
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
                          int((~live).sum()), pre.copy(), doc_tok)


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
    (:meth:`batch`), counting into ``self.t`` (which :mod:`._partial` swaps per shard)."""

    def __init__(self, table: BenchmarkTable) -> None:
        self.t = table
        size = 1 << max(4, int(2 * max(table.keys.size, 1) - 1).bit_length())
        self.tk, self.tv = K.build_table(table.keys, size)
        self.lengths = np.unique(table.lengths)
        # two gate groups: windows shorter than the smallest metric size (whole short items: few)
        # and the rest, each gated on the key of its shortest length's first tokens
        split = int(np.searchsorted(self.lengths, min(table.sizes)))
        self.gate_lo = np.array([0, split], np.int64)
        self.gate_hi = np.array([split, self.lengths.size], np.int64)
        self.gate_len = np.array([int(self.lengths[lo]) if lo < hi else 1
                                  for lo, hi in zip(self.gate_lo, self.gate_hi)], np.int64)
        self.gates = (np.zeros(1 << 12, np.uint64), np.zeros(1 << 18, np.uint64))  # 32 KB, 2 MB
        self.powers = _powers(int(self.lengths[-1]) if self.lengths.size else 1)
        self._gate(table)
        self.last_doc = np.full(table.keys.size, -1, np.int64)
        self.recorded = np.zeros(table.keys.size, np.uint8)
        # a slot per entry: an entry's first location is never deferred for want of room (what a
        # shard records would then hang on what the shards before it recorded)
        cap = max(1 << 14, table.keys.size)
        self.hit_e = np.empty(cap, np.int64)
        self.hit_d = np.empty(cap, np.int64)
        self.hit_t = np.empty(cap, np.int64)
        self.docs = 0
        self._buffers: list[np.ndarray] = []

    def _gate(self, table: BenchmarkTable) -> None:
        # the first tokens of every live window, from the items' token stream
        split = self.lengths[self.gate_lo[1]] if self.gate_lo[1] < self.lengths.size else np.inf
        for n in table.sizes:
            item, start, entry = table.windows[n]
            ok = entry >= 0
            group = (table.lengths[entry[ok]] >= split).astype(np.int64)
            for g in (0, 1):
                at = group == g
                keys = np.empty(int(at.sum()), np.uint64)
                K.window_keys(table.item_pre, self.powers, table.item_tok[item[ok][at]] + start[ok][at],
                              np.full(keys.size, self.gate_len[g], np.int64), keys)
                K.gate_bits(keys, self.gates[g])

    def batch(self, shard: str, ids: list[str], texts: list[str]) -> None:
        if not self.lengths.size:
            return
        tok = _tokenize(texts, self._buffers)
        n_hits = K.scan(tok.pre, self.powers, tok.doc_tok, len(texts), self.docs, self.gate_len,
                        self.gate_lo, self.gate_hi, self.gates[0], self.gates[1], self.lengths,
                        self.tk, self.tv, self.last_doc, self.t.doc_count, self.recorded,
                        self.hit_e, self.hit_d, self.hit_t, 0)
        self.docs += len(texts)
        for j in range(n_hits):
            e, d, i = int(self.hit_e[j]), int(self.hit_d[j]), int(self.hit_t[j])
            if len(self.t.locations) >= MAX_LOCATIONS:
                break
            last = i + int(self.t.lengths[e]) - 1
            if texts[d].isascii():
                base = int(tok.doc_byte[d])
                b0, b1 = int(tok.ts[i]) - base, int(tok.te[last]) - base
                self.t.locations[e] = Location(shard, ids[d], b0, b1, texts[d][b0:b1][:SNIPPET])
            else:
                first = int(tok.doc_tok[d])
                self.t.locations[e] = _normalised_location(shard, ids[d], texts[d], i - first,
                                                           last - first)


def _normalised_location(shard: str, doc: str, text: str, first: int, last: int) -> Location:
    """Tokens ``first..last`` of a non-ASCII ``text``: offsets and text in its normalised form
    (:func:`._normalize.normalize`: tokens joined by single spaces)."""
    words = normalize(text).split(" ")
    c0 = sum(len(w) for w in words[:first]) + first
    c1 = c0 + sum(len(w) for w in words[first:last + 1]) + (last - first)
    return Location(shard, doc, c0, c1, " ".join(words[first:last + 1])[:SNIPPET])


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
