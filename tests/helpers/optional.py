"""Optional packages found without importing them: collecting the tests must not import torch,
lm-eval, Inspect or Ray (seconds each), so a module that needs one says so with ``needs_module``
and imports it inside its tests or fixtures."""

from __future__ import annotations

import importlib.util

import pytest

__all__ = ["has_module", "needs_module"]


def has_module(name: str) -> bool:
    """Whether the top-level package ``name`` is installed (looked up, not imported)."""
    if "." in name:
        raise ValueError(f"has_module({name!r}): give a top-level package (a submodule would import its parent)")
    return importlib.util.find_spec(name) is not None


def needs_module(name: str) -> pytest.MarkDecorator:
    """A ``skipif`` marker: skip unless the top-level package ``name`` is installed."""
    return pytest.mark.skipif(not has_module(name), reason=f"{name} is not installed")
