"""Progress for every loop over items: a tqdm bar on a terminal, one log line per step otherwise.

On a terminal, a bar on stderr. When stderr is not a terminal (a pipe, CI, ``nohup``), a bar
would be silent or garbage, and a long run looked dead (the demo printed nothing for 12 minutes
under a pipe): instead one line ``benchchecker: <desc>: 120/600 (20%), 34 s`` is written about
every tenth of the work (at most one line per ``BENCHCHECKER_PROGRESS_SECONDS``, default 30 s,
when the total is unknown) and one when the loop ends.

``BENCHCHECKER_PROGRESS=0`` silences both; ``=1`` forces the bar.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

from tqdm.auto import tqdm

__all__ = ["progress"]

T = TypeVar("T")


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
    mode = _mode()
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    if mode == "lines":
        return _lines(items, desc, total)
    return tqdm(items, desc=desc or None, total=total, disable=mode == "off", leave=False,
                file=sys.stderr)
