"""``--engine index``: build (or reuse) the index, retrieve each item's top-k passages, verify.

Verification reads the union of every item's top-k passages from the index's store, in corpus
order, a batch of about :data:`~._scan.BATCH_BYTES` characters at a time: overlapping passages of
one document retrieved together are joined back into one span, and each span goes through the
scan's own matching (:class:`~._found.Found`), so every rule reads the same evidence as the scan
wherever the passages holding an item are retrieved (a passage below top-k for every item is not
read: use the scan for a census). Deng et al.'s retrieval score reads each item's own passages as
they go by. Memory holds the hits (no text) and one batch: bounded by items x k, not the corpus.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ._corpus import Shard
from ._found import Found
from ._index import MANIFEST, Hit, SearchIndex, build_index
from ._index_parts import PARTS, build_parted_index, open_index
from ._metrics import Measure, Metric, Retrieval
from ._result import OverlapResult, item_results
from ._scan import BATCH_BYTES
from ._table import BenchmarkTable
from ._tokenize import tokenize_texts

if TYPE_CHECKING:
    from ._partial import ScanPartial
    from ._run import OverlapCorpus, OverlapRun


def _spans(index: SearchIndex, hits: Sequence[Sequence[Hit]]
           ) -> Iterator[tuple[list[Hit], list[int], str, int]]:
    """The union of ``hits`` in corpus order as ``(passages, their lengths, text, shift)`` spans:
    overlapping passages of one document joined."""
    seen = {h.ord: h for row in hits for h in row}
    group: list[Hit] = []
    lengths: list[int] = []
    text = ""
    for o in sorted(seen):
        h = seen[o]
        piece = index.text(h)
        if group and group[-1].doc_no == h.doc_no and h.start <= group[0].start + len(text):
            text = text[:h.start - group[0].start] + piece
            group.append(h)
            lengths.append(len(piece))
            continue
        if group:
            yield group, lengths, text, group[0].start
        group, lengths, text = [h], [len(piece)], piece
    if group:
        yield group, lengths, text, group[0].start


def _template_tokens(table: BenchmarkTable, n: int, index: int) -> np.ndarray | None:
    """The item's tokens inside a masked (template) ``n``-gram, or None without windows of ``n``."""
    if n not in table.sizes:
        return None
    starts, masked = table.windows(n, index)
    out = np.zeros(int(table.n_tokens[index]), bool)
    for s in starts[masked]:
        out[s:s + n] = True
    return out


def _ensure_index(shards: list[Shard], corpus: OverlapCorpus, run: OverlapRun,
                  say: Callable[[str], None] | None, on_bytes: Callable[[int], None] | None) -> None:
    assert run.index_dir is not None
    index_dir = run.index_dir
    if (index_dir / MANIFEST).is_file() or (index_dir / PARTS).is_file():
        return
    if run.index_partitions > 1 or run.is_ray:
        p = build_parted_index(shards, index_dir, run.index_partitions, text_field=corpus.text_field,
                               id_field=corpus.id_field, executor=run.make_executor())
        if say is not None:
            say(f"indexed {sum(r[3] for r in p.parts)} documents ({sum(r[4] for r in p.parts)} "
                f"passages) in {len(p.parts)} partition(s) in {p.seconds:.1f} s -> {index_dir}")
    else:
        m = build_index(shards, index_dir, text_field=corpus.text_field, id_field=corpus.id_field,
                        on_bytes=on_bytes)
        if say is not None:
            say(f"indexed {m.documents} documents ({m.passages} passages) in {m.seconds:.1f} s "
                f"-> {index_dir}")


def index_results(table: BenchmarkTable, shards: list[Shard], corpus: OverlapCorpus, run: OverlapRun,
                  metrics: Sequence[Metric], *, say: Callable[[str], None] | None = None,
                  on_bytes: Callable[[int], None] | None = None,
                  threads: int | None = None) -> tuple[list[OverlapResult], ScanPartial]:
    """Every metric on every item of ``table`` from the index (see the module)."""
    _ensure_index(shards, corpus, run, say, on_bytes)
    start = time.perf_counter()
    index = open_index(Path(str(run.index_dir)), shards, text_field=corpus.text_field,
                       id_field=corpus.id_field, executor=run.make_executor())
    hits = index.search(list(table.items), run.top_k, threads=threads)
    retrieval = [m for m in metrics if isinstance(m, Retrieval)]
    wanted: dict[int, list[tuple[int, int]]] = {}        # passage ord -> (item, rank)
    for i, row in enumerate(hits):
        for r, h in enumerate(row, 1):
            wanted.setdefault(h.ord, []).append((i, r))
    best: dict[tuple[str, int], tuple[float, int, str, Hit]] = {}
    item_tok = tokenize_texts([i.text for i in table.items]) if retrieval else None
    found = Found(table)
    batch: tuple[list[str], list[str], list[int]] = ([], [], [])
    shard = ""
    size = 0

    def flush() -> None:
        if batch[0]:
            found.batch(shard, *batch)
            for part in batch:
                part.clear()

    for group, lengths, text, shift in _spans(index, hits):
        if group[0].shard != shard or size >= BATCH_BYTES:
            flush()
            shard, size = group[0].shard, 0
        batch[0].append(group[0].doc)
        batch[1].append(text)
        batch[2].append(shift)
        size += len(text)
        tok = tokenize_texts([text]) if retrieval else None
        for m in retrieval:
            assert item_tok is not None and tok is not None
            for h, length in zip(group, lengths):
                lo = int(np.searchsorted(tok.ts, h.start - shift))
                hi = int(np.searchsorted(tok.ts, h.start - shift + length))
                for i, r in wanted.get(h.ord, ()):
                    mine = item_tok.th[item_tok.doc_tok[i]:item_tok.doc_tok[i + 1]]
                    score, at, w = m.score(mine, _template_tokens(table, m.n, i), tok.th[lo:hi])
                    key = (m.name, i)
                    if w and (key not in best or score > best[key][0] or
                              (score == best[key][0] and r < best[key][1])):
                        chunk = text[int(tok.ts[lo + at]):int(tok.te[lo + at + w - 1])]
                        best[key] = (score, r, chunk, h)
    flush()
    partial = found.partial(tuple(s.name for s in shards), time.perf_counter() - start,
                            tuple(index.failed().items()))
    partial = _with_corpus(partial, index.documents, index.chars)
    results = item_results(table, partial, [m for m in metrics if not isinstance(m, Retrieval)])
    if retrieval:
        merged = []
        for i, res in enumerate(results):
            measures = dict(res.measures)
            for m in retrieval:
                got = best.get((m.name, i))
                if got is None:
                    measures[m.name] = Measure(0.0, False, {"rank": 0, "chunk": "", "documents": len(hits[i])})
                else:
                    score, rank, chunk, hit = got
                    measures[m.name] = Measure(score, score >= m.threshold, {
                        "rank": rank, "chunk": chunk[:200], "documents": len(hits[i]),
                        "corpus": hit.shard, "doc": hit.doc})
            merged.append(replace(res, measures=measures))
        results = merged
    return results, partial


def _with_corpus(p: ScanPartial, documents: int, chars: int) -> ScanPartial:
    """The partial with the index's corpus statistics (what flags carry)."""
    return replace(p, documents=documents, bytes=chars)
