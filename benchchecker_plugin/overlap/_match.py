"""Private numba kernel of the scan: one batch of documents against the benchmark table.

Per document, token by token:

1. **Seeds**: the 4-gram at each token is looked up (behind a Bloom gate) among the streams'
   seeds; inside the current exact match, a token whose 4-gram has this one posting only is
   skipped (a benchmark dump costs a comparison per token, not a look-up).
2. **Runs**: each posting not already inside its item's furthest-reaching run on the same
   diagonal is extended forward (to the first mismatch) and back (up to :data:`MAX_BACK` tokens):
   a maximal exact match of the item's stream, found once (a phrase the item repeats, matched
   off its diagonal, does not displace the run it lies in).
3. A run shorter than :data:`SHORT_RUN` tokens of an item whose parts are all at least twice
   that long is dropped: it holds no window of the published rules and cannot cover half of a
   part (a phrase the item shares with others). Each run counts, once per document, every window
   of the published rules it contains (the whole stream for a short item), offers itself as a quote (each item keeps its
   :data:`QUOTES` longest), and joins its item's question (or gold answer) cluster when on a nearby
   diagonal (drift of at most :data:`DIAG_TOL` per step, gap at most :data:`GAP`), else closes it.
4. At the document's end every cluster is closed and the candidates verified (:mod:`._verify`);
   an item's best evidence (kind, similarity, matched tokens) and where it is are kept. A
   document with more candidates than the buffer holds is settled whenever it fills (its
   candidates then compete within each settled group).

Plain arrays in and out; the state arrays persist across batches (see :class:`._found.Found`).
"""

from __future__ import annotations

from numba import njit

from ._kernels import find_slot, gated, ngram_key_at
from ._verify import (
    C_A,
    C_B,
    C_COV,
    C_ITEM,
    C_KEEP,
    C_M,
    C_NEXT,
    C_OMAX,
    C_OMIN,
    C_OWN,
    C_PMAX,
    C_PMIN,
    C_TYPE,
    LCS_MAX,
    TAU_G,
    WINDOW,
    compete,
    find_near,
    gold_near,
    options_near,
    verify_question,
)

MAX_BACK = 64
SHORT_RUN = 8
DIAG_TOL = 8
GAP = 16
COV_MIN = 0.5
QUOTES = 5
#: cluster state rows
K_DOC, K_DIAG, K_OMIN, K_OMAX, K_COV, K_OWN, K_PMIN, K_PMAX = range(8)


@njit(cache=True)
def _emit(cl, s, part_len, typ, cand, n_cand):
    """Close item ``s``'s cluster ``cl`` into the candidate rows (if it covers enough)."""
    cov = cl[s, K_COV]
    cl[s, K_DOC] = -1
    if cov < max(2, COV_MIN * part_len) or n_cand >= cand.shape[0]:
        return n_cand
    cand[n_cand, C_TYPE] = typ
    cand[n_cand, C_ITEM] = s
    cand[n_cand, C_OMIN] = cl[s, K_OMIN]
    cand[n_cand, C_OMAX] = cl[s, K_OMAX]
    cand[n_cand, C_COV] = cov
    cand[n_cand, C_OWN] = cl[s, K_OWN]
    cand[n_cand, C_PMIN] = cl[s, K_PMIN]
    cand[n_cand, C_PMAX] = cl[s, K_PMAX]
    cand[n_cand, C_KEEP] = 0
    cand[n_cand, C_NEXT] = -1
    return n_cand + 1


@njit(cache=True)
def _start(cl, s, doc, diag, p_at, oa, ob, own_lo):
    cl[s, K_DOC] = doc
    cl[s, K_DIAG] = diag
    cl[s, K_OMIN] = oa
    cl[s, K_OMAX] = ob
    cl[s, K_COV] = ob - oa
    cl[s, K_OWN] = max(0, ob - max(oa, own_lo))
    cl[s, K_PMIN] = p_at
    cl[s, K_PMAX] = p_at + ob - oa


@njit(cache=True)
def _join(cl, s, doc, p_at, oa, ob, own_lo, part_len, typ, cand, n_cand):
    """Run ``[oa, ob)`` of item ``s``'s part at document position ``p_at`` into its cluster: merged
    when it carries the part further on a nearby diagonal; past the cluster's end (a gap of more
    than :data:`GAP`) it starts a new one; inside it but off the cluster's diagonal (a phrase the
    part repeats, another copy) it replaces the cluster only when longer than all the cluster
    covers, else it stands as its own candidate or is ignored."""
    diag = p_at - oa
    if cl[s, K_DOC] != doc:
        _start(cl, s, doc, diag, p_at, oa, ob, own_lo)
        return n_cand
    if p_at - cl[s, K_PMAX] > GAP:
        n_cand = _emit(cl, s, part_len, typ, cand, n_cand)
        _start(cl, s, doc, diag, p_at, oa, ob, own_lo)
        return n_cand
    if ob > cl[s, K_OMAX] and abs(diag - cl[s, K_DIAG]) <= DIAG_TOL:
        top = cl[s, K_OMAX]
        cl[s, K_COV] += max(0, ob - max(oa, top))
        cl[s, K_OWN] += max(0, ob - max(oa, top, own_lo))
        cl[s, K_OMAX] = ob
        cl[s, K_OMIN] = min(cl[s, K_OMIN], oa)
        cl[s, K_PMIN] = min(cl[s, K_PMIN], p_at)
        cl[s, K_PMAX] = max(cl[s, K_PMAX], p_at + ob - oa)
        cl[s, K_DIAG] = diag
        return n_cand
    if ob - oa > cl[s, K_COV]:
        n_cand = _emit(cl, s, part_len, typ, cand, n_cand)
        _start(cl, s, doc, diag, p_at, oa, ob, own_lo)
        return n_cand
    if ob - oa >= COV_MIN * part_len and n_cand < cand.shape[0]:   # a copy of its own
        keep = cl[s].copy()
        _start(cl, s, doc, diag, p_at, oa, ob, own_lo)
        n_cand = _emit(cl, s, part_len, typ, cand, n_cand)
        cl[s] = keep
    return n_cand


@njit(cache=True)
def _quote(s, doc, rel, length, qlen, qdoc, qpos):
    """Offer a run to item ``s``'s longest runs (ties: the earlier stays first). True if taken."""
    if length <= qlen[s, QUOTES - 1]:
        return False
    k = QUOTES - 1
    while k > 0 and qlen[s, k - 1] < length:
        qlen[s, k] = qlen[s, k - 1]
        qdoc[s, k] = qdoc[s, k - 1]
        qpos[s, k] = qpos[s, k - 1]
        k -= 1
    qlen[s, k] = length
    qdoc[s, k] = doc
    qpos[s, k] = rel
    return True


@njit(cache=True)
def _settle(cand, n_cand, sim, th, a, b, doc, tab, best, bsim, found_doc, dp, g_first, q_stamp):
    """Steps 1-4 of :mod:`._verify` for one document's candidates; each item's best evidence
    updated (``best[8]`` marks the items whose best changed). Returns how many changed."""
    stok, soff, q_own, q_end, g_lo, g_hi, bench, ptok, poff, gold_part, opt_lo, opt_hi, q_seeded = tab
    for c in range(n_cand):                        # gold clusters chained per item
        if cand[c, C_TYPE] == 1:
            s = cand[c, C_ITEM]
            cand[c, C_NEXT] = g_first[s]
            g_first[s] = c
    for c in range(n_cand):
        if cand[c, C_TYPE] == 0:
            verify_question(c, cand, th, a, b, stok, soff, q_own, q_end, dp, sim)
    for c in range(n_cand):                        # items with a question found here
        if cand[c, C_TYPE] == 0 and cand[c, C_KEEP] == 1:
            q_stamp[cand[c, C_ITEM]] = doc
    n_extra = n_cand
    for c in range(n_cand):      # questions not found from seeds (short, or template words):
        if cand[c, C_TYPE] != 1 or n_extra >= cand.shape[0]:   # from their answer
            continue
        s = cand[c, C_ITEM]
        if q_seeded[s] or q_stamp[s] == doc or q_end[s] > LCS_MAX or \
                cand[c, C_COV] < TAU_G * (g_hi[s] - g_lo[s]):
            continue
        lo = soff[s]
        x, y = find_near(stok[lo:lo + q_end[s]], th, a, b, cand[c, C_PMIN], cand[c, C_PMAX], WINDOW,
                         True)
        if x < 0:
            continue
        e = n_extra
        cand[e, C_TYPE] = 0
        cand[e, C_ITEM] = s
        cand[e, C_A] = x
        cand[e, C_B] = y
        cand[e, C_M] = y - x
        cand[e, C_KEEP] = 1
        sim[e] = 1.0
        n_extra += 1
    compete(cand, sim, n_extra, bench)
    changed = 0
    for c in range(n_extra):
        if cand[c, C_TYPE] != 0 or cand[c, C_KEEP] != 1:
            continue
        s = cand[c, C_ITEM]
        span_a, span_b = cand[c, C_A], cand[c, C_B]
        ga, gb = gold_near(s, cand, g_first, span_a, span_b, a, b, th, ptok, poff, gold_part, g_lo, g_hi, dp)
        n_opts = opt_hi[s] - opt_lo[s]
        opts = options_near(s, span_a, span_b, a, b, th, ptok, poff, opt_lo, opt_hi) if n_opts >= 2 else 0
        kind = 3 if n_opts >= 2 and opts == n_opts else 2 if ga >= 0 else 1
        if found_doc[s] != doc:
            found_doc[s] = doc
            best[9, s] += 1                         # documents holding it
        m = cand[c, C_M]
        if kind > best[0, s] or (kind == best[0, s] and (sim[c] > bsim[s] + 1e-12 or (
                abs(sim[c] - bsim[s]) <= 1e-12 and m > best[1, s]))):
            best[0, s] = kind
            bsim[s] = sim[c]
            best[1, s] = m
            best[2, s] = doc
            best[3, s] = span_a - a
            best[4, s] = span_b - a
            best[5, s] = ga - a if ga >= 0 else -1
            best[6, s] = gb - a if ga >= 0 else -1
            best[7, s] = opts
            best[8, s] = 1                          # changed in this batch
            changed += 1
    for c in range(n_cand):
        if cand[c, C_TYPE] == 1:
            g_first[cand[c, C_ITEM]] = -1
    return changed


@njit(cache=True)
def _extend(th, stok, i, g, a, b, lo, hi):
    """The exact match of the stream ``stok[lo:hi]`` at position ``g`` and the document
    ``th[a:b]`` at ``i``, extended forward to the first mismatch and back (at most
    :data:`MAX_BACK`): (document start, stream start, length)."""
    n = 0
    while i + n < b and g + n < hi and th[i + n] == stok[g + n]:
        n += 1
    back = 0
    if n >= 4:
        while back < MAX_BACK and i - back > a and g - back > lo and th[i - back - 1] == stok[g - back - 1]:
            back += 1
    return i - back, g - back, n + back


@njit(cache=True)
def _count(sizes, cnt, last, gs, n, lo, length, doc):
    """Each window of the published rules a run of ``n`` tokens at stream position ``gs`` holds
    (the whole stream of a short item), counted once per document."""
    for z in range(sizes.size):
        nz = sizes[z]
        if length >= nz:
            for w in range(gs, gs + n - nz + 1):
                if last[z, w] != doc:
                    last[z, w] = doc
                    cnt[z, w] += 1
        elif n == length and last[z, lo] != doc:
            last[z, lo] = doc
            cnt[z, lo] += 1


@njit(cache=True)
def _clusters(cq, cg, s, doc, p, gs, n, lo, q_own, q_end, g_lo, g_hi, cand, n_cand):
    """The run (document ``p``, stream ``gs``, ``n`` tokens) into item ``s``'s question cluster
    and, where it covers the gold answer, its gold cluster."""
    oa = max(gs, lo)
    ob = min(gs + n, lo + q_end[s])
    if oa < ob:
        n_cand = _join(cq, s, doc, p + oa - gs, oa - lo, ob - lo, q_own[s], q_end[s], 0, cand, n_cand)
    if g_lo[s] >= 0:
        oa = max(gs, lo + g_lo[s])
        ob = min(gs + n, lo + g_hi[s])
        if oa < ob:
            n_cand = _join(cg, s, doc, p + oa - gs, oa - lo - g_lo[s], ob - lo - g_lo[s], 0,
                           g_hi[s] - g_lo[s], 1, cand, n_cand)
    return n_cand


@njit(cache=True)
def scan_batch(th, pre, doc_tok, doc_base, pw4, tab, seeds, sizes, cnt, last, runs, cq, cg,
               qlen, qdoc, qpos, qn, qmark, best, bsim, found_doc, touched, touch_doc, cand, sim,
               dp, g_first, q_stamp):
    """Scan documents ``doc_tok[d]:doc_tok[d+1]`` of a batch (global numbers ``doc_base + d``) into
    the state arrays (see the module); returns the number of items whose quotes changed (their
    ``qmark`` is ``doc_base``)."""
    stok, soff, q_own, q_end, g_lo, g_hi, bench, ptok, poff, gold_part, opt_lo, opt_hi, q_seeded = tab
    post_item, seed_tk, seed_tv, post_off, post, single, seed_of, gate = seeds
    n_quoted = 0
    for d in range(doc_tok.size - 1):
        a = doc_tok[d]
        b = doc_tok[d + 1]
        doc = doc_base + d
        n_touch = 0
        n_cand = 0
        cur_end = -1
        cur_diag = 0
        for i in range(a, b - 3):
            if i + 4 <= cur_end:           # inside the current run: its stream says which seed
                g0 = i - cur_diag
                if single[g0]:
                    continue
                e = seed_of[g0]
            else:
                key = ngram_key_at(pre, pw4, i, 4)
                if not gated(gate, key):
                    continue
                e = find_slot(seed_tk, seed_tv, key)
            if e < 0:
                continue
            for j in range(post_off[e], post_off[e + 1]):
                g = post[j]
                s = post_item[j]
                diag = i - g
                if runs[s, 0] == doc and runs[s, 1] == diag and runs[s, 2] > i:
                    continue
                lo = soff[s]
                hi = soff[s + 1]
                p, gs, n = _extend(th, stok, i, g, a, b, lo, hi)
                if n < 4:
                    continue
                if n < SHORT_RUN and q_end[s] >= 2 * SHORT_RUN and \
                        (g_lo[s] < 0 or g_hi[s] - g_lo[s] >= 2 * SHORT_RUN):
                    continue   # counts no window, quotes nothing, cannot carry half of a part
                if runs[s, 0] != doc or p + n >= runs[s, 2]:   # the item's furthest-reaching run
                    runs[s, 0] = doc
                    runs[s, 1] = diag
                    runs[s, 2] = p + n
                if p + n > cur_end:
                    cur_end = p + n
                    cur_diag = diag
                if touch_doc[s] != doc:
                    touch_doc[s] = doc
                    touched[n_touch] = s
                    n_touch += 1
                length = hi - lo
                _count(sizes, cnt, last, gs, n, lo, length, doc)
                if n >= min(sizes[0], length):
                    qn[s] += 1
                    if _quote(s, doc, p - a, n, qlen, qdoc, qpos) and qmark[s] != doc_base:
                        qmark[s] = doc_base
                        n_quoted += 1
                n_cand = _clusters(cq, cg, s, doc, p, gs, n, lo, q_own, q_end, g_lo, g_hi, cand, n_cand)
                if n_cand > cand.shape[0] - 8:   # the buffer is full: settle what it holds now
                    _settle(cand, n_cand, sim, th, a, b, doc, tab, best, bsim, found_doc, dp, g_first,
                            q_stamp)
                    n_cand = 0
        for t in range(n_touch):
            s = touched[t]
            if n_cand > cand.shape[0] - 8:
                _settle(cand, n_cand, sim, th, a, b, doc, tab, best, bsim, found_doc, dp, g_first,
                        q_stamp)
                n_cand = 0
            if cq[s, K_DOC] == doc:
                n_cand = _emit(cq, s, q_end[s], 0, cand, n_cand)
            if cg[s, K_DOC] == doc:
                n_cand = _emit(cg, s, g_hi[s] - g_lo[s], 1, cand, n_cand)
        if n_cand:
            _settle(cand, n_cand, sim, th, a, b, doc, tab, best, bsim, found_doc, dp, g_first, q_stamp)
    return n_quoted
