"""Verdicts as the scorer's codes (0 clean, 1 contaminated, 2 undecided), one row per submission.

Verdicts come as mappings ``{instance_id: Verdict | bool | None}``; a :class:`CodedVerdicts`
is such a mapping held as one code per instance of an instance list (a leaderboard's 1e5
instances x 100 submissions without a dict entry each), read as it is when its list is the
scorer's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..flags import Verdict

CLEAN, CONTAMINATED, UNDECIDED = 0, 1, 2
#: a :class:`CodedVerdicts` code: no verdict (the instance is not in the mapping; undecided)
NO_VERDICT = 3
_VERDICTS = (Verdict.CLEAN, Verdict.CONTAMINATED, Verdict.UNDECIDED)


class CodedVerdicts(Mapping[str, Verdict]):
    """``{instance_id: Verdict}`` over ``instance_ids`` held as int8 ``codes`` (one per id:
    0 clean, 1 contaminated, 2 undecided, :data:`NO_VERDICT` for an id not in the mapping)."""

    __slots__ = ("_at", "codes", "instance_ids")

    def __init__(self, instance_ids: Sequence[str], codes: np.ndarray) -> None:
        ids = tuple(instance_ids)
        arr = np.asarray(codes)
        if arr.shape != (len(ids),) or (arr.size and not (arr.min() >= 0 and arr.max() <= 3)):
            raise InputError(f"verdict codes need one code from 0 to 3 per instance id "
                             f"({len(ids)} ids, codes of shape {arr.shape})")
        self.instance_ids = ids
        self.codes = arr.astype(np.int8)
        self.codes.flags.writeable = False
        self._at: dict[str, int] | None = None

    def __getitem__(self, key: str) -> Verdict:
        if self._at is None:
            self._at = {iid: i for i, iid in enumerate(self.instance_ids)}
        code = int(self.codes[self._at[key]])
        if code == NO_VERDICT:
            raise KeyError(key)
        return _VERDICTS[code]

    def __iter__(self) -> Iterator[str]:
        return (self.instance_ids[i] for i in np.flatnonzero(self.codes != NO_VERDICT).tolist())

    def __len__(self) -> int:
        return int((self.codes != NO_VERDICT).sum())


def verdict_code(value: Any) -> int:
    """The code of one verdict (a :class:`Verdict`, bool or ``None``)."""
    if isinstance(value, Verdict):
        value = value.to_bool()
    if value is None:
        return UNDECIDED
    if isinstance(value, (bool, np.bool_)):
        return CONTAMINATED if value else CLEAN
    raise InputError(f"a verdict must be a Verdict, bool or None, got {value!r}")


_CODE_TYPES = frozenset({Verdict, bool, type(None)})
_CODES: dict[Any, int] = {Verdict.CONTAMINATED: CONTAMINATED, Verdict.CLEAN: CLEAN,
                          Verdict.UNDECIDED: UNDECIDED, True: CONTAMINATED, False: CLEAN,
                          None: UNDECIDED}


def _is_per_submission(verdicts: Mapping[str, Any]) -> bool:
    return any(isinstance(v, Mapping) for v in verdicts.values())


def verdict_code_rows(verdicts: Mapping[str, Any], submissions: Sequence[str],
                      instance_ids: Sequence[str]) -> np.ndarray:
    """(submissions x instances) int8 codes of ``verdicts`` (``{instance_id: verdict}`` for
    every submission, or ``{submission: {instance_id: verdict}}``); missing verdicts are
    undecided, verdicts of ids outside ``instance_ids`` are not counted."""
    ids = tuple(instance_ids)
    n = len(ids)
    index: list[pd.Index] = []
    rows: dict[int, np.ndarray] = {}   # one row per distinct mapping: submissions may share one

    def row(mapping: Mapping[str, Any]) -> np.ndarray:
        if id(mapping) in rows:
            return rows[id(mapping)]
        if isinstance(mapping, CodedVerdicts) and mapping.instance_ids == ids:
            out = np.where(mapping.codes == NO_VERDICT, UNDECIDED, mapping.codes).astype(np.int8)
        else:
            if not index:
                index.append(pd.Index(ids))
            codes = np.fromiter((_CODES[v] if type(v) in _CODE_TYPES else verdict_code(v)
                                 for v in mapping.values()), np.int8, len(mapping))
            where = index[0].get_indexer(list(mapping)) if mapping else np.zeros(0, np.intp)
            out = np.full(n, UNDECIDED, np.int8)
            known = where >= 0
            out[where[known]] = codes[known]
        rows[id(mapping)] = out
        return out

    if _is_per_submission(verdicts):
        missing = [s for s in submissions if s not in verdicts]
        if missing:
            raise InputError(f"per-submission verdicts lack submissions: {', '.join(missing[:5])}")
        return np.stack([row(verdicts[s]) for s in submissions]) if submissions \
            else np.zeros((0, n), np.int8)
    shared = row(verdicts)
    return np.tile(shared, (len(submissions), 1))
