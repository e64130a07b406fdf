"""Test helpers, imported by every test as ``tests.helpers`` (``pythonpath = .`` in setup.cfg puts the
repository root on ``sys.path``; not ``tests/`` itself, whose sub-packages such as ``tests/packaging``
would then shadow installed packages of the same name).

- ``shared_data``: where the real benchmark data is (``SHARED_DATA``) and skipping without it.
- ``flags``: ``comparable_flags``, flags compared without their creation time.
- ``scripted_model``: ``ScriptedModel``, a stand-in ``TextModel`` answering from a script.
- ``git_history``: ``commit_all`` (a dated commit), ``history`` (a repository of dated commits)
  and the shared ``calc.py`` fix texts; ``calc_package``: the installable ``calc`` package that
  the ``--verify venv`` and sandbox tests build.
- ``tiny_lm``: a tiny GPT-2 built (and trained to memorise texts) in a test.
- ``optional``: ``needs_module``, skip unless a package is installed, without importing it.
- ``markdown``: ``render``, Markdown rendered by a CommonMark renderer, as its elements and text.
- ``sampling``: ``SWEEP`` and ``sweep``, a whole real-data sweep in the slow tier and a seeded
  sample of it in the fast tier.
"""

from .flags import comparable_flags
from .optional import has_module, needs_module
from .sampling import SWEEP, seeded_sample, sweep
from .scripted_model import Answer, ScriptedModel
from .shared_data import ENV_VARS, SHARED_DATA, needs_shared_data, require_shared_data, shared_data_dir

__all__ = [
    "Answer",
    "ENV_VARS",
    "SHARED_DATA",
    "SWEEP",
    "ScriptedModel",
    "comparable_flags",
    "has_module",
    "needs_module",
    "needs_shared_data",
    "require_shared_data",
    "seeded_sample",
    "shared_data_dir",
    "sweep",
]
