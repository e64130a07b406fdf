"""Where the task files shipped with benchchecker are, in a checkout or an installed wheel.

The repository keeps them in the top-level ``tasks/`` folder (the product card's layout); the wheel
maps that folder into the package as ``benchchecker_plugin.tasks`` (``[tool.setuptools.package-dir]``
in ``pyproject.toml``), so ``--include_path "$(benchchecker tasks path)"`` works from anywhere.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from .errors import InputError

__all__ = ["HARNESSES", "tasks_dir"]

HARNESSES = ("lm-eval",)
_FOLDER = {"lm-eval": "lm_eval"}


def _root() -> Path:
    try:
        module = importlib.import_module("benchchecker_plugin.tasks")
    except ImportError:   # a checkout imported from its own folder: tasks/ beside the package
        here = Path(__file__).resolve().parent.parent / "tasks"
        if here.is_dir():
            return here
        raise InputError("the shipped task files are missing from this installation "
                         "(reinstall benchchecker_plugin)") from None
    return Path(next(iter(module.__path__))).resolve()


def tasks_dir(harness: str = "lm-eval") -> Path:
    """The folder of ``harness``'s shipped tasks (``lm-eval``: the ``--include_path`` folder)."""
    if harness not in _FOLDER:
        raise InputError(f"no shipped tasks for harness {harness!r} (have: {', '.join(HARNESSES)})")
    folder = _root() / _FOLDER[harness]
    if not folder.is_dir():
        raise InputError(f"{folder}: the shipped {harness} tasks are missing (reinstall benchchecker_plugin)")
    return folder
