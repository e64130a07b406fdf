"""What the scan of a run of corpus shards found, as a record that merges associatively.

A :class:`ScanPartial` holds, for one benchmark table:

- per window size of the published rules, the windows found and in how many documents (sparse);
- per item its best ``parts`` evidence (kind, similarity, matched tokens, options found, where)
  and the number of documents holding it;
- per item its :data:`~._match.QUOTES` longest exact matches (quotes), and how many it had;
- the documents, text characters and seconds read, and the shards that failed.

:func:`combine` of ``a`` then ``b`` (a's shards before b's) sums the counts, keeps the better of
the two best evidences (b's only when strictly better: the first in corpus order wins a tie) and
merges the quotes by length, a's first among equals: exactly what one scan over both keeps. So the
partials of every shard, combined in shard order and grouped in any way, give the same flags byte
for byte as one scan.

Evidence quotes the raw text: ``text == raw[start:end]`` with ``start``/``end`` in code points of
the document as the reader gave it; a quote longer than :data:`SNIPPET` is cut there (``cut``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

SNIPPET = 300
#: bumped whenever what a partial means changes (tokenisation, hashing, evidence)
FORMAT = 2


class MatchLocation(NamedTuple):
    """Where a part of an item was found: shard, document id, raw code-point span and its text
    (``text == raw[start:end]``; ``cut`` when the match ran past :data:`SNIPPET` characters). A
    named tuple: a scan makes tens of thousands of them."""

    corpus: str
    doc: str
    start: int
    end: int
    text: str
    part: str = "match"
    cut: bool = False

    @staticmethod
    def quote(corpus: str, doc: str, raw: str, start: int, end: int, part: str, shift: int = 0) -> MatchLocation:
        """``raw[start:end]`` (cut at :data:`SNIPPET`); ``raw`` begins ``shift`` code points into
        the document (a passage of it), so the offsets are the document's."""
        if end - start > SNIPPET:
            return MatchLocation(corpus, doc, start + shift, start + SNIPPET + shift, raw[start:start + SNIPPET],
                            part, True)
        return MatchLocation(corpus, doc, start + shift, end + shift, raw[start:end], part, False)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"corpus": self.corpus, "doc": self.doc, "start": self.start,
                               "end": self.end, "text": self.text, "part": self.part}
        if self.cut:
            out["cut"] = True
        return out

    def to_list(self) -> list[Any]:
        return list(self)


@dataclass(frozen=True, eq=False)
class ScanPartial:
    """What the scan of ``shards`` (in order) found (see the module). Arrays are per item unless
    said; ``counts[n]`` is ``(positions, documents)`` of the size-``n`` windows found."""

    shards: tuple[str, ...]
    counts: Mapping[int, tuple[np.ndarray, np.ndarray]]
    kind: np.ndarray           # int8: 0 none, 1 question, 2 + gold answer, 3 + every option
    sim: np.ndarray            # float64
    matched: np.ndarray        # int64 tokens matched
    options: np.ndarray        # int64 options found near the question
    docs: np.ndarray           # int64 documents holding the question
    evidence: Mapping[int, tuple[MatchLocation, ...]]
    quoted: np.ndarray         # int64 exact matches long enough to quote
    quotes: Mapping[int, tuple[tuple[int, MatchLocation], ...]] = field(default_factory=dict)
    documents: int = 0
    bytes: int = 0
    seconds: float = 0.0
    failed: tuple[tuple[str, str], ...] = ()

    @staticmethod
    def empty(n_items: int, sizes: Sequence[int]) -> ScanPartial:
        none = np.zeros(0, np.int64)
        return ScanPartial((), {n: (none, none) for n in sizes}, np.zeros(n_items, np.int8),
                           np.zeros(n_items), np.zeros(n_items, np.int64), np.zeros(n_items, np.int64),
                           np.zeros(n_items, np.int64), {}, np.zeros(n_items, np.int64))

    @property
    def n_items(self) -> int:
        return int(self.kind.size)


def _add_sparse(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
                ) -> tuple[np.ndarray, np.ndarray]:
    pos = np.concatenate([a[0], b[0]])
    if not pos.size:
        return a
    uniq, inverse = np.unique(pos, return_inverse=True)
    sums = np.bincount(inverse, weights=np.concatenate([a[1], b[1]]), minlength=uniq.size)
    return uniq.astype(np.int64), sums.astype(np.int64)


def better(kind_b: np.ndarray, sim_b: np.ndarray, m_b: np.ndarray, kind_a: np.ndarray,
           sim_a: np.ndarray, m_a: np.ndarray) -> np.ndarray:
    """Where b's evidence is strictly better than a's: kind, then similarity, then tokens matched."""
    eq = np.abs(sim_b - sim_a) <= 1e-12
    return (kind_b > kind_a) | ((kind_b == kind_a) & ((sim_b > sim_a + 1e-12) | (eq & (m_b > m_a))))


def merge_quotes(a: Sequence[tuple[int, MatchLocation]], b: Sequence[tuple[int, MatchLocation]],
                 keep: int) -> tuple[tuple[int, MatchLocation], ...]:
    """The ``keep`` longest of ``a`` then ``b`` (stable: a's first among equal lengths)."""
    return tuple(sorted([*a, *b], key=lambda x: -x[0])[:keep])


def combine(a: ScanPartial, b: ScanPartial) -> ScanPartial:
    """``a``'s shards then ``b``'s (see the module); associative."""
    from ._match import QUOTES

    if a.n_items != b.n_items:
        raise ValueError("the partials are of different benchmark tables")
    take = better(b.kind, b.sim, b.matched, a.kind, a.sim, a.matched)
    evidence = {i: e for i, e in a.evidence.items() if not take[i]}
    evidence.update({i: e for i, e in b.evidence.items() if take[i]})
    quotes = dict(a.quotes)
    for i, q in b.quotes.items():
        quotes[i] = merge_quotes(quotes.get(i, ()), q, QUOTES)
    return ScanPartial(
        a.shards + b.shards, {n: _add_sparse(a.counts[n], b.counts[n]) for n in a.counts},
        np.where(take, b.kind, a.kind), np.where(take, b.sim, a.sim),
        np.where(take, b.matched, a.matched), np.where(take, b.options, a.options),
        a.docs + b.docs, evidence, a.quoted + b.quoted, quotes, a.documents + b.documents,
        a.bytes + b.bytes, a.seconds + b.seconds, a.failed + b.failed)


def combine_all(partials: Iterable[ScanPartial], n_items: int, sizes: Sequence[int]) -> ScanPartial:
    """The partials of consecutive runs of shards, in shard order, as one."""
    out = ScanPartial.empty(n_items, sizes)
    for p in partials:
        out = combine(out, p)
    return out


def to_payload(p: ScanPartial) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Arrays and JSON metadata of ``p`` (a state file, a Ray result)."""
    arrays = {"kind": p.kind, "sim": p.sim, "matched": p.matched, "options": p.options,
              "docs": p.docs, "quoted": p.quoted}
    for n, (pos, cnt) in p.counts.items():
        arrays[f"pos{n}"], arrays[f"cnt{n}"] = pos, cnt
    meta = {"format": FORMAT, "shards": list(p.shards), "sizes": sorted(p.counts),
            "documents": p.documents, "bytes": p.bytes, "seconds": p.seconds,
            "failed": [list(f) for f in p.failed],
            "evidence": {str(i): [x.to_list() for x in e] for i, e in p.evidence.items()},
            "quotes": {str(i): [[n, x.to_list()] for n, x in q] for i, q in p.quotes.items()}}
    return arrays, meta


def from_payload(arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> ScanPartial:
    if meta.get("format") != FORMAT:
        raise ValueError(f"a partial of format {meta.get('format')}, not {FORMAT}")
    counts = {int(n): (np.asarray(arrays[f"pos{n}"], np.int64), np.asarray(arrays[f"cnt{n}"], np.int64))
              for n in meta["sizes"]}
    return ScanPartial(
        tuple(meta["shards"]), counts, np.asarray(arrays["kind"], np.int8),
        np.asarray(arrays["sim"], np.float64), np.asarray(arrays["matched"], np.int64),
        np.asarray(arrays["options"], np.int64), np.asarray(arrays["docs"], np.int64),
        {int(i): tuple(MatchLocation(*x) for x in e) for i, e in meta["evidence"].items()},
        np.asarray(arrays["quoted"], np.int64),
        {int(i): tuple((int(n), MatchLocation(*x)) for n, x in q) for i, q in meta["quotes"].items()},
        int(meta["documents"]), int(meta["bytes"]), float(meta["seconds"]),
        tuple((str(a), str(b)) for a, b in meta["failed"]))
