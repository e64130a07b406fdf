"""Where the real benchmark data is: ``SHARED_DATA``, and how a test that needs it skips without it.

The folder is ``$BENCHCHECKER_SHARED_DATA`` when set, else ``$BENCHCHECKER_DATA_DIR`` (the data
folder the ``demo`` command reads, which some tests honoured before), else ``shared/data`` beside
the repository (``<repo>/../shared/data``). It is read in place and never copied.

For a test body or fixture, the ``shared_data`` fixture (``tests/conftest.py``) gives the folder;
``require_shared_data("mmlu")`` gives a path below it. At import or parametrize time, use
``SHARED_DATA`` and decorate with ``needs_shared_data("mmlu")``. All three skip with a reason that
names the missing path.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

__all__ = ["ENV_VARS", "SHARED_DATA", "needs_shared_data", "require_shared_data", "shared_data_dir"]

ENV_VARS = ("BENCHCHECKER_SHARED_DATA", "BENCHCHECKER_DATA_DIR")
_REPO = Path(__file__).resolve().parents[2]


def shared_data_dir() -> Path:
    """The shared data folder, from the first set variable of ``ENV_VARS`` or beside the repository."""
    for var in ENV_VARS:
        value = os.environ.get(var)
        if value:
            return Path(value).expanduser().resolve()
    return (_REPO / ".." / "shared" / "data").resolve()


SHARED_DATA = shared_data_dir()


def _reason(path: Path) -> str:
    return f"shared data not present: {path} (set {ENV_VARS[0]})"


def needs_shared_data(*parts: str) -> pytest.MarkDecorator:
    """A ``skipif`` marker: skip unless ``SHARED_DATA/<parts...>`` exists."""
    path = SHARED_DATA.joinpath(*parts)
    return pytest.mark.skipif(not path.exists(), reason=_reason(path))


def require_shared_data(*parts: str) -> Path:
    """``SHARED_DATA/<parts...>``, or skip the calling test (or fixture) when it does not exist."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(_reason(path))
    return path
