"""The corpus side of a scan: one benchmark table's state, fed a batch of documents at a time.

:class:`Found` owns the arrays the kernel of :mod:`._match` updates across batches (window counts,
runs, clusters, quotes, best evidence) and, after each batch, turns what changed into raw-text
evidence while the batch's documents are still in memory (:class:`~._partial.MatchLocation`: the
document id, the raw span in code points and its text). :meth:`Found.partial` is what it found so
far, as a :class:`~._partial.ScanPartial`; :meth:`Found.reset` starts afresh (the next shard) while
keeping the table's look-up structures.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import _match
from ._partial import MatchLocation, ScanPartial
from ._table import SEED, BenchmarkTable, powers
from ._tokenize import Tokens, tokenize_texts
from ._verify import LCS_MAX, N_COLS


class Found:
    """What one scan found so far (see the module)."""

    def __init__(self, table: BenchmarkTable) -> None:
        self.table = table
        t = table
        n = len(t.items)
        self.tab = (t.stok, t.soff, t.q_own.astype(np.int64), t.q_end.astype(np.int64),
                    t.g_lo.astype(np.int64), t.g_hi.astype(np.int64), t.bench.astype(np.int64),
                    t.ptok, t.poff, t.gold_part, t.opt_lo, t.opt_hi, t.q_seeded)
        self.seeds = (t.item_of[t.post].astype(np.int64), t.seed_tk, t.seed_tv, t.post_off, t.post,
                      t.single, t.seed_of, t.gate)
        self.sizes = np.asarray(t.sizes, np.int64)
        self.pw4 = powers(SEED)
        cap = max(8 * n, 8192)
        self.cand = np.zeros((cap, N_COLS), np.int64)
        self.sim = np.zeros(cap)
        self.dp = np.zeros((LCS_MAX + 1, 2 * LCS_MAX + 2 * (LCS_MAX // 4) + 2), np.int32)   # 0.7 MB
        self.touched = np.zeros(n, np.int64)
        self.g_first = np.full(n, -1, np.int64)
        self.q_stamp = np.full(n, -1, np.int64)
        self.docs = 0               # documents numbered across batches (and shards)
        self._buffers: list[np.ndarray] = []
        size = t.stok.size
        self.cnt = np.zeros((self.sizes.size, size), np.int64)
        self.last = np.full((self.sizes.size, size), -1, np.int64)
        self.reset()

    def reset(self) -> None:
        """Forget what was found (document numbers keep growing, so the per-document markers stay
        valid; the window counts are cleared where they are not zero)."""
        n = len(self.table.items)
        for z in range(self.sizes.size):
            self.cnt[z, np.flatnonzero(self.cnt[z])] = 0
        self.runs = np.full((n, 3), -1, np.int64)
        self.cq = np.full((n, 8), -1, np.int64)
        self.cg = np.full((n, 8), -1, np.int64)
        self.qlen = np.zeros((n, _match.QUOTES), np.int64)
        self.qdoc = np.full((n, _match.QUOTES), -1, np.int64)
        self.qpos = np.zeros((n, _match.QUOTES), np.int64)
        self.qn = np.zeros(n, np.int64)
        self.qmark = np.full(n, -1, np.int64)
        self.best = np.zeros((10, n), np.int64)
        self.bsim = np.zeros(n)
        self.found_doc = np.full(n, -1, np.int64)
        self.touch_doc = np.full(n, -1, np.int64)
        self.evidence: dict[int, tuple[MatchLocation, ...]] = {}
        self.quote_at: dict[tuple[int, int, int], MatchLocation] = {}
        self.documents = 0
        self.bytes = 0

    def batch(self, shard: str, ids: Sequence[str], texts: Sequence[str],
              shifts: Sequence[int] | None = None) -> None:
        """Scan one batch of documents (``ids[d]``: document d's id; ``shifts[d]``: where text d
        begins in that document, when it is a passage of it)."""
        tok = tokenize_texts(texts, self._buffers)
        base = self.docs
        _match.scan_batch(tok.th, tok.pre, tok.doc_tok, base, self.pw4, self.tab, self.seeds,
                          self.sizes, self.cnt, self.last, self.runs, self.cq, self.cg, self.qlen,
                          self.qdoc, self.qpos, self.qn, self.qmark, self.best, self.bsim,
                          self.found_doc, self.touched, self.touch_doc, self.cand, self.sim, self.dp,
                          self.g_first, self.q_stamp)
        self.docs += len(texts)
        self.documents += len(texts)
        self.bytes += sum(len(t) for t in texts)
        self._evidence(shard, ids, texts, shifts, tok, base)
        self._quotes(shard, ids, texts, shifts, tok, base)

    def _evidence(self, shard: str, ids: Sequence[str], texts: Sequence[str],
                  shifts: Sequence[int] | None, tok: Tokens, base: int) -> None:
        """The question and gold answer, as stored, of every item whose best changed."""
        changed = np.flatnonzero(self.best[8])
        if not changed.size:
            return
        self.best[8, changed] = 0
        d = self.best[2, changed] - base
        a = tok.doc_tok[d]
        q0 = tok.ts[a + self.best[3, changed]].tolist()
        q1 = tok.te[a + self.best[4, changed] - 1].tolist()
        has_g = self.best[5, changed] >= 0
        g0 = np.where(has_g, tok.ts[a + np.maximum(self.best[5, changed], 0)], -1).tolist()
        g1 = np.where(has_g, tok.te[a + np.maximum(self.best[6, changed], 1) - 1], -1).tolist()
        for k, (s, doc) in enumerate(zip(changed.tolist(), d.tolist())):
            raw, shift = texts[doc], (shifts[doc] if shifts is not None else 0)
            ev = [MatchLocation.quote(shard, ids[doc], raw, q0[k], q1[k], "question", shift)]
            if g0[k] >= 0:
                ev.append(MatchLocation.quote(shard, ids[doc], raw, g0[k], g1[k], "answer", shift))
            self.evidence[s] = tuple(ev)

    def _quotes(self, shard: str, ids: Sequence[str], texts: Sequence[str],
                shifts: Sequence[int] | None, tok: Tokens, base: int) -> None:
        """The raw text of every run that entered an item's longest ones in this batch."""
        items = np.flatnonzero(self.qmark == base)
        if not items.size:
            return
        rows, cols = np.nonzero(self.qdoc[items] >= base)
        s_all = items[rows]
        docs = self.qdoc[s_all, cols]
        pos = self.qpos[s_all, cols]
        lens = self.qlen[s_all, cols]
        a = tok.doc_tok[docs - base] + pos
        starts, ends = tok.ts[a].tolist(), tok.te[a + lens - 1].tolist()
        for k, (s, doc, p) in enumerate(zip(s_all.tolist(), docs.tolist(), pos.tolist())):
            if (s, doc, p) not in self.quote_at:
                d = doc - base
                self.quote_at[(s, doc, p)] = MatchLocation.quote(
                    shard, ids[d], texts[d], starts[k], ends[k], "match",
                    shifts[d] if shifts is not None else 0)

    def partial(self, shards: tuple[str, ...], seconds: float = 0.0,
                failed: tuple[tuple[str, str], ...] = ()) -> ScanPartial:
        """What was found since the last :meth:`reset`, as a partial of ``shards``."""
        counts = {}
        for z, n in enumerate(self.table.sizes):
            pos = np.flatnonzero(self.cnt[z]).astype(np.int64)
            counts[n] = (pos, self.cnt[z, pos].copy())
        quotes: dict[int, tuple[tuple[int, MatchLocation], ...]] = {}
        held = np.flatnonzero(self.qlen[:, 0])
        at = self.quote_at
        for s, lens, docs, pos in zip(held.tolist(), self.qlen[held].tolist(), self.qdoc[held].tolist(),
                                      self.qpos[held].tolist()):
            quotes[s] = tuple((n, at[(s, d, p)]) for n, d, p in zip(lens, docs, pos) if n > 0)
        return ScanPartial(shards, counts, self.best[0].astype(np.int8), self.bsim.copy(),
                           self.best[1].copy(), self.best[7].copy(), self.best[9].copy(),
                           dict(self.evidence), self.qn.copy(), quotes, self.documents, self.bytes,
                           seconds, failed)
