"""Work that resumes: units run on an executor, each finished one kept in a state folder
(:class:`~._store.StateStore`) and taken from there by the rerun.

:func:`run_resumable` first takes every unit kept under its current key, then runs the others on
the executor and keeps each as it finishes (before the next is handed on), so a run killed at
any point loses only the units in flight. A unit whose key is ``None`` (its inputs cannot be
identified) is never kept; a result :attr:`Keeper.keep` refuses (a failure) is not kept either and
is computed again next time. The caller merges results in unit order, so a resumed run gives
what one uninterrupted run gives.

``overlap --state`` keeps corpus shards this way, ``patch-presence --state`` and ``republish
--state`` Stage II tasks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from ._executor import Executor, ItemResult
from ._store import StateStore

U = TypeVar("U")
R = TypeVar("R")


def _always(_: object) -> bool:
    return True


@dataclass(frozen=True)
class Keeper(Generic[U, R]):
    """How units are kept in ``store``: ``key`` (a digest of the unit's inputs, ``None``: never
    kept), ``write(path, key, result)`` and ``read(path, key) -> result`` (raising ``ValueError``
    for a file of another key), ``keep(result)`` (whether a finished result is kept), ``name(unit)``
    for messages, and the words of a full disk (``cannot keep <work> <name>``; ``kept``) and of the
    warning on an unreadable file (``again``)."""

    store: StateStore
    key: Callable[[U], str | None]
    write: Callable[[Path, str, R], None]
    read: Callable[[Path, str], R]
    keep: Callable[[R], bool] = _always
    name: Callable[[U], str] = str
    work: str = "the work on"
    again: str = "computing it again"
    kept: str = "the units kept before are whole"

    def load(self, unit: U, key: str | None) -> R | None:
        if key is None:
            return None
        return self.store.load(key, lambda p: self.read(p, key), what=self.name(unit), again=self.again)

    def save(self, unit: U, key: str | None, result: R) -> bool:
        if key is None or not self.keep(result):
            return False
        self.store.save(key, lambda p: self.write(p, key, result), what=f"{self.work} {self.name(unit)}",
                        kept=self.kept)
        return True


def run_resumable(executor: Executor, fn: Callable[[U], R], units: Sequence[U],
                  keeper: Keeper[U, R] | None, *, desc: str | None = "",
                  errors: str = "record") -> Iterator[tuple[ItemResult[R], bool]]:
    """``(result, taken from the state)`` of every unit (``result.index``: its place in ``units``):
    the kept ones first, in unit order, then the others as ``executor`` finishes them, each kept
    (when :attr:`Keeper.keep` says so) before it is yielded."""
    units = list(units)
    keys = [keeper.key(u) for u in units] if keeper is not None else [None] * len(units)
    todo = []
    for i, (unit, key) in enumerate(zip(units, keys)):
        got = keeper.load(unit, key) if keeper is not None else None
        if got is None:
            todo.append(i)
        else:
            yield ItemResult(i, got), True
    for res in executor.as_completed(fn, [units[i] for i in todo], desc=desc, errors=errors):
        i = todo[res.index]
        if keeper is not None and res.ok and res.value is not None:
            keeper.save(units[i], keys[i], res.value)
        yield ItemResult(i, res.value, res.error), False
