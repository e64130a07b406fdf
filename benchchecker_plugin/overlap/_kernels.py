"""Private numba kernels of the overlap scan: plain contiguous arrays in, arrays out, no validation.

Called through :mod:`._scan` and :mod:`._metrics` only. The token stream and the n-gram keys are those of
:mod:`._normalize` (its pure-Python functions are the reference these kernels are tested against):

- :func:`tokenize`: token hashes (FNV-1a 64 of the lower-cased token bytes), byte offsets and
  polynomial prefix hashes (so any window's key is O(1)) of every document of a batch, in one pass;
  a token is a run of ASCII letters/digits or of non-ASCII code points that are letters or digits
  (a bit table of ``str.isalnum``; non-ASCII text arrives NFKC-normalised and case-folded);
- :func:`build_table` / :func:`lookup`: an open-addressing table (linear probing) of n-gram keys;
- :func:`scan`: every window of every registered length at every token of a batch, behind two
  Bloom gates (windows shorter than the smallest metric size, and the rest), marking hits per table entry (distinct documents counted,
  the first hit's location kept);
- :func:`best_window_lcs`: Deng's retrieval score of one retrieved document (:mod:`._metrics`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_BASE = np.uint64(0x9E3779B97F4A7C15)
# ASCII letters and digits lower-cased, every other ASCII byte 0 (a separator)
_ASCII = np.array([c + 32 if 65 <= c <= 90 else c if (97 <= c <= 122 or 48 <= c <= 57) else 0
                   for c in range(128)], np.uint8)
_K_MIX = np.uint64(0xD6E8FEB86659FD93)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _fmix(h):
    h = (h ^ (h >> np.uint64(30))) * _M1
    h = (h ^ (h >> np.uint64(27))) * _M2
    return h ^ (h >> np.uint64(31))


@njit(cache=True, inline="always")
def _end_token(th, te, pre, n, p, h, at):
    """Token ``n`` (hash ``h``) ends at byte ``at``: stored, and the prefix hash ``p`` extended."""
    th[n] = h
    te[n] = at
    p = p * _BASE + h
    pre[n + 1] = p
    return n + 1, p


@njit(cache=True)
def tokenize(buf, doc_ends, alnum, th, ts, te, doc_tok, pre):
    """Tokens of the documents ``buf[doc_ends[d-1]:doc_ends[d]]`` (UTF-8): hashes into ``th``, byte
    offsets into ``ts``/``te``, polynomial prefix hashes into ``pre`` (``pre[i+1] = pre[i] * BASE +
    th[i]``); ``doc_tok[d]:doc_tok[d+1]`` are document d's tokens. A token is a run of ASCII letters
    and digits (lower-cased) or of non-ASCII code points whose bit in ``alnum`` is set. Returns the
    number of tokens."""
    n = 0
    start = 0
    p = np.uint64(0)
    pre[0] = p
    h = _FNV_OFFSET
    for d in range(doc_ends.size):
        doc_tok[d] = n
        end = doc_ends[d]
        inside = False
        i = start
        while i < end:
            c = buf[i]
            width = 1
            lc = _ASCII[c & 0x7F]   # ASCII lower-cased by the table (0: a separator)
            if c < 128:
                word = lc != 0
            else:
                if c >= 0xF0:
                    width = 4
                    cp = np.int64(c & 0x07)
                elif c >= 0xE0:
                    width = 3
                    cp = np.int64(c & 0x0F)
                else:
                    width = 2
                    cp = np.int64(c & 0x1F)
                for j in range(1, width):
                    cp = (cp << 6) | np.int64(buf[i + j] & 0x3F)
                word = (alnum[cp >> 6] >> np.uint64(cp & 63)) & np.uint64(1) == np.uint64(1)
            if word:
                if not inside:
                    inside = True
                    h = _FNV_OFFSET
                    ts[n] = i
                if width == 1:
                    h = (h ^ np.uint64(lc)) * _FNV_PRIME
                else:
                    for j in range(width):
                        h = (h ^ np.uint64(buf[i + j])) * _FNV_PRIME
            elif inside:
                inside = False
                n, p = _end_token(th, te, pre, n, p, h, i)
            i += width
        if inside:
            n, p = _end_token(th, te, pre, n, p, h, end)
        start = end
    doc_tok[doc_ends.size] = n
    return n


@njit(cache=True, inline="always")
def _key(pre, powers, i, k):
    p = pre[i + k] - pre[i] * powers[k]
    key = _fmix(p + np.uint64(k) * _K_MIX)
    if key == np.uint64(0):
        key = np.uint64(1)
    return key


@njit(cache=True)
def window_keys(pre, powers, starts, lengths, out):
    """Keys of the windows ``(starts[j], lengths[j])`` (token indices into the prefix's stream)."""
    for j in range(starts.size):
        out[j] = _key(pre, powers, starts[j], lengths[j])


@njit(cache=True)
def build_table(keys, size):
    """Open-addressing table of ``size`` (a power of two) slots: slot key (0 = empty) and the
    index of that key in ``keys`` (keys distinct and non-zero)."""
    tk = np.zeros(size, np.uint64)
    tv = np.full(size, -1, np.int64)
    mask = np.uint64(size - 1)
    for e in range(keys.size):
        s = keys[e] & mask
        while tk[s] != np.uint64(0):
            s = (s + np.uint64(1)) & mask
        tk[s] = keys[e]
        tv[s] = e
    return tk, tv


@njit(cache=True, inline="always")
def _find(tk, tv, key):
    mask = np.uint64(tk.size - 1)
    s = key & mask
    while True:
        k = tk[s]
        if k == key:
            return tv[s]
        if k == np.uint64(0):
            return -1
        s = (s + np.uint64(1)) & mask


@njit(cache=True)
def lookup(tk, tv, keys, out):
    for j in range(keys.size):
        out[j] = _find(tk, tv, keys[j])


@njit(cache=True, inline="always")
def _gated(bits, key):
    """Both gate bits of ``key`` set (from its low and its high 32 bits: a two-hash Bloom test)."""
    mask = np.uint64(bits.size * 64 - 1)
    b = key & mask
    if (bits[b >> np.uint64(6)] >> (b & np.uint64(63))) & np.uint64(1) == np.uint64(0):
        return False
    b = (key >> np.uint64(32)) & mask
    return (bits[b >> np.uint64(6)] >> (b & np.uint64(63))) & np.uint64(1) == np.uint64(1)


@njit(cache=True)
def gate_bits(keys, bits):
    """Set both gate bits of each key (``bits``: uint64 words, a power of two of them)."""
    mask = np.uint64(bits.size * 64 - 1)
    for j in range(keys.size):
        b = keys[j] & mask
        bits[b >> np.uint64(6)] |= np.uint64(1) << (b & np.uint64(63))
        b = (keys[j] >> np.uint64(32)) & mask
        bits[b >> np.uint64(6)] |= np.uint64(1) << (b & np.uint64(63))


@njit(cache=True)
def scan(pre, powers, doc_tok, n_docs, doc_base, gate_len, gate_lo, gate_hi, bits_a, bits_b, lengths,
         tk, tv, last_doc, doc_count, recorded, hit_e, hit_d, hit_t, n_hits):
    """Every window of every length in ``lengths`` (ascending) at every token of every document of
    the batch, in two groups: group ``g`` holds ``lengths[gate_lo[g]:gate_hi[g]]`` and is gated on
    the key of its first ``gate_len[g]`` tokens (``bits_a``, ``bits_b``); it is empty when
    ``gate_lo[g] == gate_hi[g]``. A window whose key is in the table counts its entry's document
    once (``last_doc``/``doc_count``) and, the first time, writes (entry, document, token) at
    ``n_hits`` while there is room. Returns the new ``n_hits``."""
    cap = hit_e.size
    for d in range(n_docs):
        a = doc_tok[d]
        b = doc_tok[d + 1]
        doc = doc_base + d
        for i in range(a, b):
            for g in range(2):
                lo = gate_lo[g]
                hi = gate_hi[g]
                if lo == hi or i + gate_len[g] > b:
                    continue
                gk = _key(pre, powers, i, gate_len[g])
                if not _gated(bits_a if g == 0 else bits_b, gk):
                    continue
                for j in range(lo, hi):
                    k = lengths[j]
                    if i + k > b:
                        break
                    e = _find(tk, tv, gk if k == gate_len[g] else _key(pre, powers, i, k))
                    if e < 0:
                        continue
                    if last_doc[e] != doc:
                        last_doc[e] = doc
                        doc_count[e] += 1
                    if recorded[e] == 0 and n_hits < cap:
                        recorded[e] = 1
                        hit_e[n_hits] = e
                        hit_d[n_hits] = d
                        hit_t[n_hits] = i
                        n_hits += 1
    return n_hits


@njit(cache=True)
def best_window_lcs(item, doc, n, ub):
    """The longest common subsequence of ``item`` and a ``n``-token window ``doc[s:s + n]`` (the
    whole of a shorter ``doc``), maximised over ``s``: ``(length, s)``. Token ids: ``item`` >= 0,
    ``doc`` -1 where the token is not in the item; ``ub[s]`` is window ``s``'s tokens that are in the
    item (an upper bound: a window that cannot beat the best so far is skipped)."""
    m = item.size
    size = doc.size
    w = min(n, size)
    cap = min(w, m)
    best = 0
    at = 0
    prev = np.zeros(m + 1, np.int64)
    cur = np.zeros(m + 1, np.int64)
    for s in range(max(size - n + 1, 1) if size else 0):
        if ub[s] <= best:
            continue
        prev[:] = 0
        for i in range(s, s + w):
            t = doc[i]
            if t < 0:
                continue   # matches no item token: the row is unchanged
            cur[0] = 0
            for j in range(m):
                if t == item[j]:
                    cur[j + 1] = prev[j] + 1
                else:
                    cur[j + 1] = max(prev[j + 1], cur[j])
            prev, cur = cur, prev
        if prev[m] > best:
            best = prev[m]
            at = s
            if best == cap:
                break
    return best, at
