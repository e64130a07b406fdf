"""Flags read as columns: what a leaderboard needs of a million records (the benchmark, instance,
model and method each is about, and its verdict) as integer codes, no Python object per record.

:func:`read_flag_columns` reads and checks a file (or folder) exactly as
:func:`~.io.read_flags` does (the same schema check, the same errors, duplicates refused); the
records themselves are read again only when asked for (:class:`FlagColumns` is a sequence of
them). :meth:`FlagColumns.verdict_codes` gives the per-instance verdicts of one model as
:func:`~.merge.verdicts_for` does (its default policy, ``any``), for every instance at once.
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from types import SimpleNamespace
from typing import Any, overload

import numpy as np

from ..errors import DataError, FlagsFormatError, InputError
from ._io import checked_chunks, duplicate_error, flag_files, gc_paused, read_flags
from ._merge import MERGED_METHOD
from ._record import ANY_MODEL, ContaminationFlag

#: :meth:`FlagColumns.verdict_codes` of an instance without a record (0 clean, 1 contaminated,
#: 2 undecided otherwise, as the scorer's codes)
ABSENT = 3
_CODE = {False: 0, True: 1, None: 2}
_TRIPLE = attrgetter("benchmark", "model", "method")
_ID = attrgetter("instance_id")
_CONTAMINATED = attrgetter("contaminated")


@dataclass(frozen=True)
class FlagTally:
    """What a flags line says of a set of records: records per method, the models of each
    method, and for merged records their policies and input methods."""

    counts: Mapping[str, int]
    models: Mapping[str, frozenset[str]]
    policies: frozenset[str] = frozenset()
    merged_of: frozenset[str] = frozenset()


def tally_flags(flags: Iterable[ContaminationFlag]) -> FlagTally:
    """The :class:`FlagTally` of ``flags`` (records, or a :class:`FlagColumns`)."""
    if isinstance(flags, FlagColumns):
        return flags.tally()
    counts: Counter[str] = Counter()
    models: dict[str, set[str]] = {}
    policies: set[str] = set()
    merged_of: set[str] = set()
    for f in flags:
        counts[f.method] += 1
        models.setdefault(f.method, set()).add(f.model)
        if f.method == MERGED_METHOD:
            policies.add(str(f.evidence.get("policy", "?")))
            merged_of.update(k.split("@")[0] for k in f.evidence.get("methods", {}))
    return FlagTally(dict(counts), {k: frozenset(v) for k, v in models.items()},
                     frozenset(policies), frozenset(merged_of))


@dataclass(frozen=True, eq=False)
class FlagColumns(Sequence[ContaminationFlag]):
    """The records of ``source`` (only those of ``only``, a benchmark, when set) as columns: per
    record the index of its ``benchmark``, ``instance``, ``model`` and ``method`` into the
    distinct values (``benchmarks``, ``instance_ids``, ``models``, ``methods``; int32) and its
    ``verdict`` (int8: 0 false, 1 true, 2 null); ``merged``: ``(record, policy, input methods)``
    of each merged record. As a sequence it is the records themselves, read again from
    ``source`` on first use and checked to be the ones these columns hold (a
    :class:`DataError` when the file has changed)."""

    source: str
    benchmarks: tuple[str, ...]
    instance_ids: tuple[str, ...]
    models: tuple[str, ...]
    methods: tuple[str, ...]
    benchmark: np.ndarray
    instance: np.ndarray
    model: np.ndarray
    method: np.ndarray
    verdict: np.ndarray
    merged: tuple[tuple[int, str, tuple[str, ...]], ...] = ()
    only: str | None = None
    _records: list[ContaminationFlag] = field(default_factory=list, repr=False)

    def __len__(self) -> int:
        return int(self.verdict.size)

    @overload
    def __getitem__(self, i: int) -> ContaminationFlag: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[ContaminationFlag]: ...
    def __getitem__(self, i: int | slice) -> ContaminationFlag | Sequence[ContaminationFlag]:
        return self._read()[i]

    def __iter__(self) -> Iterator[ContaminationFlag]:
        return iter(self._read())

    def _read(self) -> list[ContaminationFlag]:
        if len(self._records) != len(self):
            flags = [f for f in read_flags(self.source) if self.only in (None, f.benchmark)]
            if [(f.benchmark, f.instance_id, f.model, f.method, _CODE[f.contaminated])
                    for f in flags] != list(self._keys()):
                raise DataError(f"{self.source}: the flags file has changed since it was read")
            self._records[:] = flags
        return self._records

    def _keys(self) -> Iterator[tuple[str, str, str, str, int]]:
        for b, i, m, k, v in zip(self.benchmark.tolist(), self.instance.tolist(),
                                 self.model.tolist(), self.method.tolist(), self.verdict.tolist()):
            yield self.benchmarks[b], self.instance_ids[i], self.models[m], self.methods[k], v

    def held(self, column: str) -> list[str]:
        """The distinct values of ``column`` (``benchmark``, ``model``, ...) the records hold,
        sorted."""
        names = getattr(self, {"benchmark": "benchmarks", "instance": "instance_ids",
                               "model": "models", "method": "methods"}[column])
        return sorted(names[k] for k in np.unique(getattr(self, column)).tolist())

    def select(self, benchmark: str) -> FlagColumns:
        """The records of ``benchmark`` only (the distinct values stay as they are)."""
        if benchmark not in self.benchmarks:
            keep = np.zeros(len(self), bool)
        else:
            keep = self.benchmark == self.benchmarks.index(benchmark)
        new = np.cumsum(keep) - 1
        merged = tuple((int(new[r]), p, m) for r, p, m in self.merged if keep[r])
        return FlagColumns(self.source, self.benchmarks, self.instance_ids, self.models,
                           self.methods, self.benchmark[keep], self.instance[keep],
                           self.model[keep], self.method[keep], self.verdict[keep], merged,
                           benchmark)

    def tally(self) -> FlagTally:
        """The :class:`FlagTally` of the records."""
        width = max(1, len(self.models))
        pairs = np.unique(self.method.astype(np.int64) * width + self.model)
        counts = np.bincount(self.method, minlength=len(self.methods))
        models: dict[str, set[str]] = {}
        for pair in pairs.tolist():
            models.setdefault(self.methods[pair // width], set()).add(self.models[pair % width])
        merged_of = {name.split("@")[0] for _, _, names in self.merged for name in names}
        return FlagTally({self.methods[k]: int(counts[k]) for k in np.flatnonzero(counts)},
                         {k: frozenset(v) for k, v in models.items()},
                         frozenset(p for _, p, _ in self.merged), frozenset(merged_of))

    def verdict_codes(self, model: str) -> np.ndarray:
        """Per instance (``instance_ids``) the verdict for ``model`` that
        :func:`~.merge.verdicts_for` gives (policy ``any``, ``"*"`` records included, the model's
        own record winning over a ``"*"`` one), :data:`ABSENT` where no record applies. A model
        whose records mix merged and per-method ones is an :class:`InputError`."""
        n = len(self.instance_ids)
        own = self.model == self.models.index(model) if model in self.models else None
        star = self.model == self.models.index(ANY_MODEL) if ANY_MODEL in self.models else None
        sides = [s for s in (star, own) if s is not None]   # own last: it wins
        if not sides:
            return np.full(n, ABSENT, np.int8)
        applies = np.logical_or.reduce(sides)
        if MERGED_METHOD in self.methods:
            merged = applies & (self.method == self.methods.index(MERGED_METHOD))
            if merged.any():
                if merged.sum() != applies.sum():
                    raise InputError(f"flags for {self.only} / model {model!r} mix merged records "
                                     "with per-method ones; give either the merged file or the "
                                     "per-method files")
                out = np.full(n, ABSENT, np.int8)
                for side in sides:
                    out[self.instance[side]] = self.verdict[side]
                return out
        yes, no, votes = (np.zeros(n, np.int32) for _ in range(3))
        for k in np.unique(self.method[applies]).tolist():
            vote = np.full(n, -1, np.int8)   # one vote per method: the model's own record wins
            for side in sides:
                at = side & (self.method == k)
                vote[self.instance[at]] = self.verdict[at]
            yes += vote == 1
            no += vote == 0
            votes += vote >= 0
        return np.where(votes == 0, ABSENT,
                        np.where(yes > 0, 1, np.where(no == votes, 0, 2))).astype(np.int8)


def read_flag_columns(path: str | os.PathLike[str]) -> FlagColumns:
    """Read and check all flags in a file or folder as :func:`~.io.read_flags` does (the same
    errors: a bad record names its line, a key read twice is refused), into columns."""
    # codes handed out by one counter in C (dict.setdefault): unique per value, dense after
    ids: dict[str, int] = {}
    triples: dict[tuple[str, str, str], int] = {}
    inst_parts: list[np.ndarray] = []
    tri_parts: list[np.ndarray] = []
    verdict_parts: list[np.ndarray] = []
    merged: list[tuple[int, str, tuple[str, ...]]] = []
    n = 0
    counter = itertools.count()
    repeat: FlagsFormatError | None = None
    try:
        with gc_paused():
            for file in flag_files(path):
                for _, records in checked_chunks(file):
                    k = len(records)
                    inst_parts.append(np.fromiter(map(ids.setdefault, map(_ID, records), counter),
                                                  np.int64, k))
                    tri_parts.append(np.fromiter(map(triples.setdefault, map(_TRIPLE, records),
                                                     counter), np.int64, k))
                    verdict_parts.append(np.fromiter(map(_CODE.__getitem__,
                                                         map(_CONTAMINATED, records)), np.int8, k))
                    merged += [(n + j, str(r.evidence.get("policy", "?")),
                                tuple(r.evidence.get("methods", {})))
                               for j, r in enumerate(records) if r.method == MERGED_METHOD]
                    n += k
    except Exception:
        # read_flags finds a key read twice chunk by chunk: one in the chunks before this
        # error is what it would have said
        repeat = _repeat(path, ids, triples, inst_parts, tri_parts)
        if repeat is None:
            raise
    if repeat is None:
        repeat = _repeat(path, ids, triples, inst_parts, tri_parts)
    if repeat is not None:
        raise repeat
    return _columns(str(path), ids, triples, _dense(_join(inst_parts), ids),
                    _dense(_join(tri_parts), triples), _join(verdict_parts, np.int8), merged)


def _repeat(path: str | os.PathLike[str], ids: dict[str, int],
            triples: dict[tuple[str, str, str], int], inst: list[np.ndarray],
            tri: list[np.ndarray]) -> FlagsFormatError | None:
    """The error naming the first record whose key (benchmark, instance, model, method) was
    read before it, the one :func:`~.io.read_flags` names; ``None`` when there is none."""
    i, t = _dense(_join(inst), ids).astype(np.int64), _dense(_join(tri), triples)
    keys = i * max(1, len(triples)) + t
    order = np.argsort(keys, kind="stable")   # equal keys in file order: the first is no repeat
    repeats = order[1:][keys[order[1:]] == keys[order[:-1]]]
    if not repeats.size:
        return None
    first = int(repeats.min())
    benchmark, model, method = list(triples)[int(t[first])]
    return duplicate_error(path, SimpleNamespace(benchmark=benchmark, model=model, method=method,
                                                 instance_id=list(ids)[int(i[first])]))


def _dense(codes: np.ndarray, table: dict[Any, int]) -> np.ndarray:
    """``codes`` (the values of ``table``, increasing in its order) as 0, 1, ... in that order."""
    lut = np.zeros(max(table.values(), default=-1) + 1, np.int32)
    lut[np.fromiter(table.values(), np.int64, len(table))] = np.arange(len(table), dtype=np.int32)
    return lut[codes]


def _columns(source: str, ids: dict[str, int], triples: dict[tuple[str, str, str], int],
             inst: np.ndarray, tri: np.ndarray, verdict: np.ndarray,
             merged: list[tuple[int, str, tuple[str, ...]]]) -> FlagColumns:
    """The columns from the reader's codes: each triple code split into its three fields."""
    names: list[dict[str, int]] = [{}, {}, {}]
    of_triple = np.array([[d.setdefault(v, len(d)) for d, v in zip(names, t)] for t in triples],
                         dtype=np.int32).reshape(len(triples), 3)
    cols = of_triple[tri].T
    return FlagColumns(source, tuple(names[0]), tuple(ids), tuple(names[1]), tuple(names[2]),
                       np.ascontiguousarray(cols[0]), inst, np.ascontiguousarray(cols[1]),
                       np.ascontiguousarray(cols[2]), verdict, tuple(merged))


def _join(parts: list[np.ndarray], dtype: Any = np.int64) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype)
