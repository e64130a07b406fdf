"""Private numba kernels: one document's candidates, verified (called by :mod:`._match`).

A candidate is a cluster of exact matches (runs) of one item's question (or gold answer) on nearby
diagonals of one document. Verification, per document:

1. **Alignment**: a question of up to :data:`LCS_MAX` tokens is aligned with the document around
   its cluster (longest common subsequence, with the matched positions): similarity = matched
   tokens / max(question tokens, aligned span), so a dropped, added or changed word costs one token
   and a copy padded with other words costs its padding. A cluster whose exact runs already cover
   :data:`TAU_TIGHT` of the question is taken by its coverage (the alignment could only raise it),
   and longer questions use the coverage (each edit loses about one token of a long run). The
   item's *own* question (after a shared passage or template prefix) must be matched at
   :data:`TAU_OWN` or more.
2. **Short questions** found from their gold answer: a gold cluster covering :data:`TAU_G` of the
   answer, with the question's exact tokens within :data:`WINDOW` tokens.
3. **Competition**: of two candidates of one benchmark whose question spans overlap by more than
   half the shorter, the one with the lower (similarity, matched tokens) is dropped: a copy of one
   item is not evidence for its near-duplicate sibling.
4. **Parts**: within :data:`WINDOW` tokens before or after the question, the gold answer (exact, or
   a gold cluster covering :data:`TAU_G` of it) and each option (exact), in any order and whatever
   stands between them.

Kinds: 1 question, 2 question and gold answer, 3 question and every option.
"""

from __future__ import annotations

import numpy as np
from numba import njit

LCS_MAX = 256
WINDOW = 400
TAU_MIN = 0.75
TAU_OWN = 0.75
TAU_G = 0.8
TAU_TIGHT = 0.9
#: candidate columns (int64): kind of cluster, item, offsets, coverage, own coverage, doc span,
#: then (written by verification) aligned span, matched tokens, kept flag, next gold cluster
C_TYPE, C_ITEM, C_OMIN, C_OMAX, C_COV, C_OWN, C_PMIN, C_PMAX, C_A, C_B, C_M, C_KEEP, C_NEXT = range(13)
N_COLS = 13


@njit(cache=True)
def _fill(q, th, a, b, backward, dp):
    """LCS table of ``q`` and ``th[a:b]`` (both reversed when ``backward``) into ``dp``; returns
    the LCS and the first document column (1-based) reaching it."""
    m = q.size
    w = b - a
    for j in range(w + 1):
        dp[0, j] = 0
    for i in range(1, m + 1):
        dp[i, 0] = 0
        qi = q[m - i] if backward else q[i - 1]
        for j in range(1, w + 1):
            t = th[b - j] if backward else th[a + j - 1]
            if t == qi:
                dp[i, j] = dp[i - 1, j - 1] + 1
            elif dp[i - 1, j] >= dp[i, j - 1]:
                dp[i, j] = dp[i - 1, j]
            else:
                dp[i, j] = dp[i, j - 1]
    best = dp[m, w]
    first = w
    for j in range(w + 1):
        if dp[m, j] == best:
            first = j
            break
    return best, first


@njit(cache=True)
def align(q, th, ra, rb, own_lo, dp):
    """The tightest alignment of the question tokens ``q`` in ``th[ra:rb]``: a longest common
    subsequence ending as early as possible, then starting as late as possible. Returns (matched,
    matched in ``q[own_lo:]``, first and last matched document position; -1 if none). ``dp``:
    scratch of at least (len(q) + 1) x (rb - ra + 1)."""
    best, end = _fill(q, th, ra, rb, False, dp)
    if best == 0:
        return 0, 0, -1, -1
    _, back = _fill(q, th, ra, ra + end, True, dp)
    a = ra + end - back
    b = ra + end
    _fill(q, th, a, b, False, dp)
    m = q.size
    i, j = m, b - a
    matched = own = 0
    first = last = -1
    while i > 0 and j > 0:
        if th[a + j - 1] == q[i - 1] and dp[i, j] == dp[i - 1, j - 1] + 1:
            matched += 1
            if i - 1 >= own_lo:
                own += 1
            if last < 0:
                last = a + j - 1
            first = a + j - 1
            i -= 1
            j -= 1
        elif dp[i - 1, j] >= dp[i, j - 1]:
            i -= 1
        else:
            j -= 1
    return matched, own, first, last


@njit(cache=True)
def bound(q, th, ra, rb, mask):
    """An upper bound on the LCS of ``q`` and ``th[ra:rb]``: the tokens of ``q`` whose hash bit is
    set among the region's (a 1024-bit filter in ``mask``, 16 words of scratch)."""
    mask[:] = 0
    for x in range(ra, rb):
        b = (th[x] >> np.uint64(17)) & np.uint64(1023)
        mask[b >> np.uint64(6)] |= np.uint64(1) << (b & np.uint64(63))
    n = 0
    for k in range(q.size):
        b = (q[k] >> np.uint64(17)) & np.uint64(1023)
        if (mask[b >> np.uint64(6)] >> (b & np.uint64(63))) & np.uint64(1):
            n += 1
    return n


@njit(cache=True, inline="always")
def _at(seq, th, x):
    for k in range(seq.size):
        if th[x + k] != seq[k]:
            return False
    return True


@njit(cache=True)
def find_near(seq, th, a, b, span_a, span_b, window, before_first=False):
    """The first exact copy of ``seq`` after ``span_b`` (within ``window`` tokens), else the nearest
    before ``span_a`` (``before_first``: the other way round: a question is looked for before its
    answer first); document bounds ``[a, b)``. Returns (start, end) or (-1, -1)."""
    n = seq.size
    if n == 0:
        return -1, -1
    for turn in range(2):
        if (turn == 0) != before_first:
            stop = min(b, span_b + window) - n
            for x in range(span_b, stop + 1):
                if th[x] == seq[0] and _at(seq, th, x):
                    return x, x + n
        else:
            lo = max(a, span_a - window)
            for x in range(span_a - n, lo - 1, -1):
                if th[x] == seq[0] and _at(seq, th, x):
                    return x, x + n
    return -1, -1


@njit(cache=True)
def verify_question(c, cand, th, a, b, stok, soff, q_own, q_end, dp, sim_out):
    """Step 1 for candidate row ``c`` (a question cluster): its aligned span, matched tokens and
    similarity; kept when similar enough and its own question is matched. A cluster already at
    :data:`TAU_TIGHT` by coverage alone is taken as it is; otherwise the own question (after a
    shared prefix) is aligned first, so a passage sibling is dropped before the whole question is
    aligned."""
    s = cand[c, C_ITEM]
    lo = soff[s]
    q_len = q_end[s]
    own_lo = q_own[s]
    own_len = q_len - own_lo
    omin, omax, cov = cand[c, C_OMIN], cand[c, C_OMAX], cand[c, C_COV]
    pmin, pmax = cand[c, C_PMIN], cand[c, C_PMAX]
    cand[c, C_KEEP] = 0
    covered = cov / max(q_len, pmax - pmin)
    if covered >= TAU_TIGHT and (own_len == 0 or cand[c, C_OWN] >= TAU_OWN * own_len):
        span_a, span_b, matched, own = pmin, pmax, cov, cand[c, C_OWN]
    elif q_len <= LCS_MAX:
        slack = max(4, q_len // 4)
        ra = max(a, pmin - omin - slack)
        rb = min(b, pmax + (q_len - omax) + slack)
        rb = min(rb, ra + 2 * q_len + 2 * slack)
        mask = dp[0, :32].view(np.uint64)   # scratch, overwritten by the alignment after
        if own_lo > 0:   # the own question alone first, where it should be
            oa = max(ra, pmin - omin + own_lo - slack)
            ob = min(rb, oa + 2 * own_len + 2 * slack)
            own_q = stok[lo + own_lo:lo + q_len]
            if bound(own_q, th, oa, ob, mask) < TAU_OWN * own_len:
                return
            m_own, _, _, _ = align(own_q, th, oa, ob, 0, dp)
            if m_own < TAU_OWN * own_len:
                return
        elif bound(stok[lo:lo + q_len], th, ra, rb, mask) < TAU_MIN * q_len:
            return
        matched, own, first, last = align(stok[lo:lo + q_len], th, ra, rb, own_lo, dp)
        if matched == 0:
            return
        span_a, span_b = first, last + 1
    else:
        span_a, span_b, matched, own = pmin, pmax, cov, cand[c, C_OWN]
    sim = matched / max(q_len, span_b - span_a)
    own_share = own / own_len if own_len > 0 else 1.0
    cand[c, C_A] = span_a
    cand[c, C_B] = span_b
    cand[c, C_M] = matched
    sim_out[c] = sim
    cand[c, C_KEEP] = 1 if sim >= TAU_MIN and own_share >= TAU_OWN else 0


@njit(cache=True)
def compete(cand, sim, n, bench):
    """Step 3: drop, of two overlapping kept question candidates of one benchmark, the lesser."""
    idx = np.empty(n, np.int64)
    k = 0
    for c in range(n):
        if cand[c, C_TYPE] == 0 and cand[c, C_KEEP] == 1:
            idx[k] = c
            k += 1
    if k < 2:
        return
    starts = np.empty(k, np.int64)
    for j in range(k):
        starts[j] = cand[idx[j], C_A]
    order = idx[np.argsort(starts, kind="mergesort")]
    for x in range(k):
        c = order[x]
        for y in range(x + 1, k):
            e = order[y]
            if cand[e, C_A] >= cand[c, C_B]:
                break
            if bench[cand[c, C_ITEM]] != bench[cand[e, C_ITEM]] or cand[c, C_ITEM] == cand[e, C_ITEM]:
                continue
            ov = min(cand[c, C_B], cand[e, C_B]) - max(cand[c, C_A], cand[e, C_A])
            shorter = min(cand[c, C_B] - cand[c, C_A], cand[e, C_B] - cand[e, C_A])
            if 2 * ov <= shorter:
                continue
            if sim[c] < sim[e] - 1e-12 or (abs(sim[c] - sim[e]) <= 1e-12 and cand[c, C_M] < cand[e, C_M]):
                cand[c, C_KEEP] = 2
            elif sim[e] < sim[c] - 1e-12 or (abs(sim[c] - sim[e]) <= 1e-12 and cand[e, C_M] < cand[c, C_M]):
                cand[e, C_KEEP] = 2
    for x in range(k):
        if cand[order[x], C_KEEP] == 2:
            cand[order[x], C_KEEP] = 0


@njit(cache=True)
def _fuzzy(seq, th, ra, rb, dp):
    """The tightest alignment of ``seq`` in ``th[ra:rb]`` when its similarity (matched over
    max(length, span)) is at least :data:`TAU_G`: (start, end), else (-1, -1)."""
    if rb - ra < 1 or seq.size > LCS_MAX:
        return -1, -1
    rb = min(rb, ra + dp.shape[1] - 1)
    matched, _, first, last = align(seq, th, ra, rb, 0, dp)
    if matched and matched / max(seq.size, last + 1 - first) >= TAU_G:
        return first, last + 1
    return -1, -1


@njit(cache=True)
def gold_near(s, cand, g_first, span_a, span_b, a, b, th, ptok, poff, gold_part, g_lo, g_hi, dp):
    """Step 4 for the gold answer of item ``s``: (start, end) of it near the span, or (-1, -1):
    an exact copy, else a gold cluster, else (answers of 4+ tokens) an alignment at
    :data:`TAU_G`, after the question first."""
    gp = gold_part[s]
    seq = ptok[poff[gp]:poff[gp + 1]] if gp >= 0 else ptok[0:0]
    if gp >= 0:
        x, y = find_near(seq, th, a, b, span_a, span_b, WINDOW)
        if x >= 0:
            return x, y
    if g_lo[s] >= 0:
        g_len = g_hi[s] - g_lo[s]
        c = g_first[s]
        while c >= 0:
            if cand[c, C_COV] >= TAU_G * g_len and cand[c, C_PMAX] > span_a - WINDOW and \
                    cand[c, C_PMIN] < span_b + WINDOW:
                return cand[c, C_PMIN], cand[c, C_PMAX]
            c = cand[c, C_NEXT]
    if seq.size >= 4:
        x, y = _fuzzy(seq, th, span_b, min(b, span_b + 2 * seq.size + 8), dp)
        if x < 0:
            x, y = _fuzzy(seq, th, max(a, span_a - 2 * seq.size - 8), span_a, dp)
        return x, y
    return -1, -1


@njit(cache=True)
def options_near(s, span_a, span_b, a, b, th, ptok, poff, opt_lo, opt_hi):
    """Step 4 for the options: how many are found near the span."""
    found = 0
    for o in range(opt_lo[s], opt_hi[s]):
        x, _ = find_near(ptok[poff[o]:poff[o + 1]], th, a, b, span_a, span_b, WINDOW)
        if x >= 0:
            found += 1
    return found
