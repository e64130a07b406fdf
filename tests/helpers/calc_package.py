"""An installable one-module package ``calc`` (``pyproject.toml`` + ``calc.py``) with its bug,
fix, refactored fix, gold patch and test patch: what the ``--verify venv`` / sandbox tests build
and run. (``git_history`` holds the Stage II texts, whose ``calc.py`` has a second function.)"""

from __future__ import annotations

__all__ = ["BUGGY", "FIXED", "PATCH", "PYPROJECT", "REFACTORED", "TEST_PATCH"]

BUGGY = "def add_one(x):\n    return int(x) + 1\n"
FIXED = "def add_one(x):\n    if x is None:\n        return 0\n    return int(x) + 1\n"
# the fix rewritten: one added line matches, the other does not
REFACTORED = "def add_one(x):\n    if x is None:\n        return int(0)\n    return int(x) + 1\n"
PATCH = ("--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,4 @@\n def add_one(x):\n+    if x is None:\n"
         "+        return 0\n     return int(x) + 1\n")
PYPROJECT = ('[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
             '[project]\nname = "calc"\nversion = "1.0"\n[tool.setuptools]\npy-modules = ["calc"]\n')
TEST_PATCH = ("--- /dev/null\n+++ b/test_calc.py\n@@ -0,0 +1,7 @@\n+import calc\n+\n+def test_none():\n"
              "+    assert calc.add_one(None) == 0\n+\n+def test_int():\n+    assert calc.add_one(1) == 2\n")
