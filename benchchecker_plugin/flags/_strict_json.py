"""Strict JSON for flags records: what the standard decoders let through and we refuse.

Python's ``json`` and msgspec both keep the *last* of two equal keys in an object (``{"model":
"a", "model": "b"}`` reads as ``b``: a record saying two things); ``json`` also reads ``1e400``
as ``inf`` (here an :class:`Overflow`, which keeps its text) and passes a lone surrogate
(``"\\ud800"``) as a string no file can hold (``UnicodeEncodeError`` in ``merge`` and
``show``). :data:`STRICT_DECODER` refuses the first while decoding, :func:`check_values` the
other two (and non-finite floats of records built in code).
Integers stay exact JSON integers (both decoders refuse more than 4300 digits); a ``score`` or
``p_value`` beyond a double is refused by the record's validation. :func:`keys_may_repeat` tells
the fast path (msgspec, which cannot refuse a repeated key: msgspec issue #648) when a chunk of
lines must go to the strict slow path instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any


class StrictJSONError(ValueError):
    """A JSON text that decodes but is refused (a repeated key, a number outside a double)."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise StrictJSONError(f"key {key!r} is given twice in one object")
            seen.add(key)
    return out


class Overflow(float):
    """A JSON number beyond a double (``1e400``), kept as infinity with its text so that the
    record's validation names the field it is in."""

    text: str

    def __new__(cls, text: str) -> Overflow:
        value = super().__new__(cls, text)
        value.text = _short(text)
        return value


def _float(text: str) -> float:
    value = float(text)
    return value if math.isfinite(value) else Overflow(text)


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed")   # invalid JSON, as the decoder's own errors


def _short(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:10]}...{text[-6:]} ({len(text)} characters)"


STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_float=_float,
                                  parse_constant=_constant)


def check_values(value: Any, path: str) -> tuple[str, str] | None:
    """``(field path, problem)`` of the first string (or key) holding a lone surrogate or float
    that is not finite inside ``value``; ``None`` when there is none."""
    kind = type(value)
    if kind is str:
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                return path, (f"holds a lone surrogate ({value[exc.start]!r}), which no UTF-8 "
                              "file can hold")
        return None
    if kind is float:
        return None if math.isfinite(value) else (path, f"must be finite, got {value!r}")
    if kind is Overflow:
        return path, f"must be finite ({value.text} is outside the range of a double)"
    if isinstance(value, Mapping):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            found = check_values(str(key), where) or check_values(item, where)
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for k, item in enumerate(value):
            found = check_values(item, f"{path}.{k}")
            if found:
                return found
    return None


def count_keys(value: Any) -> int:
    """The number of object keys in a decoded JSON value, nested ones included."""
    if isinstance(value, dict):
        return len(value) + sum(count_keys(v) for v in value.values()
                                if isinstance(v, (dict, list)))
    if isinstance(value, list):
        return sum(count_keys(v) for v in value if isinstance(v, (dict, list)))
    return 0


def keys_may_repeat(chunk: bytes, encoded: bytes, n_keys: Callable[[], int]) -> bool:
    """Whether ``chunk`` (JSON Lines) may hold an object with a repeated key, given ``encoded``,
    msgspec's compact re-encoding of what its last-key-wins decoder made of it, and ``n_keys``,
    which counts the keys it kept (called only for a chunk with escapes).

    Without a backslash in ``chunk`` no string is escaped, so its strings re-encode byte for byte
    and each colon outside them ends a key: equal colon counts mean no key was dropped (one fast
    byte count each). With escapes, without ``\\":`` and without blanks between a key and its
    colon, each ``":`` of ``chunk`` ends a key: as many as were kept means none was dropped.
    Anything else is "may" (the strict slow path decides), never a verdict.
    """
    if b"\\" not in chunk:
        return chunk.count(b":") != encoded.count(b":")
    if b"\t" in chunk or b"\r" in chunk:
        return True   # raw tabs and CRs are blanks between tokens (a string cannot hold them)
    if b'\\":' in chunk or b'\\\\"' in chunk:
        return True
    if chunk.count(b'" ') != chunk.count(b'\\" '):
        return True   # a quote followed by a blank: maybe a key before its colon
    return chunk.count(b'":') != n_keys()
