"""The executor contract every batch of work runs through, and its local form.

An executor maps a function over items two ways: :meth:`~Executor.map` gives the results in item
order, :meth:`~Executor.as_completed` yields each as it finishes (its ``index`` says which), so a
caller can keep finished work before the rest is done. :meth:`~Executor.share` sends a value that
every item reads (a benchmark table) to each worker once.

Failures: with ``errors="record"`` (the default) an exception ``fn`` raises for one item is that
item's :class:`ItemResult` ``error``, never success; with ``errors="raise"`` it is raised to the
caller (a bug or a bad input stops the run, as a plain loop would). A worker lost on a cluster is
always recorded (:mod:`._ray`).
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from ..errors import InputError
from ..progress import progress

T = TypeVar("T")
R = TypeVar("R")
T_co = TypeVar("T_co", covariant=True)
ERRORS = ("record", "raise")


@dataclass(frozen=True)
class ItemResult(Generic[R]):
    """Outcome of one item: ``value`` or the ``error`` message (never both)."""

    index: int
    value: R | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class Shared(Protocol[T_co]):
    """A value every item of a run reads, sent to each worker process once (:meth:`Executor.share`)."""

    def get(self) -> T_co:
        ...


class Executor(Protocol):
    """Maps a function over items, recording per-item failures (see the module)."""

    def map(self, fn: Callable[[T], R], items: Sequence[T], *, desc: str | None = "",
            weights: Sequence[int] | None = None, errors: str = "record") -> list[ItemResult[R]]:
        ...

    def as_completed(self, fn: Callable[[T], R], items: Sequence[T], *, desc: str | None = "",
                     errors: str = "record") -> Iterator[ItemResult[R]]:
        ...

    def share(self, value: T) -> Shared[T]:
        ...


@dataclass(frozen=True)
class Local(Generic[T]):
    """:class:`Shared` in this process: the value itself."""

    value: T

    def get(self) -> T:
        return self.value


def check_errors(errors: str) -> None:
    if errors not in ERRORS:
        raise InputError(f"errors={errors!r}: expected one of {', '.join(ERRORS)}")


def describe(exc: BaseException) -> str:
    """An exception as an item's error: ``"ValueError: bad item 1"``."""
    return f"{type(exc).__name__}: {exc}"


def call_item(fn: Callable[[T], R], index: int, item: T) -> ItemResult[R]:
    """``fn(item)`` as an :class:`ItemResult`, its exception recorded (never swallowed)."""
    try:
        return ItemResult(index, fn(item))
    except Exception as exc:  # recorded per item, never swallowed
        return ItemResult(index, error=describe(exc))


def _call(fn: Callable[[T], R], index: int, item: T, errors: str) -> ItemResult[R]:
    return ItemResult(index, fn(item)) if errors == "raise" else call_item(fn, index, item)


def _shown(items: Sequence[T], desc: str | None, **kw: object) -> Sequence[T]:
    """``items`` under a progress bar named ``desc`` (none for ``desc=None``)."""
    return items if desc is None else progress(items, desc=desc, **kw)  # type: ignore[return-value,arg-type]


class LocalExecutor:
    """Runs items in this process (``workers=1``, one after another) or on a pool of ``workers``
    threads."""

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise InputError(f"workers must be >= 1, got {workers}")
        self.workers = workers

    def map(self, fn: Callable[[T], R], items: Sequence[T], *, desc: str | None = "",
            weights: Sequence[int] | None = None, errors: str = "record") -> list[ItemResult[R]]:
        """Results in item order. ``weights``: items per element (a batch's prompts), so progress
        counts items."""
        check_errors(errors)
        items = list(items)
        if self.workers == 1:
            return [_call(fn, i, item, errors) for i, item in enumerate(_shown(items, desc, weights=weights))]
        results: list[ItemResult[R]] = []
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            futures: list[Future[R]] = [pool.submit(fn, item) for item in items]
            for i, fut in enumerate(_shown(futures, desc, weights=weights)):
                results.append(_settled(fut, i, errors))
        return results

    def as_completed(self, fn: Callable[[T], R], items: Sequence[T], *, desc: str | None = "",
                     errors: str = "record") -> Iterator[ItemResult[R]]:
        """Each item's result as it finishes (in item order with one worker)."""
        check_errors(errors)
        items = list(items)
        if self.workers == 1:
            for i, item in enumerate(_shown(items, desc)):
                yield _call(fn, i, item, errors)
            return
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            where: dict[Future[R], int] = {pool.submit(fn, item): i for i, item in enumerate(items)}
            done: Iterable[Future[R]] = concurrent.futures.as_completed(where)
            if desc is not None:
                done = progress(done, desc=desc, total=len(where))
            for fut in done:
                yield _settled(fut, where[fut], errors)

    def share(self, value: T) -> Shared[T]:
        return Local(value)


def _settled(fut: Future[R], index: int, errors: str) -> ItemResult[R]:
    if errors == "raise":
        return ItemResult(index, fut.result())
    exc = fut.exception()
    return ItemResult(index, error=describe(exc)) if exc else ItemResult(index, fut.result())
