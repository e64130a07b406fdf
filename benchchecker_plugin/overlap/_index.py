"""The index engine: an embedded BM25 index of the corpus, built once on disk, whose top-k documents
per item are verified by the scan's own metrics (and read by Deng et al.'s retrieval score).

Library: tantivy (Rust, Python wheel, no dependency), chosen by measurement here (2 shared cores;
documents of 40 words of Python standard-library text; 2,000 MMLU queries, top 10):

===============  ======================  ===========================================================
library          build                   top-10 queries per second
===============  ======================  ===========================================================
tantivy 0.27.0   200k docs 1.6 s,        433 (one thread), 882 (two threads: searches release the
                 1M docs 6.9 s           GIL); 109 without dropping stop words
bm25s 0.3.16     200k docs 9.0 s         272 (numba backend, one batch); the whole corpus's tokens
                 (about 45 s for 1M)     held in memory to build, no stored text
===============  ======================  ===========================================================

tantivy builds 5-6x faster, streams to disk under a bounded writer heap (memory bounded by the
index, never by the corpus), and stores each document's text, which the verification reads.

Layout: ``DIR`` holds tantivy's files and :data:`MANIFEST` (written last, so a half-built folder
has none): the corpus shards (resolved path and size), text and id fields, document and character
counts, failed shards, and the normaliser's fingerprint. Opening ``DIR`` for other shards, fields or
normaliser is an :class:`~benchchecker_plugin.errors.InputError` naming the difference.

Documents are indexed by tantivy's default tokenizer (runs of letters and digits, lower-cased, tokens
over 40 bytes dropped), the scan's token stream for ASCII text. An item's query is its distinct
normalised tokens less Lucene's 33 English stop words (those Pyserini's default analyzer drops;
all tokens when nothing else is left), OR-ed, ranked by BM25 (k1 1.2, b 0.75), top-k by block-max
WAND; documents tied at the k-th score are taken in corpus order (deterministic whatever
tantivy's segment layout).

Verification: the union of every item's top-k documents, in corpus order, goes through the scan
(:func:`._scan.scan_documents`) into the same benchmark table, so every n-gram metric reads the same
windows; the corpus statistics in evidence are the index's. The flags therefore equal the scan's
whenever each corpus document holding an item's n-gram is among the retrieved ones. Limitation: a
document that ranks below top-k for every item is not read (the scan finds it, the index does not:
lower document counts, possibly clean instead of contaminated; GPT-3's "in at most 10 documents" cap
sees fewer documents too). Use the scan for a census; the index for repeated audits and for Deng's
protocol (``retrieval``: each item's own top-k documents, the item's template 13-grams masked).
Verification holds the retrieved documents' text (at most items x k documents) in memory.

Measured in one run of ``benchmarks/overlap.py --index-docs 1000000`` (1M 40-word documents from
JSONL, 2 cores shared with other jobs): build 12-35 s, 140-570 top-10 queries/s, Deng's protocol
3-12 ms per item (10,000-59,000x their 2-3 minutes). Dropping query terms found in more than 5% of
the documents measured 1.7x more queries/s but changed the top document of 22% of MMLU queries:
not done (the ranking stays Pyserini's BM25 with its stop words).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from ..errors import InputError
from ._corpus import Shard, ShardError, iter_documents
from ._items import OverlapItem
from ._metrics import Measure, Metric, Retrieval
from ._normalize import ngram_key, token_hash, tokens
from ._result import ItemResult, item_results
from ._scan import BenchmarkTable, ScanStats, scan_documents

T = TypeVar("T")
MANIFEST = "benchchecker-index.json"
FORMAT = "benchchecker.overlap.index/1"
# Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET
STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there "
    "these they this to was will with".split())
_PROBE = "Ｆｕｌｌ-width ﬁne Straße: don't_stop 3.14 ÉTÉ ΣΊΣΥΦΟΣ"
_PROGRESS_CHARS = 8 << 20


def normalizer_fingerprint() -> str:
    """A hex digest of the normaliser's output on a probe text covering each of its steps: it
    changes when the token stream does."""
    return f"{ngram_key([token_hash(t) for t in tokens(_PROBE)]):016x}"


def _identity(shard: Shard) -> tuple[str, int]:
    if shard.kind == "hf":
        return shard.name, 0
    return str(Path(shard.name).resolve()), shard.size


@dataclass(frozen=True)
class IndexManifest:
    """What an index was built from (see the module)."""

    shards: tuple[tuple[str, int], ...]
    text_field: str
    id_field: str
    documents: int
    chars: int
    failed: dict[str, str] = field(default_factory=dict)
    normalizer: str = ""
    engine: str = ""
    seconds: float = 0.0
    format: str = FORMAT

    def write(self, path: Path) -> None:
        write_manifest(self, path)

    @classmethod
    def read(cls, index_dir: Path) -> IndexManifest:
        if not (index_dir / MANIFEST).is_file():
            what = "no such folder" if not index_dir.exists() else f"no {MANIFEST} (not an index, or " \
                                                                    "its build did not finish)"
            raise InputError(f"--index {index_dir}: {what}")

        def build(raw: dict[str, Any]) -> IndexManifest:
            raw["shards"] = tuple((str(n), int(s)) for n, s in raw["shards"])
            return cls(**raw)
        return read_manifest(index_dir, MANIFEST, FORMAT, build)

    def check(self, index_dir: Path, shards: Sequence[Shard], text_field: str, id_field: str) -> None:
        """One line naming how this index differs from the audit's corpus, fields or normaliser."""
        where = f"--index {index_dir}: built"
        if self.normalizer != normalizer_fingerprint():
            raise InputError(f"{where} with another text normaliser; rebuild it")
        if (self.text_field, self.id_field) != (text_field, id_field):
            raise InputError(f"{where} with --text-field {self.text_field} --id-field {self.id_field}, "
                             f"not {text_field} / {id_field}")
        now = tuple(_identity(s) for s in shards)
        if now != self.shards:
            diff = next((f"{a[0]} ({a[1]} bytes) where it had {b[0]} ({b[1]} bytes)"
                         for a, b in zip(now, self.shards) if a != b),
                        f"{len(now)} shard(s) where it had {len(self.shards)}")
            raise InputError(f"{where} from another corpus: this --corpus gives {diff}; rebuild it "
                             "into a new folder")


def write_manifest(record: Any, path: Path) -> None:
    """A manifest dataclass as indented JSON, written atomically."""
    from ..atomic import write_text_atomic

    write_text_atomic(path, json.dumps(asdict(record), indent=1) + "\n")


def read_manifest(index_dir: Path, name: str, fmt: str, build: Callable[[dict[str, Any]], T]) -> T:
    """``build`` of the JSON manifest ``index_dir/name`` of format ``fmt``; one line naming the
    folder when it cannot be read or is of another format."""
    try:
        raw = json.loads((index_dir / name).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"--index {index_dir}: unreadable {name} ({exc})") from None
    if not isinstance(raw, dict) or raw.get("format") != fmt:
        got = raw.get("format") if isinstance(raw, dict) else None
        raise InputError(f"--index {index_dir}: format {got!r}, this version reads {fmt!r}; rebuild it")
    try:
        return build(raw)
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"--index {index_dir}: unreadable {name} ({exc})") from None


def _schema() -> Any:
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("text", stored=True, index_option="freq")
    sb.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_integer_field("ord", stored=True)
    sb.add_integer_field("shard", stored=True)
    return sb.build()


def build_index(shards: Sequence[Shard], index_dir: str | os.PathLike[str], *, text_field: str = "text",
                id_field: str = "id", heap_mb: int = 256, threads: int = 0,
                on_bytes: Callable[[int], None] | None = None) -> IndexManifest:
    """Index every document of ``shards`` into the new or empty folder ``index_dir``; a shard that
    fails is recorded (the documents read before its failure stay indexed) and the build goes on."""
    import time
    from importlib.metadata import version

    import tantivy

    path = Path(index_dir)
    if path.is_dir() and any(path.iterdir()):
        raise InputError(f"--index {path}: a folder that is not empty and holds no index; give a new "
                         "or empty folder")
    path.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    index = tantivy.Index(_schema(), path=str(path))
    writer = index.writer(heap_size=heap_mb << 20, num_threads=threads)
    ordinal = chars = pending = 0
    failed = {}
    for number, shard in enumerate(shards):
        try:
            for doc_id, text in iter_documents(shard, text_field, id_field):
                writer.add_document(tantivy.Document(text=text, id=doc_id, ord=ordinal, shard=number))
                ordinal += 1
                chars += len(text)
                pending += len(text)
                if on_bytes is not None and pending >= _PROGRESS_CHARS:
                    on_bytes(pending)
                    pending = 0
        except ShardError as exc:
            failed[shard.name] = str(exc)
    writer.commit()
    writer.wait_merging_threads()
    manifest = IndexManifest(tuple(_identity(s) for s in shards), text_field, id_field, ordinal, chars,
                             failed, normalizer_fingerprint(), f"tantivy {version('tantivy')}",
                             round(time.perf_counter() - start, 3))
    manifest.write(path / MANIFEST)
    return manifest


def query_terms(text: str) -> list[str]:
    """An item's query terms (see the module)."""
    words = list(dict.fromkeys(tokens(text)))
    return [w for w in words if w not in STOP_WORDS] or words


@dataclass(frozen=True)
class Hit:
    """One retrieved document: BM25 score, corpus order, shard, id and text."""

    score: float
    ord: int
    shard: str
    doc: str
    text: str


class CorpusIndex:
    """An opened index (:meth:`open`); :meth:`search` gives each item's top-k documents."""

    def __init__(self, path: Path, manifest: IndexManifest, index: Any, names: Sequence[str]) -> None:
        self.path, self.manifest, self._index, self.names = path, manifest, index, list(names)
        self._searcher = index.searcher()

    @classmethod
    def open(cls, index_dir: str | os.PathLike[str], shards: Sequence[Shard] | None = None, *,
             text_field: str = "text", id_field: str = "id") -> CorpusIndex:
        """Open ``index_dir``, checked against the audit's ``shards`` and fields when given (shard
        names in evidence are then theirs)."""
        import tantivy

        path = Path(index_dir)
        manifest = IndexManifest.read(path)
        if shards is not None:
            manifest.check(path, shards, text_field, id_field)
        try:
            index = tantivy.Index.open(str(path))
        except ValueError as exc:
            raise InputError(f"--index {path}: cannot open ({exc})") from None
        names = [s.name for s in shards] if shards is not None else [n for n, _ in manifest.shards]
        return cls(path, manifest, index, names)

    def _top(self, text: str, k: int) -> list[Hit]:
        import tantivy

        schema = self._index.schema
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "text", t)) for t in query_terms(text)])
        # ties at the k-th score are broken by corpus order, not by tantivy's segment layout (which
        # depends on its indexing threads): fetch until a score below the k-th is seen
        n = k
        while True:
            hits = self._searcher.search(query, n + 1, count=False).hits
            if len(hits) <= n or hits[n][0] < hits[k - 1][0]:
                break
            n *= 2
        if not hits:
            return []
        kth = hits[min(k, len(hits)) - 1][0]
        out = []
        for score, address in hits:
            if score < kth:
                break
            d = self._searcher.doc(address)
            out.append(Hit(float(score), int(d["ord"][0]), self.names[int(d["shard"][0])], str(d["id"][0]),
                           str(d["text"][0])))
        return sorted(out, key=lambda h: (-h.score, h.ord))[:k]

    def search(self, items: Sequence[OverlapItem], k: int = 10, *, threads: int | None = None) -> list[list[Hit]]:
        """Each item's top ``k`` documents, best first (searches run on ``threads`` threads)."""
        if k < 1:
            raise InputError(f"--top-k must be >= 1, got {k}")
        with ThreadPoolExecutor(threads or min(4, os.cpu_count() or 1)) as pool:
            return list(pool.map(lambda item: self._top(item.text, k) if tokens(item.text) else [], items))

    def stats(self) -> ScanStats:
        """The corpus statistics flags carry: the index's (shards, documents, failed shards)."""
        by_name = {n: cur for (n, _), cur in zip(self.manifest.shards, self.names)}
        failed = {by_name.get(str(Path(n).resolve()), by_name.get(n, n)): why
                  for n, why in self.manifest.failed.items()}
        return ScanStats(len(self.manifest.shards), self.manifest.documents, self.manifest.chars, 0.0, failed)


class SearchIndex(Protocol):
    """What :func:`index_results` reads: one index (:class:`CorpusIndex`) or its partitions
    (:class:`._index_parts.PartedIndex`)."""

    def search(self, items: Sequence[OverlapItem], k: int = 10, *,
               threads: int | None = None) -> list[list[Hit]]: ...

    def stats(self) -> ScanStats: ...


def _union(hits: Sequence[Sequence[Hit]]) -> Iterator[tuple[str, str, str]]:
    seen = {h.ord: h for row in hits for h in row}
    for o in sorted(seen):
        yield seen[o].shard, seen[o].doc, seen[o].text


def _template_tokens(table: BenchmarkTable, n: int, index: int) -> np.ndarray | None:
    """The item's tokens inside a masked (template) ``n``-gram of ``table``, or None without ``n``."""
    if n not in table.sizes:
        return None
    item, start, entry = table.windows[n]
    lo, hi = np.searchsorted(item, [index, index + 1])
    out = np.zeros(int(table.n_tokens[index]), bool)
    for s in start[lo:hi][entry[lo:hi] < 0]:
        out[s:s + n] = True
    return out


def index_results(index: SearchIndex, table: BenchmarkTable, metrics: Sequence[Metric | Retrieval], *,
                  k: int = 10, threads: int | None = None) -> tuple[list[ItemResult], ScanStats]:
    """Every metric on every item of ``table`` from ``index``: n-gram metrics verified on the union
    of top-``k`` documents, retrieval metrics on each item's own (see the module)."""
    import time

    start = time.perf_counter()
    hits = index.search(table.items, k, threads=threads)
    window = [m for m in metrics if not getattr(m, "needs_retrieval", False)]
    retrieval = [m for m in metrics if isinstance(m, Retrieval)]
    scan_documents(table, _union(hits))
    results = item_results(table, window)   # type: ignore[arg-type]
    if retrieval:
        merged = []
        for i, (r, item, row) in enumerate(zip(results, table.items, hits)):
            measures = dict(r.measures)
            for m in retrieval:
                got = m.measure_retrieved(item.text, [h.text for h in row], _template_tokens(table, m.n, i))
                rank = got.values.get("rank", 0)
                where = {"corpus": row[rank - 1].shard, "doc": row[rank - 1].doc} if rank else {}
                measures[m.name] = Measure(got.score, got.contaminated, {**got.values, **where})
            merged.append(ItemResult(r.benchmark, r.instance_id, r.n_tokens, measures, r.masked, r.matches))
        results = merged
    stats = index.stats()
    stats.seconds = time.perf_counter() - start
    return results, stats
