"""Private numba kernels of the scorer: plain, contiguous arrays in, arrays out, no validation.

Everything here is called through the validated functions of :mod:`._roc`, :mod:`._bootstrap` and
:mod:`._rates`; do not call these directly.

Sorting: scores are mapped to unsigned 64-bit keys whose ascending order is the *descending* order
of the scores (the IEEE-754 bit trick: flip the sign bit of non-negative numbers, all bits of
negative ones, then complement), and sorted by a stable LSD radix sort with 8-bit digits. Digit
passes in which every key has the same digit (the high bits of scores in a narrow range) are skipped.
Unweighted AUC / ROC take a shorter road: positives' and negatives' scores are sorted separately by
``np.sort`` (SIMD, no payload needed) and walked together from the top (:func:`merge_auc`,
:func:`merge_curve`); the radix sort serves the weighted case and the bootstrap, which need a
payload sorted along with the keys.

Random numbers: each bootstrap resample ``b`` owns a SplitMix64 stream seeded from ``(seed, b)``, so
results are identical whatever the number of threads running the ``prange`` loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

_SIGN = np.uint64(0x8000000000000000)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_STREAM = np.uint64(0xD1B54A32D192ED03)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_BITS = 8
_RADIX = 1 << _BITS
_MASK = np.uint64(_RADIX - 1)


@njit(cache=True)
def desc_keys(scores):
    """uint64 keys: ascending key order == descending score order (-0.0 equals 0.0)."""
    n = scores.size
    bits = scores.view(np.uint64)
    out = np.empty(n, np.uint64)
    for i in range(n):
        u = bits[i]
        if u == _SIGN:  # -0.0
            u = np.uint64(0)
        if u & _SIGN:
            asc = u ^ _ALL
        else:
            asc = u | _SIGN
        out[i] = asc ^ _ALL
    return out


@njit(cache=True)
def keys_to_scores(keys):
    """Inverse of :func:`desc_keys` (thresholds are read back from sorted keys, no gather)."""
    n = keys.size
    out = np.empty(n, np.uint64)
    for i in range(n):
        asc = keys[i] ^ _ALL
        if asc & _SIGN:
            out[i] = asc ^ _SIGN
        else:
            out[i] = asc ^ _ALL
    return out.view(np.float64)


@njit(cache=True)
def radix_sort(keys, payload):
    """Stable ascending sort of uint64 ``keys`` carrying ``payload`` along (LSD radix, 8-bit
    digits, passes whose digit is constant skipped). Returns ``(sorted_keys, sorted_payload)``."""
    n = keys.size
    n_pass = (64 + _BITS - 1) // _BITS
    hist = np.zeros((n_pass, _RADIX), np.int64)
    for i in range(n):
        k = keys[i]
        for p in range(n_pass):
            hist[p, np.int64((k >> np.uint64(p * _BITS)) & _MASK)] += 1
    src_k = keys.copy()
    src_p = payload.copy()
    dst_k = np.empty(n, np.uint64)
    dst_p = np.empty_like(payload)
    offsets = np.empty(_RADIX, np.int64)
    for p in range(n_pass):
        skip = False
        for d in range(_RADIX):
            if hist[p, d] == n:
                skip = True
                break
        if skip:
            continue
        total = 0
        for d in range(_RADIX):
            offsets[d] = total
            total += hist[p, d]
        shift = np.uint64(p * _BITS)
        for i in range(n):
            k = src_k[i]
            digit = np.int64((k >> shift) & _MASK)
            j = offsets[digit]
            offsets[digit] = j + 1
            dst_k[j] = k
            dst_p[j] = src_p[i]
        src_k, dst_k = dst_k, src_k
        src_p, dst_p = dst_p, src_p
    return src_k, src_p


@njit(cache=True)
def merge_auc(pos, neg):
    """Mann-Whitney area (ties one half), unnormalised, of ascending-sorted positive and negative
    scores: the trapezoid sum of the ROC curve walked from the highest score down."""
    i = pos.size - 1
    j = neg.size - 1
    tp = 0.0
    area = 0.0
    while i >= 0 or j >= 0:
        if j < 0 or (i >= 0 and pos[i] > neg[j]):
            v = pos[i]
        else:
            v = neg[j]
        gtp = 0.0
        gfp = 0.0
        while i >= 0 and pos[i] == v:
            gtp += 1.0
            i -= 1
        while j >= 0 and neg[j] == v:
            gfp += 1.0
            j -= 1
        area += gfp * (tp + tp + gtp) * 0.5
        tp += gtp
    return area


@njit(cache=True)
def merge_curve(pos, neg):
    """(thresholds, cumulative fps, cumulative tps) per distinct score, highest first, from
    ascending-sorted positive and negative scores (``_binary_clf_curve`` without weights)."""
    n = pos.size + neg.size
    thr = np.empty(n, np.float64)
    fps = np.empty(n, np.float64)
    tps = np.empty(n, np.float64)
    i = pos.size - 1
    j = neg.size - 1
    tp = 0.0
    fp = 0.0
    g = 0
    while i >= 0 or j >= 0:
        if j < 0 or (i >= 0 and pos[i] > neg[j]):
            v = pos[i]
        else:
            v = neg[j]
        while i >= 0 and pos[i] == v:
            tp += 1.0
            i -= 1
        while j >= 0 and neg[j] == v:
            fp += 1.0
            j -= 1
        thr[g] = v
        fps[g] = fp
        tps[g] = tp
        g += 1
    return thr[:g], fps[:g], tps[:g]


@njit(cache=True)
def group_ends(sorted_keys):
    """Exclusive end position of each run of equal keys."""
    n = sorted_keys.size
    count = 0
    for i in range(n):
        if i == n - 1 or sorted_keys[i + 1] != sorted_keys[i]:
            count += 1
    out = np.empty(count, np.int64)
    g = 0
    for i in range(n):
        if i == n - 1 or sorted_keys[i + 1] != sorted_keys[i]:
            out[g] = i + 1
            g += 1
    return out


@njit(cache=True)
def clf_curve(ends, y_sorted, w_sorted):
    """Cumulative false/true positive weight at the end of each tie group (scikit-learn's
    ``_binary_clf_curve`` on already-sorted data)."""
    g_n = ends.size
    fps = np.empty(g_n, np.float64)
    tps = np.empty(g_n, np.float64)
    tp = 0.0
    fp = 0.0
    start = 0
    for g in range(g_n):
        for i in range(start, ends[g]):
            if y_sorted[i]:
                tp += w_sorted[i]
            else:
                fp += w_sorted[i]
        fps[g] = fp
        tps[g] = tp
        start = ends[g]
    return fps, tps


@njit(cache=True)
def _metrics_one(ends, y_sorted, w_sorted, flag_sorted, counts, fpr_target, out, work):
    """AUC, TPR at FPR <= target, and TPR / FPR / precision of flags, under weights
    ``w * counts``; writes ``out[0:5]`` (nan where undefined). ``work`` is a (2, groups) scratch
    array: one pass over the items fills per-group sums, a short pass over the groups follows."""
    ftp = 0.0
    ffp = 0.0
    p_tot = 0.0
    n_tot = 0.0
    start = 0
    for g in range(ends.size):
        gtp = 0.0
        gfp = 0.0
        for i in range(start, ends[g]):
            c = counts[i]
            if c == 0:
                continue
            w = w_sorted[i] * c
            if y_sorted[i]:
                gtp += w
                if flag_sorted[i] == 1:
                    ftp += w
            else:
                gfp += w
                if flag_sorted[i] == 1:
                    ffp += w
        work[0, g] = gtp
        work[1, g] = gfp
        p_tot += gtp
        n_tot += gfp
        start = ends[g]
    tp = 0.0
    fp = 0.0
    area = 0.0
    best_tpr = 0.0
    for g in range(ends.size):
        gtp = work[0, g]
        gfp = work[1, g]
        area += gfp * (tp + tp + gtp) * 0.5
        tp += gtp
        fp += gfp
        if n_tot > 0.0 and p_tot > 0.0 and fp / n_tot <= fpr_target:
            t = tp / p_tot
            if t > best_tpr:
                best_tpr = t
    if p_tot > 0.0 and n_tot > 0.0:
        out[0] = area / (p_tot * n_tot)
        out[1] = best_tpr
    else:
        out[0] = np.nan
        out[1] = np.nan
    out[2] = ftp / p_tot if p_tot > 0.0 else np.nan
    out[3] = ffp / n_tot if n_tot > 0.0 else np.nan
    out[4] = ftp / (ftp + ffp) if ftp + ffp > 0.0 else np.nan


@njit(cache=True)
def metrics(ends, y_sorted, w_sorted, flag_sorted, fpr_target):
    """The five metrics of :func:`_metrics_one` on the data as given (all counts 1)."""
    out = np.empty(5, np.float64)
    _metrics_one(ends, y_sorted, w_sorted, flag_sorted, np.ones(y_sorted.size, np.int32),
                 fpr_target, out, np.empty((2, ends.size), np.float64))
    return out


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _fill_counts(n, seed, b, counts):
    """Multinomial(n, uniform) resample counts of stream ``b`` into ``counts`` (length n)."""
    for i in range(n):
        counts[i] = 0
    state = _mix(seed ^ (np.uint64(b) * _STREAM + _GOLDEN))
    nn = np.uint64(n)
    for _ in range(n):
        state = state + _GOLDEN
        r = _mix(state)
        j = np.int64(((r >> np.uint64(32)) * nn) >> np.uint64(32))
        counts[j] += 1


@njit(cache=True, parallel=True)
def bootstrap_metrics(ends, y_sorted, w_sorted, flag_sorted, fpr_target, n_boot, seed):
    """(n_boot x 5) metrics of :func:`_metrics_one`, one resample of positions per row."""
    n = y_sorted.size
    out = np.empty((n_boot, 5), np.float64)
    for b in prange(n_boot):
        counts = np.empty(n, np.int32)
        work = np.empty((2, ends.size), np.float64)
        _fill_counts(n, seed, b, counts)
        _metrics_one(ends, y_sorted, w_sorted, flag_sorted, counts, fpr_target, out[b], work)
    return out


@njit(cache=True, parallel=True)
def count_matrix(m, b_start, b_stop, seed):
    """Resample counts of streams ``b_start .. b_stop - 1`` as rows of a float64 matrix; the rate
    table multiplies it with the (instances x submissions) indicator matrices (BLAS)."""
    out = np.empty((b_stop - b_start, m), np.float64)
    for k in prange(b_stop - b_start):
        _fill_counts(m, seed, b_start + k, out[k])
    return out
