"""The one normalised token stream every overlap metric reads.

Normalisation (word level), in this order:

1. Unicode NFKC (``ﬁ`` -> ``fi``, full-width digits -> ASCII digits);
2. ``str.casefold`` (``Straße`` -> ``strasse``);
3. every run of characters that is not a letter or a digit (punctuation, symbols, ``_``,
   whitespace) becomes one space;
4. split on spaces.

A token's hash is the 64-bit FNV-1a of its UTF-8 bytes: stable across processes, machines and
Python versions (no ``hash()`` salt), so a benchmark table can be rebuilt and compared anywhere.
An n-gram's key is a polynomial hash of its tokens' hashes mixed with ``n`` (see :func:`ngram_key`).

The functions here are the slow, obviously-correct reference; the scan reads the same stream
through the numba kernels of :mod:`._kernels` (tests/overlap check they agree).
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np

MASK64 = (1 << 64) - 1
FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
BASE = 0x9E3779B97F4A7C15            # odd: the polynomial base of n-gram keys
_K_MIX = 0xD6E8FEB86659FD93
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB

_SEPARATORS = re.compile(r"[\W_]+")


def normalize(text: str) -> str:
    """NFKC, casefold, non-letters/digits to single spaces, stripped (the module's steps 1-3)."""
    return _SEPARATORS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def tokens(text: str) -> list[str]:
    """The normalised tokens of ``text``."""
    return normalize(text).split()


def prepare(text: str) -> bytes:
    """The bytes the tokenising kernel reads: ASCII text as it is (the kernel lower-cases ASCII and
    splits on non-alphanumerics itself, keeping character offsets equal to the text's), any other
    text NFKC-normalised and case-folded (steps 1-2; the kernel splits it with :func:`alnum_bits`).
    Lone surrogates (JSON ``\\ud800``) pass through encoded; they are separators, as in step 3."""
    if text.isascii():
        return text.encode("ascii")
    return unicodedata.normalize("NFKC", text).casefold().encode("utf-8", "surrogatepass")


_ALNUM: list[np.ndarray] = []


def alnum_bits() -> np.ndarray:
    """One bit per code point (uint64 words), set where step 3 keeps the character: not matched
    by ``[\\W_]`` (i.e. ``str.isalnum``). Built once per process from the same regular expression."""
    if not _ALNUM:
        every = np.arange(0x110000, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass")
        bits = np.zeros(0x110000, bool)
        for m in re.finditer(r"[^\W_]+", every):
            bits[m.start():m.end()] = True
        _ALNUM.append(np.packbits(bits, bitorder="little").view(np.uint64).copy())
    return _ALNUM[0]


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


def ngram_key(hashes: list[int] | np.ndarray) -> int:
    """Key of the n-gram whose token hashes are ``hashes`` (n = their number): the polynomial
    ``sum h_i * BASE^(n-1-i)`` mod 2^64, plus ``n * K``, finalised by SplitMix64's mixer; never 0
    (0 marks an empty slot of the hash table)."""
    p = 0
    for h in hashes:
        p = (p * BASE + int(h)) & MASK64
    key = _fmix((p + len(hashes) * _K_MIX) & MASK64)
    return key or 1
