"""Progress bars for every loop over items (tqdm; silent when not on a terminal or when disabled)."""

from __future__ import annotations

import os
import sys
from typing import Iterable, TypeVar

from tqdm.auto import tqdm

__all__ = ["progress"]

T = TypeVar("T")


def progress(items: Iterable[T], *, desc: str = "", total: int | None = None) -> Iterable[T]:
    """Wrap ``items`` in a progress bar on stderr.

    Disabled when ``BENCHCHECKER_PROGRESS=0`` or stderr is not a terminal (logs stay clean).
    """
    disable = os.environ.get("BENCHCHECKER_PROGRESS", "") == "0" or not sys.stderr.isatty()
    if os.environ.get("BENCHCHECKER_PROGRESS", "") == "1":
        disable = False
    return tqdm(items, desc=desc or None, total=total, disable=disable, leave=False, file=sys.stderr)
