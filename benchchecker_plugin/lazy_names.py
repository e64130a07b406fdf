"""Names a package's face exports but loads on first use (PEP 562), for the few whose module is
heavy to import (torch, pandas) while the package itself is needed light."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports ``table[name]`` (a module relative to
    the package, ``"._hf"``) the first time ``name`` is asked for, and keeps the value on the
    package (later look-ups are plain attribute reads)."""
    def __getattr__(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(table[name], package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
