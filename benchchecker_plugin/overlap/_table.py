"""The benchmark side of a scan: every item's tokens, parts, seeds and n-gram windows.

1. Each item's *stream* is the tokens of its query (:mod:`._items`); its question is a prefix of
   the stream (the gold answer, for question+answer queries, follows it). Each part (the gold
   answer, every option) is also kept as its own token sequence, looked for near the question.
2. **Seeds**: every 4-gram of every stream, with its postings (the stream positions holding it).
   A 4-gram in more than :data:`SEED_MAX` items is no seed (a template phrase: a match through it
   is found from a rarer 4-gram and extended). The scan finds every exact match of a stream in a
   document from its seeds and extends it both ways (:mod:`._match`). An item with no seed inside
   its question or its gold answer (``Planetary rings are`` / ``all of the above``: only its
   options are distinctive) cannot be located: undecided.
3. **Own question**: questions of one benchmark sharing a prefix of :data:`PASSAGE_MIN` or more
   tokens (a reading passage, a templated stem) each own what follows the longest shared prefix; a
   copy must match the own part too, so a passage alone is evidence for none of its items. Two
   items with the same question are *shared*: the question alone decides neither.
4. **Informative tokens**: tokens of two or more characters holding a letter. An item whose
   question and answer hold fewer than :data:`MIN_INFO` (``−4 + (−3) = −7``: none) is too short to
   be distinctive: always undecided.
5. **Windows** of the published rules: per size ``n`` each stream's n-grams, or the whole stream
   when shorter (the whole-item rule); a window key in ``template_items`` or more items of its
   benchmark is a template and masked (not counted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from . import _kernels as K
from ._items import OverlapItem
from ._tokenize import tokenize_texts

SEED = 4
SEED_MAX = 64
PASSAGE_MIN = 8
MIN_INFO = 4
TEMPLATE_ITEMS = 10
GATE_WORDS = 1 << 18          # 2 MB of Bloom bits


def powers(k_max: int) -> np.ndarray:
    """``BASE ** k`` mod 2^64 for k = 0..k_max (window keys from prefix hashes)."""
    from ._normalize import BASE

    out = np.empty(k_max + 1, np.uint64)
    p = 1
    for k in range(k_max + 1):
        out[k] = p
        p = (p * BASE) & ((1 << 64) - 1)
    return out


def _distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` by sorting (numpy 2.4's hash-based ``unique`` is 20x slower on a few
    million int64)."""
    s = np.sort(values)
    return s[np.concatenate(([True], s[1:] != s[:-1]))] if s.size else s


@dataclass(frozen=True, eq=False)
class BenchmarkTable:
    """The benchmark side of a scan (see the module). Positions ``g`` index the concatenated
    streams; ``soff[i]:soff[i+1]`` is item i's."""

    items: tuple[OverlapItem, ...]
    benchmarks: tuple[str, ...]
    bench: np.ndarray            # int32 per item
    stok: np.ndarray             # uint64 token hashes of the streams
    soff: np.ndarray             # int64, items + 1
    item_of: np.ndarray          # int32 per position
    q_own: np.ndarray            # int32 per item: where its own question starts (stream offset)
    q_end: np.ndarray            # int32 per item: where its question ends
    g_lo: np.ndarray             # int32 per item: the gold answer in the stream, or -1
    g_hi: np.ndarray
    ptok: np.ndarray             # uint64 tokens of the parts looked for exactly
    poff: np.ndarray             # int64, parts + 1
    gold_part: np.ndarray        # int64 per item (-1: none)
    opt_lo: np.ndarray           # int64 per item: its options are parts opt_lo..opt_hi
    opt_hi: np.ndarray
    info_q: np.ndarray           # int32 per item
    info_g: np.ndarray
    q_shared: np.ndarray         # bool per item
    seeded: np.ndarray           # bool per item: a seed lies inside its question or gold answer
    q_seeded: np.ndarray         # bool per item: a seed lies inside its question
    seed_tk: np.ndarray          # the seeds' open-addressing table
    seed_tv: np.ndarray
    post_off: np.ndarray         # int64 per seed + 1
    post: np.ndarray             # int64 positions
    single: np.ndarray           # bool per position: its 4-gram's only posting
    seed_of: np.ndarray          # int64 per position: its 4-gram's seed (-1: none)
    gate: np.ndarray             # uint64 Bloom bits over seed keys
    sizes: tuple[int, ...]
    masked: dict[int, np.ndarray]   # per size: bool per position (the window starting there)
    n_masked: np.ndarray         # int64 per benchmark: template window keys masked
    template_items: int

    @property
    def n_tokens(self) -> np.ndarray:
        return np.diff(self.soff)

    def decidable(self) -> np.ndarray:
        """Items the ``parts`` rule can decide: seeded, and informative enough."""
        return self.seeded & (self.info_q + self.info_g >= MIN_INFO)

    def windows(self, n: int, index: int) -> tuple[np.ndarray, np.ndarray]:
        """Item ``index``'s windows of size ``n``: starts (stream offsets) and masked flags."""
        lo, hi = int(self.soff[index]), int(self.soff[index + 1])
        if hi - lo == 0:
            return np.zeros(0, np.int64), np.zeros(0, bool)
        count = max(hi - lo - n + 1, 1)
        return np.arange(count, dtype=np.int64), self.masked[n][lo:lo + count]


_ALPHA: list[np.ndarray] = []


def _alpha() -> np.ndarray:
    """Per code point: ``str.isalpha`` (built once per process from a regular expression)."""
    if not _ALPHA:
        import re

        every = np.arange(0x110000, dtype="<u4")
        every[0xD800:0xE000] = 0x20
        flags = np.zeros(0x110000, bool)
        for m in re.finditer(r"[^\W\d_]+", every.tobytes().decode("utf-32-le")):
            flags[m.start():m.end()] = True
        _ALPHA.append(flags)
    return _ALPHA[0]


def _informative(texts: Sequence[str], tok: object) -> np.ndarray:
    """Per document of ``tok`` (the token stream of ``texts``): tokens of >= 2 characters holding
    a letter (judged on the raw text each token came from)."""
    ts, te, doc_tok = tok.ts, tok.te, tok.doc_tok   # type: ignore[attr-defined]
    joined = "".join(texts).encode("utf-32-le", "surrogatepass")
    cps = np.frombuffer(joined, "<u4")
    letters = np.concatenate(([0], np.cumsum(_alpha()[np.minimum(cps, 0x10FFFF)], dtype=np.int64)))
    base = np.concatenate(([0], np.cumsum([len(t) for t in texts])))[:-1].astype(np.int64)
    doc_of = np.repeat(np.arange(len(texts)), np.diff(doc_tok))
    a, b = base[doc_of] + ts, base[doc_of] + te
    good = ((te - ts) >= 2) & ((letters[b] - letters[a]) > 0)
    out = np.zeros(len(texts), np.int32)
    np.add.at(out, doc_of, good.astype(np.int32))
    return out


def _ranges(tok: object) -> list[np.ndarray]:
    th, doc_tok = tok.th, tok.doc_tok   # type: ignore[attr-defined]
    return [th[int(doc_tok[d]):int(doc_tok[d + 1])] for d in range(doc_tok.size - 1)]


def _own_start(questions: list[np.ndarray], bench: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per item: where its own question starts, and whether another item has the same question."""
    own = np.zeros(len(questions), np.int32)
    shared = np.zeros(len(questions), bool)
    keys = [tuple(q.tolist()) for q in questions]
    order = sorted(range(len(questions)), key=lambda i: (int(bench[i]), keys[i]))
    for a, b in zip(order, order[1:]):
        if bench[a] != bench[b]:
            continue
        x, y = keys[a], keys[b]
        n = 0
        for u, v in zip(x, y):
            if u != v:
                break
            n += 1
        if x == y:
            shared[a] = shared[b] = True
        for i, q in ((a, x), (b, y)):
            if n >= PASSAGE_MIN and n < len(q):
                own[i] = max(own[i], n)
    return own, shared


def _seeds(stok: np.ndarray, soff: np.ndarray, item_of: np.ndarray, pre: np.ndarray, q_end: np.ndarray,
           g_lo: np.ndarray, g_hi: np.ndarray) -> tuple[np.ndarray, ...]:
    n_items = soff.size - 1
    lens = np.diff(soff)
    count = np.maximum(lens - SEED + 1, 0)
    starts = np.repeat(soff[:-1], count) + (np.arange(int(count.sum())) -
                                            np.repeat(np.cumsum(count) - count, count))
    keys = np.empty(starts.size, np.uint64)
    K.window_keys(pre, powers(SEED), starts, np.full(starts.size, SEED, np.int64), keys)
    order = np.argsort(keys, kind="stable")
    keys_s, starts_s = keys[order], starts[order]
    first = np.concatenate(([True], keys_s[1:] != keys_s[:-1])) if keys_s.size else np.zeros(0, bool)
    group = np.cumsum(first) - 1
    uniq = keys_s[first]
    n_post = np.bincount(group, minlength=uniq.size) if keys_s.size else np.zeros(0, np.int64)
    items_per = np.zeros(uniq.size, np.int64)
    if keys_s.size:
        pairs = _distinct(group.astype(np.int64) * n_items + item_of[starts_s])
        items_per = np.bincount(pairs // n_items, minlength=uniq.size)
    live = items_per <= SEED_MAX
    keep = live[group] if keys_s.size else np.zeros(0, bool)
    seed_keys = uniq[live]
    post = starts_s[keep]
    post_off = np.concatenate(([0], np.cumsum(n_post[live]))).astype(np.int64)
    single = np.zeros(stok.size, bool)
    single[starts_s[keep & (n_post[group] == 1)]] = True
    seed_of = np.full(stok.size, -1, np.int64)
    if keys_s.size:
        seed_of[starts_s[keep]] = (np.cumsum(live) - 1)[group[keep]]
    # an item can be found where a seed lies inside its question or its gold answer (a seed across
    # the seam between them finds only the copies that keep them side by side)
    owner = item_of[post]
    rel = post - soff[owner]
    inside = (rel + SEED <= q_end[owner]) | ((g_lo[owner] >= 0) & (rel >= g_lo[owner]) &
                                             (rel + SEED <= g_hi[owner]))
    seeded = np.zeros(n_items, bool)
    seeded[owner[inside]] = True
    q_seeded = np.zeros(n_items, bool)
    q_seeded[owner[rel + SEED <= q_end[owner]]] = True
    size = 1 << max(4, int(2 * max(seed_keys.size, 1) - 1).bit_length())
    tk, tv = K.build_table(seed_keys, size)
    gate = np.zeros(GATE_WORDS, np.uint64)
    K.gate_bits(seed_keys, gate)
    return tk, tv, post_off, post, single, seed_of, seeded, q_seeded, gate


def _masks(sizes: tuple[int, ...], soff: np.ndarray, item_of: np.ndarray, bench: np.ndarray,
           pre: np.ndarray, template_items: int, n_bench: int) -> tuple[dict[int, np.ndarray], np.ndarray]:
    lens = np.diff(soff)
    n_items = lens.size
    out: dict[int, np.ndarray] = {}
    total = np.zeros(n_bench, np.int64)
    for n in sizes:
        count = np.where(lens >= n, lens - n + 1, (lens > 0).astype(np.int64))
        starts = np.repeat(soff[:-1], count) + (np.arange(int(count.sum())) -
                                                np.repeat(np.cumsum(count) - count, count))
        length = np.minimum(n, lens)[item_of[starts]] if starts.size else np.zeros(0, np.int64)
        keys = np.empty(starts.size, np.uint64)
        K.window_keys(pre, powers(n), starts, length.astype(np.int64), keys)
        mask = np.zeros(soff[-1], bool)
        if starts.size:
            # a key is counted per benchmark: (benchmark, key) pairs, distinct items of each
            b = bench[item_of[starts]].astype(np.uint64)
            combo = keys ^ (b * np.uint64(0x9E3779B97F4A7C15))
            uniq, inverse = np.unique(combo, return_inverse=True)
            pairs = _distinct(inverse.astype(np.int64) * n_items + item_of[starts])
            per = np.bincount(pairs // n_items, minlength=uniq.size)
            bad = per[inverse] >= template_items
            mask[starts[bad]] = True
            key_bench = np.zeros(uniq.size, np.int64)
            key_bench[inverse] = b.astype(np.int64)
            total += np.bincount(key_bench[per >= template_items], minlength=n_bench)
        out[n] = mask
    return out, total


def build_table(items: Sequence[OverlapItem], sizes: Sequence[int] = (8, 13), *,
                template_items: int = TEMPLATE_ITEMS) -> BenchmarkTable:
    """The benchmark table of ``items`` with windows of ``sizes`` for the published rules."""
    if not items:
        raise InputError("the benchmark has no item to look for")
    if template_items < 2:
        raise InputError(f"template_items must be >= 2, got {template_items}")
    items = tuple(items)
    benchmarks = tuple(dict.fromkeys(i.benchmark for i in items))
    bench = np.array([benchmarks.index(i.benchmark) for i in items], np.int32)
    queries = tokenize_texts([i.text for i in items])
    stems = [i.stem for i in items]
    stem_tok = tokenize_texts(stems)
    golds = [i.answer or "" for i in items]
    gold_tok = tokenize_texts(golds)
    stream = _ranges(queries)
    qs, gs = _ranges(stem_tok), _ranges(gold_tok)
    n = len(items)
    q_end = np.zeros(n, np.int32)
    g_lo = np.full(n, -1, np.int32)
    g_hi = np.full(n, -1, np.int32)
    for i, (s, q, g) in enumerate(zip(stream, qs, gs)):
        if s.size >= q.size and np.array_equal(s[:q.size], q):
            q_end[i] = q.size
            if g.size and s.size == q.size + g.size and np.array_equal(s[q.size:], g):
                g_lo[i], g_hi[i] = q.size, s.size
        else:   # the query is not question then answer: the whole query is the question
            q_end[i] = s.size
    soff = np.concatenate(([0], np.cumsum([s.size for s in stream]))).astype(np.int64)
    stok = np.concatenate(stream) if stream else np.zeros(0, np.uint64)
    item_of = np.repeat(np.arange(n, dtype=np.int32), np.diff(soff))
    pre = np.zeros(stok.size + 1, np.uint64)
    from ._normalize import BASE
    K.prefix_hashes(stok, np.uint64(BASE), pre)
    own, shared = _own_start([s[:q_end[i]] for i, s in enumerate(stream)], bench)
    # parts looked for exactly: each item's options (the gold among them), else its answer
    parts: list[str] = []
    gold_part = np.full(n, -1, np.int64)
    opt_lo = np.zeros(n, np.int64)
    opt_hi = np.zeros(n, np.int64)
    for i, it in enumerate(items):
        opt_lo[i] = len(parts)
        if it.options:
            parts.extend(it.options)
            if it.answer is not None and it.answer in it.options:
                gold_part[i] = opt_lo[i] + it.options.index(it.answer)
        elif it.answer is not None:
            gold_part[i] = len(parts)
            parts.append(it.answer)
        opt_hi[i] = len(parts)
    part_tok = tokenize_texts(parts) if parts else None
    ptok = part_tok.th.copy() if part_tok is not None else np.zeros(0, np.uint64)
    poff = part_tok.doc_tok.copy() if part_tok is not None else np.zeros(1, np.int64)
    info_q = _informative(stems, stem_tok)
    info_g = _informative(golds, gold_tok)
    tk, tv, post_off, post, single, seed_of, seeded, q_seeded, gate = _seeds(stok, soff, item_of, pre, q_end,
                                                                               g_lo, g_hi)
    masked, n_masked = _masks(tuple(sorted(set(sizes))), soff, item_of, bench, pre, template_items,
                              len(benchmarks))
    return BenchmarkTable(items, benchmarks, bench, stok, soff, item_of, own, q_end, g_lo, g_hi,
                          ptok, poff, gold_part, opt_lo, opt_hi, info_q, info_g, shared, seeded, q_seeded,
                          tk, tv, post_off, post, single, seed_of, gate, tuple(sorted(set(sizes))), masked,
                          n_masked, template_items)


def table_fingerprint(table: BenchmarkTable) -> str:
    """A digest of everything a scan's numbers depend on: the streams and parts (their order
    numbers the items), the masks, the sizes and the format of partials."""
    import hashlib

    from ._partial import FORMAT

    h = hashlib.sha256(f"overlap-table/{FORMAT}/{table.sizes}/{SEED}/{SEED_MAX}/{PASSAGE_MIN}".encode())
    for a in (table.stok, table.soff, table.q_own, table.q_end, table.g_lo, table.ptok, table.poff,
              table.gold_part, table.opt_lo, table.bench, *(table.masked[n] for n in table.sizes)):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()
