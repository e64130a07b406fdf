"""The one normalised token stream every overlap measure reads, seeing through how text is stored.

Benchmarks reach corpora as JSON dumps, CSV rows, HTML pages, Markdown reports, notebooks and
Python string literals, often with mojibake. The same item must give the same tokens in all of
them, so the text is read in five steps, on corpus documents and benchmark items alike:

1. **Storage escapes** are decoded: a run of backslashes followed by ``uXXXX`` (a surrogate pair
   joined), ``UXXXXXXXX`` or ``xXX`` is that character; followed by ``n t r f b v`` a control
   character (a separator), by ``" ' /`` that character; any other backslash run is a separator.
   So ``\\u03b1``, ``\\\\u03b1`` (escaped twice) and ``α`` agree, and ``\\n`` before a word is a line
   break, not an ``n``. HTML character references (``&amp;``, ``&#8217;``, ``&#x27;``, the HTML5
   named ones) are their characters. Mojibake is undone: a character sequence that is the UTF-8
   encoding of one character read as Windows-1252 or Latin-1 (``â€™``, ``Ã©``) is that character,
   and the six Mac Roman punctuation marks read as Latin-1 (``Ð Ñ Ò Ó Ô Õ`` for dashes and quotes,
   as in MMLU's ``officerÕs``) are separators when both neighbours are ASCII.
2. **Markup** is removed: an HTML/XML tag (``<`` then a letter, ``/``, ``!`` or ``?``, up to the
   next ``>`` within :data:`TAG_MAX` characters and before any other ``<``) and a Markdown link
   target (``](...)`` without spaces, within :data:`LINK_MAX`) are separators. Tags are found
   after step 1, so ``&lt;p&gt;`` is a tag as ``<p>`` is; other Markdown syntax is punctuation.
3. **Joins**: hyphenation at line ends is undone (an ASCII letter, ``-`` or U+2010, optional
   spaces, a line break, real or an escaped ``\\n``, optional spaces and a lower-case ASCII letter
   join into one word: ``contami-\\nnation`` is ``contamination``), and a thousands separator is
   read through (a comma between a digit and exactly three digits: ``400,000`` is ``400000``, as
   a copy that drops it writes it).
4. **Folding** (:mod:`._fold`): NFKD, case folding, combining marks and invisible joiners
   removed; letters, digits and spacing marks are token characters, everything else (punctuation,
   typographic quotes and dashes, symbols, ``_``, whitespace) a separator.
5. **Tokens** are the maximal runs of token characters. Each keeps the span of the *raw* text it
   came from, in code points: ``raw[start:end]`` quotes it as stored.

A token's hash is the 64-bit FNV-1a of its UTF-8 bytes: stable across processes, machines and
Python versions (no ``hash()`` salt). An n-gram's key is a polynomial hash of its tokens' hashes
mixed with ``n`` (see :func:`ngram_key`).

The functions here are the slow, obviously-correct reference, written step by step; the scan
reads the same stream through the one-pass numba kernel of :mod:`._tokenize` (tests/overlap check
that they agree on every document).
"""

from __future__ import annotations

import html.entities
from typing import NamedTuple

from ._fold import fold_char

MASK64 = (1 << 64) - 1
FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
BASE = 0x9E3779B97F4A7C15            # odd: the polynomial base of n-gram keys
_K_MIX = 0xD6E8FEB86659FD93
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB

TAG_MAX = 1024
LINK_MAX = 512
HYPHEN_SPACES = 8
_HEX = frozenset("0123456789abcdefABCDEF")
_CONTROL = {"n": 10, "t": 9, "r": 13, "f": 12, "b": 8, "v": 11}
_MAC_ROMAN = frozenset("ÐÑÒÓÔÕ")
#: Windows-1252's characters for the bytes 0x80-0x9F (the rest of 0x80-0xBF is Latin-1's)
CP1252 = {ord(bytes([b]).decode("cp1252")): b for b in range(0x80, 0xA0) if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)}
ENTITIES = {name[:-1]: value for name, value in html.entities.html5.items() if name.endswith(";")}
SEPARATOR = 0   # a separator only (never read as a space by step 3)


class Unit(NamedTuple):
    """One decoded character (step 1) and the raw span ``[start, end)`` it came from."""

    cp: int
    start: int
    end: int


class TokenSpan(NamedTuple):
    token: str
    start: int
    end: int


def _hex_at(raw: str, at: int, digits: int) -> int | None:
    piece = raw[at:at + digits]
    return int(piece, 16) if len(piece) == digits and all(c in _HEX for c in piece) else None


def _backslashes(raw: str, at: int) -> int:
    while at < len(raw) and raw[at] == "\\":
        at += 1
    return at


def _escape(raw: str, i: int) -> list[Unit]:
    """The unit(s) of the backslash run at ``i`` (step 1)."""
    j = _backslashes(raw, i)
    e = raw[j] if j < len(raw) else ""
    if e == "u" and (cp := _hex_at(raw, j + 1, 4)) is not None:
        end = j + 5
        if 0xD800 <= cp < 0xDC00:
            k = _backslashes(raw, end)
            if k > end and raw[k:k + 1] == "u" and (lo := _hex_at(raw, k + 1, 4)) is not None \
                    and 0xDC00 <= lo < 0xE000:
                cp, end = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00), k + 5
        return [Unit(SEPARATOR if 0xD800 <= cp < 0xE000 else cp, i, end)]
    if e == "U" and (cp := _hex_at(raw, j + 1, 8)) is not None and cp < 0x110000:
        return [Unit(SEPARATOR if 0xD800 <= cp < 0xE000 else cp, i, j + 9)]
    if e == "x" and (cp := _hex_at(raw, j + 1, 2)) is not None:
        return [Unit(cp, i, j + 3)]
    if e in _CONTROL:
        return [Unit(_CONTROL[e], i, j + 1)]
    if e in ("\"", "'", "/"):
        return [Unit(ord(e), i, j + 1)]
    return [Unit(ord("\\"), i, j)]


def _entity(raw: str, i: int) -> list[Unit] | None:
    """The unit(s) of an HTML character reference at ``i``, else ``None``."""
    end = raw.find(";", i + 1, i + 34)
    if end < 0:
        return None
    body = raw[i + 1:end]
    if body[:1] == "#":
        digits, base = (body[2:], 16) if body[1:2] in ("x", "X") else (body[1:], 10)
        ok = 0 < len(digits) <= (6 if base == 16 else 7) and all(
            c in (_HEX if base == 16 else "0123456789") for c in digits)
        cp = int(digits, base) if ok else 0
        return [Unit(cp, i, end + 1)] if 0 < cp < 0x110000 and not 0xD800 <= cp < 0xE000 else None
    if body[:1].isascii() and body[:1].isalpha() and body.isascii() and body.isalnum() \
            and body in ENTITIES:
        return [Unit(ord(c), i, end + 1) for c in ENTITIES[body]]
    return None


def _mojibake(raw: str, i: int) -> Unit | None:
    """One character's UTF-8 bytes read as Windows-1252 / Latin-1 at ``i``, decoded; else None."""
    lead = ord(raw[i])
    if not 0xC2 <= lead <= 0xF4:
        return None
    size = 2 if lead <= 0xDF else 3 if lead <= 0xEF else 4
    data = [lead]
    for c in raw[i + 1:i + size]:
        b = ord(c) if 0x80 <= ord(c) <= 0xBF else CP1252.get(ord(c), 0)
        if not 0x80 <= b <= 0xBF:
            return None
        data.append(b)
    if len(data) < size:
        return None
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        return None
    return Unit(ord(text), i, i + size)


def decode(raw: str) -> list[Unit]:
    """Step 1: the raw text's characters with storage escapes, character references and mojibake
    decoded (see the module)."""
    out: list[Unit] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        got: list[Unit] | None = None
        if c == "\\":
            got = _escape(raw, i)
        elif c == "&":
            got = _entity(raw, i)
        if got is None and (m := _mojibake(raw, i)) is not None:
            got = [m]
        if got is None and c in _MAC_ROMAN and (i == 0 or raw[i - 1].isascii()) \
                and (i + 1 == len(raw) or raw[i + 1].isascii()):
            got = [Unit(SEPARATOR, i, i + 1)]
        if got is None:
            got = [Unit(ord(c), i, i + 1)]
        out.extend(got)
        i = got[-1].end
    return out


def _close(units: list[Unit], k: int, opener: int, closer: int, limit: int,
           stop: frozenset[int]) -> int | None:
    """Index of the first ``closer`` unit after ``k`` within ``limit`` units, before any ``stop``."""
    for m in range(k + 1, min(len(units), k + 1 + limit)):
        if units[m].cp == closer:
            return m
        if units[m].cp in stop or units[m].cp == opener:
            return None
    return None


_TAG_START = frozenset(map(ord, "/!?abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
_SPACES = frozenset((0x20, 0x09, 0x0A, 0x0D))


def strip_markup(units: list[Unit]) -> list[Unit]:
    """Step 2: tags and Markdown link targets as one separator each."""
    out: list[Unit] = []
    k = 0
    while k < len(units):
        u = units[k]
        m = None
        if u.cp == ord("<") and k + 1 < len(units) and units[k + 1].cp in _TAG_START:
            m = _close(units, k + 1, ord("<"), ord(">"), TAG_MAX, frozenset())
        elif u.cp == ord("]") and k + 1 < len(units) and units[k + 1].cp == ord("("):
            m = _close(units, k + 1, ord("("), ord(")"), LINK_MAX, _SPACES)
        if m is None:
            out.append(u)
            k += 1
        else:
            out.append(Unit(SEPARATOR, u.start, units[m].end))
            k = m + 1
    return out


def _is_ascii_letter(cp: int) -> bool:
    return 0x41 <= cp <= 0x5A or 0x61 <= cp <= 0x7A


def hyphen_join(units: list[Unit], k: int) -> int | None:
    """Step 3: when a line-end hyphen at unit ``k`` joins a word, the index of the letter that
    continues it (units ``k`` up to it are dropped), else ``None``."""
    if units[k].cp not in (0x2D, 0x2010) or k == 0 or not _is_ascii_letter(units[k - 1].cp):
        return None
    j = k + 1

    def spaces(j: int) -> int:
        n = 0
        while j < len(units) and units[j].cp in (0x20, 0x09) and n < HYPHEN_SPACES:
            j, n = j + 1, n + 1
        return j

    j = spaces(j)
    if j < len(units) and units[j].cp == 0x0D:
        j += 1
        if j < len(units) and units[j].cp == 0x0A:
            j += 1
    elif j < len(units) and units[j].cp == 0x0A:
        j += 1
    else:
        return None
    j = spaces(j)
    return j if j < len(units) and 0x61 <= units[j].cp <= 0x7A else None


def _is_digit(cp: int) -> bool:
    return 0x30 <= cp <= 0x39


def digit_join(units: list[Unit], k: int) -> int | None:
    """Step 3: when unit ``k`` is a thousands separator, the index of the digit after it."""
    if units[k].cp != 0x2C or k == 0 or not _is_digit(units[k - 1].cp) or k + 3 >= len(units):
        return None
    if not all(_is_digit(units[k + j].cp) for j in (1, 2, 3)):
        return None
    return k + 1 if k + 4 == len(units) or not _is_digit(units[k + 4].cp) else None


def token_spans(raw: str) -> list[TokenSpan]:
    """Steps 1-5: every token of ``raw`` with the raw span it came from (see the module)."""
    units = strip_markup(decode(raw))
    out: list[TokenSpan] = []
    chars: list[str] = []
    start = end = 0

    def flush() -> None:
        if chars:
            out.append(TokenSpan("".join(chars), start, end))
            chars.clear()

    k = 0
    while k < len(units):
        join = hyphen_join(units, k)
        if join is None:
            join = digit_join(units, k)
        if join is not None:
            if chars:
                end = units[join - 1].end
            k = join
            continue
        u = units[k]
        folded = fold_char(chr(u.cp))
        if not folded:               # dropped: inside a word it extends the word
            if chars:
                end = u.end
        for c in folded:
            if c == " ":
                flush()
            else:
                if not chars:
                    start = u.start
                chars.append(c)
                end = u.end
        k += 1
    flush()
    return out


def tokens(text: str) -> list[str]:
    """The normalised tokens of ``text``."""
    return [t.token for t in token_spans(text)]


def normalize(text: str) -> str:
    """The tokens of ``text`` joined by single spaces."""
    return " ".join(tokens(text))


def token_hash(token: str) -> int:
    """64-bit FNV-1a of the token's UTF-8 bytes."""
    h = FNV_OFFSET
    for byte in token.encode("utf-8"):
        h = ((h ^ byte) * FNV_PRIME) & MASK64
    return h


def _fmix(h: int) -> int:
    h = ((h ^ (h >> 30)) * _M1) & MASK64
    h = ((h ^ (h >> 27)) * _M2) & MASK64
    return h ^ (h >> 31)


def ngram_key(hashes: list[int]) -> int:
    """Key of the n-gram whose token hashes are ``hashes`` (n = their number): the polynomial
    ``sum h_i * BASE^(n-1-i)`` mod 2^64, plus ``n * K``, finalised by SplitMix64's mixer; never 0
    (0 marks an empty slot of the hash table)."""
    p = 0
    for h in hashes:
        p = (p * BASE + int(h)) & MASK64
    key = _fmix((p + len(hashes) * _K_MIX) & MASK64)
    return key or 1
