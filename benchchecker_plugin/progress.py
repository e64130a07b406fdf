"""Progress for every loop over items: a tqdm bar on a terminal, one log line per step otherwise.

On a terminal, a bar on stderr. When stderr is not a terminal (a pipe, CI, ``nohup``), a bar
would be silent or garbage, and a long run looked dead (the demo printed nothing for 12 minutes
under a pipe): instead one line ``benchchecker: <desc>: 120/600 (20%), 34 s`` is written about
every tenth of the work, and at least one every ``BENCHCHECKER_PROGRESS_SECONDS`` (default 30 s)
while a tenth takes longer (the only rule when the total is unknown: a fine-tune that stops long
before its step cap, a slow machine), and one when the loop ends.

``BENCHCHECKER_PROGRESS=0`` silences both; ``=1`` forces the bar.

Work made of many loops (Stage II: one per repository snapshot) shows one bar for the whole:
inside ``with one_bar(desc=..., total=...) as bar``, every :func:`progress` loop advances that
bar by ``bar.weight`` per item instead of drawing its own.

One bar per job, not a stack of nested bars: a loop inside another running :func:`progress` loop (a model's
per-batch ``generate`` inside the job's loop) draws nothing, and neither does a loop of one step.
``weights=`` counts items, not batches (a batch of 16 prompts advances the bar by 16), and lines
carry the rate and the time left: ``benchchecker: ts-guessing: 48/200 (24%), 3.1 items/s, ETA 49 s,
15 s``. :func:`model_label` names a model in full without the spec's double slash (``hf//x``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from typing import TypeVar

from tqdm.auto import tqdm

__all__ = ["ByteLines", "OneBar", "bytes_bar", "current_bar", "model_label", "one_bar", "progress"]

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
_RUNNING: ContextVar[bool] = ContextVar("benchchecker_progress_running", default=False)


def model_label(spec: str) -> str:
    """``hf//data/m.gguf`` → ``hf:/data/m.gguf`` (a local path, in full); other specs unchanged."""
    backend, sep, rest = spec.partition("/")
    return f"{backend}:{rest}" if sep and rest.startswith("/") else spec


def _running(items: Iterable[T]) -> Iterator[T]:
    """Marks the loop as running, so loops nested in its body stay silent."""
    previous = _RUNNING.get()
    _RUNNING.set(True)
    try:
        yield from items
    finally:
        _RUNNING.set(previous)


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


def current_bar() -> OneBar | None:
    """The :func:`one_bar` this code runs inside (this thread's context), or ``None``."""
    return _OUTER.get()


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


def _every_s() -> float:
    """``BENCHCHECKER_PROGRESS_SECONDS``: the longest wait between two lines (see the module)."""
    return float(os.environ.get("BENCHCHECKER_PROGRESS_SECONDS", "30") or 30)


def _tenth(total: int | None) -> int | None:
    """The work between two lines: a tenth of ``total`` (rounded up), ``None`` when unknown."""
    return max(1, -(-total // 10)) if total else None


def _lines(items: Iterable[T], desc: str, total: int | None,
           weights: Sequence[int] | None = None, unit: str | None = None,
           status: Callable[[], str] | None = None) -> Iterator[T]:
    every_s = _every_s()
    step = _tenth(total)
    start = last = time.perf_counter()
    done = 0
    name = desc or "progress"

    def line() -> None:
        share = f" ({done / total:.0%})" if total else ""
        took = time.perf_counter() - start
        rate = ""
        if (weights is not None or unit) and took > 0 and done:
            per_s = done / took
            rate = f", {per_s:.3g} {unit or 'items'}/s" + (f", ETA {(total - done) / per_s:.0f} s"
                                                          if total and done < total else "")
        said = status() if status is not None else ""
        print(f"benchchecker: {name}: {done}{'/' + str(total) if total else ''}{share}{rate}, "
              f"{took:.0f} s" + (f", {said}" if said else ""), file=sys.stderr, flush=True)

    ticks = iter(weights) if weights is not None else None
    try:
        for item in items:
            weight = next(ticks, 1) if ticks is not None else 1
            try:
                yield item
            except GeneratorExit:   # the loop was left early, after doing this item
                done += weight
                raise
            previous = done
            done += weight
            now = time.perf_counter()
            if done != total and ((step is not None and done // step != previous // step)
                                  or now - last >= every_s):
                line()
                last = now
    finally:   # also when the loop ends early (a training run that stops once it has converged)
        line()


def progress(items: Iterable[T], *, desc: str = "", total: int | None = None,
             weights: Sequence[int] | None = None, unit: str | None = None,
             status: Callable[[], str] | None = None) -> Iterable[T]:
    """Wrap ``items``: a progress bar on a terminal, log lines otherwise (see the module).

    ``weights``: items per element (a batch's size), so the bar counts items with a rate and ETA.
    ``unit``: what one element is (``"steps"``): lines then carry the rate and ETA in that unit.
    ``status``: called for each line (and each bar refresh) to append a few words of state, say a
    training loss: ``benchchecker: fine-tune: 60/600 (10%), 2.1 steps/s, ETA 257 s, 29 s, loss 1.234``.
    A loop left early (``break``) still writes its last line.
    """
    outer = _OUTER.get()
    if outer is not None:
        return _advancing(items, outer)
    mode = _mode()
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    if _RUNNING.get() or (total is not None and total <= 1):
        return items           # one bar per job: nested loops and single steps draw nothing
    if weights is not None:
        weights = list(weights)
        total = sum(weights)
    if mode == "lines":
        return _running(_lines(items, desc, total, weights, unit, status))
    if weights is not None:
        return _running(_weighted_bar(items, desc, total, weights, disable=mode == "off"))
    if status is not None:
        return _running(_status_bar(items, desc, total, unit, status, disable=mode == "off"))
    return _running(tqdm(items, desc=desc or None, total=total, disable=mode == "off", leave=False,
                         file=sys.stderr, unit=unit or "it"))


def _status_bar(items: Iterable[T], desc: str, total: int | None, unit: str | None,
                status: Callable[[], str], *, disable: bool) -> Iterator[T]:
    with tqdm(desc=desc or None, total=total, disable=disable, leave=False, file=sys.stderr,
              unit=unit or "it") as bar:
        for item in items:
            yield item
            bar.set_postfix_str(status(), refresh=False)
            bar.update(1)


def _weighted_bar(items: Iterable[T], desc: str, total: int | None, weights: Sequence[int], *,
                  disable: bool) -> Iterator[T]:
    with tqdm(desc=desc or None, total=total, disable=disable, leave=False, file=sys.stderr,
              unit="item") as bar:
        for item, weight in zip(items, weights):
            yield item
            bar.update(weight)


class ByteLines:
    """:func:`bytes_bar` when stderr is not a terminal: a line about every tenth of ``total``
    (at most one per ``BENCHCHECKER_PROGRESS_SECONDS`` when the total is unknown) with MB, rate
    and time left, and one at the end."""

    def __init__(self, desc: str, total: int | None) -> None:
        self.desc, self.total = desc or "progress", total or None
        self.step = _tenth(self.total)
        self.done = 0
        self.start = self.last = time.perf_counter()
        self.every_s = _every_s()

    def _line(self) -> None:
        took = time.perf_counter() - self.start
        share = f" ({min(self.done / self.total, 1.0):.0%})" if self.total else ""
        of = f"/{self.total / 1e6:.1f}" if self.total else ""
        rate = self.done / 1e6 / took if took > 0 else 0.0
        left = (f", ETA {(self.total - self.done) / (self.done / took):.0f} s"
                if self.total and 0 < self.done < self.total and took > 0 else "")
        print(f"benchchecker: {self.desc}: {self.done / 1e6:.1f}{of} MB{share}, {rate:.1f} MB/s"
              f"{left}, {took:.0f} s", file=sys.stderr, flush=True)

    def update(self, n: int) -> None:
        before = self.done
        self.done += n
        now = time.perf_counter()
        if self.total and self.step is not None:
            if self.done // self.step != before // self.step and self.done < self.total:
                self._line()
        elif now - self.last >= self.every_s:
            self._line()
            self.last = now

    def close(self) -> None:
        self._line()

    def __enter__(self) -> ByteLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def bytes_bar(*, desc: str, total: int | None) -> tqdm | ByteLines:
    """A bar counting bytes (shown as MB and MB/s, with the time left) on a terminal; when stderr
    is not a terminal, a line about every tenth (:class:`ByteLines`); nothing with
    ``BENCHCHECKER_PROGRESS=0``."""
    mode = _mode()
    if mode == "lines":
        return ByteLines(desc, total)
    return tqdm(desc=desc, total=total or None, unit="B", unit_scale=True, unit_divisor=1000,
                disable=mode != "bar", leave=False, file=sys.stderr)
