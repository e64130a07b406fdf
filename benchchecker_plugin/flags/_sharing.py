"""Memory shared between the flags one file holds: equal short strings read once, equal flat
evidence of one instance's records one mapping (what the reader does to 1e6 records)."""

from __future__ import annotations

from typing import Any

from ._record import ContaminationFlag


def share_evidence(flags: list[ContaminationFlag], last: dict[tuple[str, str], Any]) -> None:
    """Flags about one instance whose evidence is the same as the previous flag's about it (the
    several models of a grid often say the same) share that one frozen mapping: ~230 bytes a
    record less. Only flat evidence of the very same keys, order, types and values is shared (so
    ``1`` is never ``true``, ``-0.0`` never ``0.0``): what is written back is unchanged."""
    for flag in flags:
        key = (flag.benchmark, flag.instance_id)
        ev = flag.evidence
        prev = last.get(key)
        if prev is not None and prev is not ev and _same_flat(prev, ev):
            object.__setattr__(flag, "evidence", prev)
        else:
            last[key] = ev


def _same_flat(a: Any, b: Any) -> bool:
    if len(a) != len(b) or list(a) != list(b):
        return False
    for k, x in a.items():
        y = b[k]
        kind = type(x)
        if kind is not type(y) or kind not in _FLAT or x != y:
            return False
        if kind is float and repr(x) != repr(y):   # -0.0 == 0.0
            return False
    return True


_FLAT = frozenset({str, int, float, bool, type(None)})


def shared_strings(evidence: dict[str, Any], same: Any) -> dict[str, Any]:
    """``evidence`` with each short string value replaced, in place, by the one equal copy the
    file has already read (an instance's id and snapshot commit are repeated for every model,
    a verdict word a million times); longer text (answers, snippets) is left as it is."""
    for k, v in evidence.items():
        if type(v) is str and len(v) <= 64:
            evidence[k] = same(v, v)
    return evidence
