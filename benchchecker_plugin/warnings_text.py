"""Warnings of benchchecker's own code as one line in words (``benchchecker: warning: ...``, each
text once), not as a Python warning with a file, a line number and a source line; other
libraries' warnings keep their usual form.

The ``benchchecker`` commands turn this on for their run; code that runs inside another program
(the Inspect hook under plain ``inspect eval``, the benchmark scripts) uses
:func:`warnings_in_words` around its work.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["show_warnings_in_words", "warnings_in_words"]

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_OURS = tuple(os.path.join(_ROOT, pkg) + os.sep for pkg in ("benchchecker_plugin", "harness_adapters"))


def show_warnings_in_words() -> Callable[[], None]:
    """Show our warnings in words from now on; returns the function that restores the display."""
    previous = warnings.showwarning
    shown: set[str] = set()

    def show(message: Any, category: type, filename: str, lineno: int, file: Any = None,
             line: str | None = None) -> None:
        if not os.path.abspath(filename).startswith(_OURS):
            previous(message, category, filename, lineno, file, line)
            return
        text = str(message)
        if text not in shown:
            shown.add(text)
            print(f"benchchecker: warning: {text}", file=sys.stderr, flush=True)

    warnings.showwarning = show
    return lambda: setattr(warnings, "showwarning", previous)


@contextlib.contextmanager
def warnings_in_words() -> Iterator[None]:
    """Our warnings in words while the block runs (see the module)."""
    restore = show_warnings_in_words()
    try:
        yield
    finally:
        restore()
