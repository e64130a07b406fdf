"""The one interface every per-item loop runs through: in-process or a thread pool here, a Ray cluster
in :mod:`._ray_executor`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from ..errors import InputError
from ..progress import progress

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
    """Runs items in-process (``workers=1``) or in a thread pool of ``workers`` threads.

    Exceptions raised by ``fn`` for one item are caught *for that item* and recorded as an
    :class:`ItemResult` with ``error`` set; they are never counted as success.
    """

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise InputError(f"workers must be >= 1, got {workers}")
        self.workers = workers

    def map(self, fn: Callable[[T], R], items: Sequence[T], *, desc: str = "",
            weights: Sequence[int] | None = None) -> list[ItemResult[R]]:
        """``weights``: items per element (a batch's prompts), so progress counts items."""
        items = list(items)
        results: list[ItemResult[R]] = []
        if self.workers == 1:
            for i, item in enumerate(progress(items, desc=desc, weights=weights)):
                results.append(call_item(fn, i, item))
            return results
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            futures: list[Future[R]] = [pool.submit(fn, item) for item in items]
            for i, fut in enumerate(progress(futures, desc=desc, weights=weights)):
                exc = fut.exception()
                results.append(ItemResult(i, error=_describe(exc)) if exc else ItemResult(i, fut.result()))
        return results


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def call_item(fn: Callable[[T], R], index: int, item: T) -> ItemResult[R]:
    try:
        return ItemResult(index, fn(item))
    except Exception as exc:  # recorded per item, never swallowed
        return ItemResult(index, error=_describe(exc))
