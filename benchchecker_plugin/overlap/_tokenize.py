"""The normaliser of :mod:`._normalize` as one pass over UTF-8 bytes (numba), with raw offsets.

:func:`tokenize` turns a batch of documents into their token stream: per token its FNV-1a hash,
its raw span in code points of its own document (``text[ts:te]`` quotes it as stored), per
document its token range, and the polynomial prefix hashes of the stream (any window's key in
O(1)). Every step of the reference is done in the same pass: storage escapes, character
references and mojibake are decoded as each character is read; tags, link targets and line-end
hyphens are found by looking ahead a bounded number of characters (a tag scan stops at the next
``<``, so the scans never overlap and the pass stays linear). Plain ASCII takes a table look-up.
The offset of every token in code points is counted as the bytes go by, so the map back to the
raw text costs nothing extra.
"""

from __future__ import annotations

import html.entities
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numba import njit

from ._fold import DROP, MAPPED, SAME, fold_table
from ._normalize import CP1252, ENTITIES, FNV_OFFSET, HYPHEN_SPACES, LINK_MAX, TAG_MAX, token_hash

_FNV_PRIME = np.uint64(0x100000001B3)
_BASE = np.uint64(0x9E3779B97F4A7C15)
_FNV0 = np.uint64(FNV_OFFSET)

# ASCII: the lower-cased token character, or 0 (a separator)
_ASCII = np.array([c + 32 if 65 <= c <= 90 else c if (97 <= c <= 122 or 48 <= c <= 57) else 0
                   for c in range(128)], np.int32)
# bytes that need more than a table look-up: \ & < ] - , and every non-ASCII lead
_SPECIAL = np.zeros(256, np.bool_)
for _c in (0x5C, 0x26, 0x3C, 0x5D, 0x2D, 0x2C):
    _SPECIAL[_c] = True
_SPECIAL[0x80:] = True
_HEXVAL = np.full(256, -1, np.int32)
for _c in range(10):
    _HEXVAL[48 + _c] = _c
for _c in range(6):
    _HEXVAL[65 + _c] = _HEXVAL[97 + _c] = 10 + _c
_CP1252 = np.full(0x2123, -1, np.int32)      # code point -> the Windows-1252 byte it stands for
for _cp, _b in CP1252.items():
    _CP1252[_cp] = _b
for _c in range(0x80, 0xC0):
    _CP1252[_c] = _c


def _entity_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    names = sorted(ENTITIES, key=token_hash)
    hashes = np.array([token_hash(n) for n in names], np.uint64)
    first = np.array([ord(ENTITIES[n][0]) for n in names], np.int32)
    second = np.array([ord(ENTITIES[n][1]) if len(ENTITIES[n]) > 1 else -1 for n in names], np.int32)
    assert len(set(hashes.tolist())) == len(names) == len(html.entities.html5) - 106
    return hashes, first, second


_ENT_HASH, _ENT_FIRST, _ENT_SECOND = _entity_tables()


@njit(cache=True, inline="always")
def _char(buf, p):
    """The code point of the UTF-8 character at ``p`` and its byte length."""
    c = np.int64(buf[p])
    if c < 0x80:
        return c, 1
    if c >= 0xF0:
        return ((c & 0x07) << 18) | ((np.int64(buf[p + 1]) & 0x3F) << 12) | \
            ((np.int64(buf[p + 2]) & 0x3F) << 6) | (np.int64(buf[p + 3]) & 0x3F), 4
    if c >= 0xE0:
        return ((c & 0x0F) << 12) | ((np.int64(buf[p + 1]) & 0x3F) << 6) | (np.int64(buf[p + 2]) & 0x3F), 3
    return ((c & 0x1F) << 6) | (np.int64(buf[p + 1]) & 0x3F), 2


@njit(cache=True, inline="always")
def _hex(buf, at, end, digits):
    if at + digits > end:
        return -1
    v = np.int64(0)
    for k in range(digits):
        d = _HEXVAL[buf[at + k]]
        if d < 0:
            return -1
        v = v * 16 + d
    return v


@njit(cache=True, inline="always")
def _slashes(buf, at, end):
    while at < end and buf[at] == 0x5C:
        at += 1
    return at


@njit(cache=True)
def _escape(buf, p, end):
    """A backslash run at ``p``: (code point, -1, end byte)."""
    j = _slashes(buf, p, end)
    e = buf[j] if j < end else 0
    if e == 0x75:                                    # u
        cp = _hex(buf, j + 1, end, 4)
        if cp >= 0:
            q = j + 5
            if 0xD800 <= cp < 0xDC00:
                k = _slashes(buf, q, end)
                if k > q and k < end and buf[k] == 0x75:
                    lo = _hex(buf, k + 1, end, 4)
                    if 0xDC00 <= lo < 0xE000:
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                        q = k + 5
            if 0xD800 <= cp < 0xE000:
                cp = 0
            return cp, -1, q
    elif e == 0x55:                                  # U
        cp = _hex(buf, j + 1, end, 8)
        if 0 <= cp < 0x110000:
            return (0 if 0xD800 <= cp < 0xE000 else cp), -1, j + 9
    elif e == 0x78:                                  # x
        cp = _hex(buf, j + 1, end, 2)
        if cp >= 0:
            return cp, -1, j + 3
    if e == 0x6E:
        return 10, -1, j + 1
    if e == 0x74:
        return 9, -1, j + 1
    if e == 0x72:
        return 13, -1, j + 1
    if e == 0x66:
        return 12, -1, j + 1
    if e == 0x62:
        return 8, -1, j + 1
    if e == 0x76:
        return 11, -1, j + 1
    if e == 0x22 or e == 0x27 or e == 0x2F:
        return np.int64(e), -1, j + 1
    return 0x5C, -1, j


@njit(cache=True)
def _entity(buf, p, end, ent_hash, ent_first, ent_second):
    """An HTML character reference at ``p``: (code point, second or -1, end byte); (-1, ...) if
    there is none. The body is ASCII, so bytes are code points until the ``;``."""
    q = p + 1
    while q < end and q < p + 34 and buf[q] != 0x3B:
        if buf[q] >= 0x80:
            return -1, -1, p
        q += 1
    if q >= end or q >= p + 34 or q == p + 1:
        return -1, -1, p
    if buf[p + 1] == 0x23:                            # #
        base = 10
        a = p + 2
        if a < q and (buf[a] == 0x78 or buf[a] == 0x58):
            base = 16
            a += 1
        n = q - a
        if n == 0 or n > (6 if base == 16 else 7):
            return -1, -1, p
        v = np.int64(0)
        for k in range(a, q):
            d = _HEXVAL[buf[k]]
            if d < 0 or d >= base:
                return -1, -1, p
            v = v * base + d
        if 0 < v < 0x110000 and not (0xD800 <= v < 0xE000):
            return v, -1, q + 1
        return -1, -1, p
    c0 = buf[p + 1]
    if not ((65 <= c0 <= 90) or (97 <= c0 <= 122)):
        return -1, -1, p
    h = _FNV0
    for k in range(p + 1, q):
        c = buf[k]
        if not ((48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122)):
            return -1, -1, p
        h = (h ^ np.uint64(c)) * _FNV_PRIME
    at = np.searchsorted(ent_hash, h)
    if at < ent_hash.size and ent_hash[at] == h:
        return np.int64(ent_first[at]), np.int64(ent_second[at]), q + 1
    return -1, -1, p


@njit(cache=True)
def _mojibake(buf, p, end, lead):
    """The UTF-8 bytes of one character read as Windows-1252 at ``p`` (``lead``: the first
    character's code point, 0xC2-0xF4): (code point, end byte), or (-1, p)."""
    size = 2 if lead <= 0xDF else 3 if lead <= 0xEF else 4
    q = p + 2                                      # the lead is a two-byte character
    v = np.int64(lead & (0x1F if size == 2 else 0x0F if size == 3 else 0x07))
    for k in range(1, size):
        if q >= end:
            return -1, p
        c, w = _char(buf, q)
        b = _CP1252[c] if c < _CP1252.size else -1
        if b < 0x80 or b > 0xBF:
            return -1, p
        if k == 1:
            if (lead == 0xE0 and b < 0xA0) or (lead == 0xED and b > 0x9F) or \
                    (lead == 0xF0 and b < 0x90) or (lead == 0xF4 and b > 0x8F):
                return -1, p
        v = (v << 6) | (b & 0x3F)
        q += w
    return v, q


@njit(cache=True)
def _unit(buf, p, start, end, ent_hash, ent_first, ent_second):
    """Step 1 at byte ``p`` of the document ``buf[start:end]``: (code point, second code point or
    -1, end byte)."""
    c = buf[p]
    if c == 0x5C:
        return _escape(buf, p, end)
    if c == 0x26:
        a, b, q = _entity(buf, p, end, ent_hash, ent_first, ent_second)
        if a >= 0:
            return a, b, q
        return np.int64(0x26), -1, p + 1
    if c < 0x80:
        return np.int64(c), -1, p + 1
    cp, w = _char(buf, p)
    if 0xC2 <= cp <= 0xF4:
        v, q = _mojibake(buf, p, end, cp)
        if v >= 0:
            return v, -1, q
        if 0xD0 <= cp <= 0xD5 and (p == start or buf[p - 1] < 0x80) and (p + 2 == end or buf[p + 2] < 0x80):
            return np.int64(0), -1, p + 2
    return cp, -1, p + w


@njit(cache=True)
def _close(buf, q, start, end, closer, opener, limit, stop_spaces, ent_hash, ent_first, ent_second):
    """From byte ``q`` (the unit after the opener's next one), the end byte of the first
    ``closer`` unit within ``limit`` units, before any ``opener`` (or space, with
    ``stop_spaces``); -1 if none."""
    n = 0
    while q < end and n < limit:
        a, b, r = _unit(buf, q, start, end, ent_hash, ent_first, ent_second)
        for cp in (a, b):
            if cp < 0:
                continue
            if n >= limit:
                return -1
            n += 1
            if cp == closer:
                return r
            if cp == opener or (stop_spaces and (cp == 0x20 or cp == 0x09 or cp == 0x0A or cp == 0x0D)):
                return -1
        q = r
    return -1


@njit(cache=True)
def _spaces(buf, q, start, end, ent_hash, ent_first, ent_second):
    """Past at most HYPHEN_SPACES space or tab units from byte ``q``."""
    n = 0
    while q < end and n < HYPHEN_SPACES:
        a, b, r = _unit(buf, q, start, end, ent_hash, ent_first, ent_second)
        if a != 0x20 and a != 0x09:
            break
        n += 1
        q = r
    return q


@njit(cache=True)
def _hyphen(buf, q, start, end, ent_hash, ent_first, ent_second):
    """After a line-end hyphen (its unit ends at ``q``): the byte of the lower-case ASCII letter
    that continues the word (spaces, one line break, spaces before it), or -1."""
    q = _spaces(buf, q, start, end, ent_hash, ent_first, ent_second)
    if q >= end:
        return -1
    a, b, r = _unit(buf, q, start, end, ent_hash, ent_first, ent_second)
    if a == 0x0D:
        q = r
        if q < end:
            a2, b2, r2 = _unit(buf, q, start, end, ent_hash, ent_first, ent_second)
            if a2 == 0x0A:
                q = r2
    elif a == 0x0A:
        q = r
    else:
        return -1
    q = _spaces(buf, q, start, end, ent_hash, ent_first, ent_second)
    if q < end:
        a, b, r = _unit(buf, q, start, end, ent_hash, ent_first, ent_second)
        if 0x61 <= a <= 0x7A:
            return q
    return -1


@njit(cache=True)
def _thousands(buf, q, start, end, ent_hash, ent_first, ent_second):
    """After a comma that follows a digit (its unit ends at ``q``): ``q`` when exactly three digits
    follow, else -1."""
    r = q
    for k in range(4):
        if r >= end:
            return q if k == 3 else -1
        a, b, r2 = _unit(buf, r, start, end, ent_hash, ent_first, ent_second)
        digit = 0x30 <= a <= 0x39
        if k < 3 and not digit:
            return -1
        if k == 3:
            return -1 if digit else q
        r = r2
    return -1


@njit(cache=True, inline="always")
def _cps(buf, p, q):
    n = 0
    for k in range(p, q):
        if (buf[k] & 0xC0) != 0x80:
            n += 1
    return n


@njit(cache=True, inline="always")
def _hash_cp(h, cp):
    """FNV-1a over the UTF-8 bytes of ``cp``."""
    if cp < 0x80:
        return (h ^ np.uint64(cp)) * _FNV_PRIME
    if cp < 0x800:
        h = (h ^ np.uint64(0xC0 | (cp >> 6))) * _FNV_PRIME
    elif cp < 0x10000:
        h = (h ^ np.uint64(0xE0 | (cp >> 12))) * _FNV_PRIME
        h = (h ^ np.uint64(0x80 | ((cp >> 6) & 0x3F))) * _FNV_PRIME
    else:
        h = (h ^ np.uint64(0xF0 | (cp >> 18))) * _FNV_PRIME
        h = (h ^ np.uint64(0x80 | ((cp >> 12) & 0x3F))) * _FNV_PRIME
        h = (h ^ np.uint64(0x80 | ((cp >> 6) & 0x3F))) * _FNV_PRIME
    return (h ^ np.uint64(0x80 | (cp & 0x3F))) * _FNV_PRIME


@njit(cache=True, inline="always")
def _push(th, ts, te, pre, n, acc, h, tstart, tend):
    """Token ``n`` stored, the prefix hash extended."""
    th[n] = h
    ts[n] = tstart
    te[n] = tend
    acc = acc * _BASE + h
    pre[n + 1] = acc
    return n + 1, acc


@njit(cache=True)
def _lookahead(buf, a, b, q, prev, start, end, ent_hash, ent_first, ent_second):
    """For the unit ``(a, b)`` ending at byte ``q`` (``prev``: the unit before): the end byte of a
    tag or link target it opens (steps 2), the byte where a word it joins continues (step 3);
    -1 for none."""
    if a == 0x3C and q < end:
        a2, b2, q2 = _unit(buf, q, start, end, ent_hash, ent_first, ent_second)
        if a2 == 0x2F or a2 == 0x21 or a2 == 0x3F or (65 <= a2 <= 90) or (97 <= a2 <= 122):
            return _close(buf, q2, start, end, 0x3E, 0x3C, TAG_MAX - (1 if b2 >= 0 else 0),
                          False, ent_hash, ent_first, ent_second), -1
    elif a == 0x5D and q < end:
        a2, b2, q2 = _unit(buf, q, start, end, ent_hash, ent_first, ent_second)
        if a2 == 0x28:
            return _close(buf, q2, start, end, 0x29, 0x28, LINK_MAX - (1 if b2 >= 0 else 0),
                          True, ent_hash, ent_first, ent_second), -1
    elif (a == 0x2D or a == 0x2010) and b < 0 and ((65 <= prev <= 90) or (97 <= prev <= 122)):
        return -1, _hyphen(buf, q, start, end, ent_hash, ent_first, ent_second)
    elif a == 0x2C and 0x30 <= prev <= 0x39:
        return -1, _thousands(buf, q, start, end, ent_hash, ent_first, ent_second)
    return -1, -1


@njit(cache=True, inline="always")
def _folded(cp, kind, offset, length):
    """What code point ``cp`` folds to: (outputs, the one output or 0, offset into the table's
    data or -1, dropped)."""
    if cp < 0x80:
        return 1, np.int64(_ASCII[cp]), -1, False
    kc = kind[cp]
    if kc == SAME:
        return 1, cp, -1, False
    if kc == DROP:
        return 0, 0, -1, True
    if kc == MAPPED:
        return np.int64(length[cp]), 0, np.int64(offset[cp]), False
    return 1, 0, -1, False


@njit(cache=True)
def tokenize(buf, doc_ends, kind, offset, length, data, ent_hash, ent_first, ent_second,
             th, ts, te, doc_tok, pre):
    """Tokens of the documents ``buf[doc_ends[d-1]:doc_ends[d]]`` (UTF-8): hashes into ``th``, raw
    code-point offsets (within the document) into ``ts``/``te``, prefix hashes into ``pre``;
    ``doc_tok[d]:doc_tok[d+1]`` are document d's tokens. Returns the number of tokens (stops, and
    returns -1, if ``th`` is too small)."""
    n = 0
    cap = th.size
    p0 = 0
    acc = np.uint64(0)
    pre[0] = acc
    for d in range(doc_ends.size):
        doc_tok[d] = n
        start = p0
        end = doc_ends[d]
        p = start
        cpos = tstart = tend = prev = 0
        inside = False
        h = _FNV0
        while p < end:
            c = buf[p]
            if not _SPECIAL[c]:                     # plain ASCII
                lc = _ASCII[c]
                if lc != 0:
                    if not inside:
                        inside = True
                        h = _FNV0
                        tstart = cpos
                    h = (h ^ np.uint64(lc)) * _FNV_PRIME
                    tend = cpos + 1
                elif inside:
                    inside = False
                    if n >= cap:
                        return -1
                    n, acc = _push(th, ts, te, pre, n, acc, h, tstart, tend)
                prev = c
                p += 1
                cpos += 1
                continue
            a, b, q = _unit(buf, p, start, end, ent_hash, ent_first, ent_second)
            skip, joined = _lookahead(buf, a, b, q, prev, start, end, ent_hash, ent_first, ent_second)
            if skip >= 0:                           # a tag or link target: one separator
                q = skip
                a = 0
                b = -1
            if joined >= 0:                         # dropped, inside the word
                cpos += _cps(buf, p, joined)
                tend = cpos
                p = joined
                prev = 0x2D
                continue
            cend = cpos + _cps(buf, p, q)
            for cp in (a, b):
                if cp < 0:
                    continue
                prev = cp
                outs, k, j0, dropped = _folded(cp, kind, offset, length)
                if dropped and inside:
                    tend = cend
                for j in range(outs):
                    o = k if j0 < 0 else data[j0 + j]
                    if o != 0:
                        if not inside:
                            inside = True
                            h = _FNV0
                            tstart = cpos
                        h = _hash_cp(h, o)
                        tend = cend
                    elif inside:
                        inside = False
                        if n >= cap:
                            return -1
                        n, acc = _push(th, ts, te, pre, n, acc, h, tstart, tend)
            cpos = cend
            p = q
        if inside:
            if n >= cap:
                return -1
            n, acc = _push(th, ts, te, pre, n, acc, h, tstart, tend)
        p0 = end
    doc_tok[doc_ends.size] = n
    return n


class Tokens(NamedTuple):
    """A batch's token stream: hashes, raw code-point spans within each document, per-document
    token ranges (``doc_tok[d]:doc_tok[d+1]``) and polynomial prefix hashes (``pre[i]``: tokens
    before i)."""

    th: np.ndarray
    ts: np.ndarray
    te: np.ndarray
    doc_tok: np.ndarray
    pre: np.ndarray


def tokenize_texts(texts: Sequence[str], reuse: list[np.ndarray] | None = None) -> Tokens:
    """The token stream of ``texts`` (one document each). ``reuse``: a list that keeps the output
    arrays between calls (grown as needed), so a scan of many batches does not fault in fresh
    pages for each; the result is then only valid until the next call with the same list."""
    data = [t.encode("utf-8", "surrogatepass") for t in texts]
    buf = np.frombuffer(b"".join(data), np.uint8)
    ends = np.cumsum(np.fromiter((len(d) for d in data), np.int64, len(data)))
    table = fold_table()
    cap = buf.size + len(data) + 1
    if reuse is None or not reuse or reuse[0].size < cap:
        arrays = [np.empty(cap, np.uint64), np.empty(cap, np.int64), np.empty(cap, np.int64),
                  np.empty(cap + 1, np.uint64)]
        if reuse is not None:
            reuse[:] = arrays
    else:
        arrays = reuse
    th, ts, te, pre = arrays
    doc_tok = np.empty(len(data) + 1, np.int64)
    n = tokenize(buf, ends, table.kind, table.offset, table.length, table.data, _ENT_HASH,
                 _ENT_FIRST, _ENT_SECOND, th, ts, te, doc_tok, pre)
    if n < 0:   # a character folding into more tokens than it has bytes (none known): retry roomier
        th, ts, te, pre = (np.empty(4 * cap, np.uint64), np.empty(4 * cap, np.int64),
                           np.empty(4 * cap, np.int64), np.empty(4 * cap + 1, np.uint64))
        n = tokenize(buf, ends, table.kind, table.offset, table.length, table.data, _ENT_HASH,
                     _ENT_FIRST, _ENT_SECOND, th, ts, te, doc_tok, pre)
    return Tokens(th[:n], ts[:n], te[:n], doc_tok, pre[:n + 1])
