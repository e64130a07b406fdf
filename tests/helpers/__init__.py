"""Test helpers, imported by every test as ``tests.helpers`` (``pythonpath = .`` in setup.cfg puts the
repository root on ``sys.path``; not ``tests/`` itself, whose sub-packages such as ``tests/packaging``
would then shadow installed packages of the same name).

- ``shared_data``: where the real benchmark data is (``SHARED_DATA``) and skipping without it.
- ``flags``: ``comparable_flags``, flags compared without their creation time.
- ``scripted_model``: ``ScriptedModel``, a stand-in ``TextModel`` answering from a script.
- ``git_history``: ``commit_all`` (a dated commit) and the shared ``calc.py`` fix texts.
"""

from .flags import comparable_flags
from .scripted_model import Answer, ScriptedModel
from .shared_data import ENV_VARS, SHARED_DATA, needs_shared_data, require_shared_data, shared_data_dir

__all__ = [
    "Answer",
    "ENV_VARS",
    "SHARED_DATA",
    "ScriptedModel",
    "comparable_flags",
    "needs_shared_data",
    "require_shared_data",
    "shared_data_dir",
]
