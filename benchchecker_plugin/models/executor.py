"""The one interface every per-item loop runs through (local pools now, Ray later)."""

from __future__ import annotations

import os
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Generic, Protocol, Sequence, TypeVar

from ..progress import progress

__all__ = ["Executor", "ItemResult", "LocalExecutor", "get_executor"]

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class ItemResult(Generic[R]):
    """Outcome of one item: ``value`` or the ``error`` message (never both)."""

    index: int
    value: R | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class Executor(Protocol):
    """Maps a function over items, keeping order, recording per-item failures."""

    def map(self, fn: Callable[[T], R], items: Sequence[T], *, desc: str = "") -> list[ItemResult[R]]:
        ...


class LocalExecutor:
    """Runs items in-process (``workers=1``), in a thread pool, or in a process pool.

    Exceptions raised by ``fn`` for one item are caught *for that item* and recorded as an
    :class:`ItemResult` with ``error`` set; they are never counted as success.
    """

    def __init__(self, workers: int = 1, kind: str = "thread") -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if kind not in ("thread", "process"):
            raise ValueError(f"kind must be 'thread' or 'process', got {kind!r}")
        self.workers = workers
        self.kind = kind

    def map(self, fn: Callable[[T], R], items: Sequence[T], *, desc: str = "") -> list[ItemResult[R]]:
        items = list(items)
        results: list[ItemResult[R]] = []
        if self.workers == 1:
            for i, item in enumerate(progress(items, desc=desc)):
                results.append(_call(fn, i, item))
            return results
        pool_cls = ThreadPoolExecutor if self.kind == "thread" else ProcessPoolExecutor
        with pool_cls(max_workers=self.workers) as pool:
            futures: list[Future[R]] = [pool.submit(fn, item) for item in items]
            for i, fut in enumerate(progress(futures, desc=desc)):
                exc = fut.exception()
                results.append(ItemResult(i, error=_describe(exc)) if exc else ItemResult(i, fut.result()))
        return results


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _call(fn: Callable[[T], R], index: int, item: T) -> ItemResult[R]:
    try:
        return ItemResult(index, fn(item))
    except Exception as exc:  # recorded per item, never swallowed
        return ItemResult(index, error=_describe(exc))


def get_executor(workers: int | None = None, kind: str = "thread") -> Executor:
    """The default executor: ``workers`` threads (``None`` = number of CPUs, at most 8)."""
    if workers is None:
        workers = min(8, os.cpu_count() or 1)
    return LocalExecutor(workers, kind)
