"""What each code point becomes in a token: the folding table of the normaliser (step 4 of
:mod:`._normalize`).

A code point ``c`` folds to ``NFKD(casefold(NFKD(c)))`` with combining marks (categories Mn, Me)
and invisible joiners (soft hyphen, zero-width space/joiners, word joiner, BOM) removed; of what
remains, letters, digits (``str.isalnum``) and spacing marks (Mc, the vowel signs of Indic
scripts) are token characters and everything else a separator. So ``é`` and ``e`` + U+0301 fold to
``e``, ``ﬁ`` to ``fi``, ``Straße`` to ``strasse``, full-width ``３`` to ``3``, ``½`` to ``1 2``.

Four kinds, one byte per code point (:data:`SEP`, :data:`SAME`, :data:`DROP`, :data:`MAPPED`); a
mapped code point's output is ``data[offset[c]:offset[c] + length[c]]`` with ``0`` marking a
separator. Building the table reads all 1,114,112 code points (about 2 s); it is kept per process
and in the user's cache folder (``fold-<unicode version>-<format>.npz``), so a process after the
first loads it in milliseconds.
"""

from __future__ import annotations

import unicodedata
import warnings
from typing import NamedTuple

import numpy as np

from ..atomic import atomic_path
from ..errors import InputError

SEP, SAME, DROP, MAPPED = 0, 1, 2, 3
FORMAT = 1
#: removed like combining marks: they never split a word
INVISIBLE = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff")
_N = 0x110000


class FoldTable(NamedTuple):
    kind: np.ndarray      # uint8 per code point
    offset: np.ndarray    # int32 per code point (MAPPED only)
    length: np.ndarray    # uint8 per code point (MAPPED only)
    data: np.ndarray      # int32 output code points, 0 = separator


def _drop(ch: str) -> bool:
    return ch in INVISIBLE or unicodedata.category(ch) in ("Mn", "Me")


def _token_char(ch: str) -> bool:
    return ch.isalnum() or unicodedata.category(ch) == "Mc"


def fold_char(ch: str) -> str:
    """The reference: what ``ch`` becomes, token characters as themselves and each separator as a
    space (``""``: dropped)."""
    if 0xD800 <= ord(ch) < 0xE000:
        return " "
    out = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", ch).casefold())
    return "".join(c if _token_char(c) else " " for c in out if not _drop(c))


def _build() -> FoldTable:
    every = np.arange(_N, dtype="<u4")
    every[0] = 0x20                      # NUL is the join marker below (it folds to a separator)
    every[0xD800:0xE000] = 0x20          # lone surrogates cannot be encoded: separators
    chars = every.tobytes().decode("utf-32-le")
    # NFKD and case folding of every code point at once: joined by NUL (a starter that never
    # combines or folds), so the pieces split back one per code point
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", "\x00".join(chars)).casefold())
    pieces = folded.split("\x00")
    assert len(pieces) == _N
    kind = np.empty(_N, np.uint8)
    offset = np.zeros(_N, np.int32)
    length = np.zeros(_N, np.uint8)
    data: list[int] = []
    category = unicodedata.category
    for c, (ch, piece) in enumerate(zip(chars, pieces)):
        if ch == piece and len(piece) == 1:    # unchanged: only its own class matters
            if ch.isalnum():
                kind[c] = SAME
            elif ch in INVISIBLE or category(ch) in ("Mn", "Me"):
                kind[c] = DROP
            elif category(ch) == "Mc":
                kind[c] = SAME
            else:
                kind[c] = SEP
            continue
        out = "".join(x if _token_char(x) else " " for x in piece if not _drop(x))
        if not out:
            kind[c] = DROP
        elif out.isspace():
            kind[c] = SEP
        else:
            kind[c] = MAPPED
            offset[c] = len(data)
            length[c] = len(out)
            data.extend(0 if x == " " else ord(x) for x in out)
    kind[0] = kind[0xD800:0xE000] = SEP
    return FoldTable(kind, offset, length, np.asarray(data or [0], np.int32))


_TABLE: list[FoldTable] = []


def _cache_path() -> str:
    from ..models import default_cache_dir

    return str(default_cache_dir() / f"fold-{unicodedata.unidata_version}-{FORMAT}.npz")


def fold_table() -> FoldTable:
    """The table (built once per process; read from the user's cache folder when there)."""
    if _TABLE:
        return _TABLE[0]
    path = _cache_path()
    table: FoldTable | None = None
    try:
        with np.load(path, allow_pickle=False) as z:
            table = FoldTable(z["kind"], z["offset"], z["length"], z["data"])
        if table.kind.size != _N:
            table = None
    except (OSError, ValueError, KeyError):
        table = None
    if table is None:
        table = _build()
        try:   # atomic_path makes the folder
            with atomic_path(path) as tmp, open(tmp, "wb") as fh:
                np.savez(fh, kind=table.kind, offset=table.offset, length=table.length, data=table.data)
        except (OSError, InputError) as exc:   # a read-only cache: built again next time, nothing lost
            warnings.warn(f"{path}: cannot keep the Unicode folding table ({exc}); it is built "
                          "anew in each process (about 2 s)", RuntimeWarning, stacklevel=2)
    _TABLE.append(table)
    return table
