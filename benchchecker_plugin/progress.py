"""Progress for every loop over items: a tqdm bar on a terminal, one log line per step otherwise.

On a terminal, a bar on stderr. When stderr is not a terminal (a pipe, CI, ``nohup``), a bar
would be silent or garbage, and a long run looked dead (the demo printed nothing for 12 minutes
under a pipe): instead one line ``benchchecker: <desc>: 120/600 (20%), 34 s`` is written about
every tenth of the work (at most one line per ``BENCHCHECKER_PROGRESS_SECONDS``, default 30 s,
when the total is unknown) and one when the loop ends.

``BENCHCHECKER_PROGRESS=0`` silences both; ``=1`` forces the bar.

Work made of many loops (Stage II: one per repository snapshot) shows one bar for the whole:
inside ``with one_bar(desc=..., total=...) as bar``, every :func:`progress` loop advances that
bar by ``bar.weight`` per item instead of drawing its own.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import TypeVar

from tqdm.auto import tqdm

__all__ = ["OneBar", "bytes_bar", "one_bar", "progress"]

T = TypeVar("T")


class OneBar:
    """The bar of :func:`one_bar`: nested loops advance it by ``weight`` per item."""

    def __init__(self, desc: str, total: int) -> None:
        self.weight = 1
        self._ticks = iter(progress(range(total), desc=desc, total=total))

    def advance(self, n: int) -> None:
        for _ in range(n):
            next(self._ticks, None)

    def close(self) -> None:
        for _ in self._ticks:   # the last line (and the bar's end) even if the total was high
            pass


_OUTER: ContextVar[OneBar | None] = ContextVar("benchchecker_one_bar", default=None)


@contextlib.contextmanager
def one_bar(*, desc: str, total: int) -> Iterator[OneBar]:
    """One progress bar for every :func:`progress` loop inside the block (see the module)."""
    bar = OneBar(desc, total)
    token = _OUTER.set(bar)
    try:
        yield bar
    finally:
        _OUTER.reset(token)
        bar.close()


def _advancing(items: Iterable[T], bar: OneBar) -> Iterator[T]:
    for item in items:
        yield item
        bar.advance(bar.weight)


def _mode() -> str:
    """``"bar"``, ``"lines"`` or ``"off"``."""
    env = os.environ.get("BENCHCHECKER_PROGRESS", "")
    if env == "0":
        return "off"
    if env == "1" or sys.stderr.isatty():
        return "bar"
    return "lines"


def _lines(items: Iterable[T], desc: str, total: int | None) -> Iterator[T]:
    every_s = float(os.environ.get("BENCHCHECKER_PROGRESS_SECONDS", "30") or 30)
    step = max(1, -(-total // 10)) if total else None
    start = last = time.perf_counter()
    done = 0
    name = desc or "progress"

    def line() -> None:
        share = f" ({done / total:.0%})" if total else ""
        print(f"benchchecker: {name}: {done}{'/' + str(total) if total else ''}{share}, "
              f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)

    for item in items:
        yield item
        done += 1
        now = time.perf_counter()
        if (step is not None and done % step == 0 and done != total) or \
                (step is None and now - last >= every_s):
            line()
            last = now
    line()


def progress(items: Iterable[T], *, desc: str = "", total: int | None = None) -> Iterable[T]:
    """Wrap ``items``: a progress bar on a terminal, log lines otherwise (see the module)."""
    outer = _OUTER.get()
    if outer is not None:
        return _advancing(items, outer)
    mode = _mode()
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    if mode == "lines":
        return _lines(items, desc, total)
    return tqdm(items, desc=desc or None, total=total, disable=mode == "off", leave=False,
                file=sys.stderr)


def bytes_bar(*, desc: str, total: int | None) -> tqdm:
    """A bar counting bytes (shown as MB and MB/s) on a terminal; silent otherwise (the caller
    prints its own summary line)."""
    return tqdm(desc=desc, total=total or None, unit="B", unit_scale=True, unit_divisor=1000,
                disable=_mode() != "bar", leave=False, file=sys.stderr)
