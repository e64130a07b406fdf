"""Private numba kernels shared by the overlap scan: plain contiguous arrays in, arrays out, no
validation. The n-gram keys are those of :mod:`._normalize` (its pure-Python functions are the
reference these kernels are tested against):

- :func:`prefix_hashes` / :func:`window_keys`: polynomial prefix hashes of a token stream, and any
  window's key from them in O(1);
- :func:`build_table` / :func:`lookup`: an open-addressing table (linear probing) of n-gram keys;
- :func:`gate_bits`: a two-hash Bloom gate in front of the table;
- :func:`best_window_lcs`: Deng's retrieval score of one retrieved document (:mod:`._metrics`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_BASE = np.uint64(0x9E3779B97F4A7C15)
_K_MIX = np.uint64(0xD6E8FEB86659FD93)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _fmix(h):
    h = (h ^ (h >> np.uint64(30))) * _M1
    h = (h ^ (h >> np.uint64(27))) * _M2
    return h ^ (h >> np.uint64(31))


@njit(cache=True, inline="always")
def ngram_key_at(pre, powers, i, k):
    p = pre[i + k] - pre[i] * powers[k]
    key = _fmix(p + np.uint64(k) * _K_MIX)
    if key == np.uint64(0):
        key = np.uint64(1)
    return key


@njit(cache=True)
def prefix_hashes(th, base, pre):
    """``pre[i+1] = pre[i] * base + th[i]`` (``pre[0]`` = 0): any window's key in O(1)."""
    acc = np.uint64(0)
    pre[0] = acc
    for i in range(th.size):
        acc = acc * base + th[i]
        pre[i + 1] = acc


@njit(cache=True)
def window_keys(pre, powers, starts, lengths, out):
    """Keys of the windows ``(starts[j], lengths[j])`` (token indices into the prefix's stream)."""
    for j in range(starts.size):
        out[j] = ngram_key_at(pre, powers, starts[j], lengths[j])


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
def find_slot(tk, tv, key):
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
        out[j] = find_slot(tk, tv, keys[j])


@njit(cache=True, inline="always")
def gated(bits, key):
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
