"""The modified patch: the snapshot's lines spliced into the gold patch, whole statements where
line by line does not parse."""

from __future__ import annotations

from pathlib import Path

from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.stage2 import PresenceConfig, run_stage2
from benchchecker_plugin.stage2._splice import whole_statements
from benchchecker_plugin.testrun import LocalRunner
from tests.helpers.git_history import CALC_TEST as TEST
from tests.helpers.git_history import CALC_TEST_PATCH as TEST_PATCH
from tests.helpers.git_history import FIXED, PATCH, calc_repo


def test_snapshot_statements_reshaped_since_are_transplanted_whole(tmp_path: Path) -> None:
    """The fix rewritten as a one-line ``if``: put line by line into the base commit, the
    snapshot's lines leave an indented orphan (the tests could only fail at import); the
    snapshot's statements are transplanted whole instead, and the tests run on them."""
    repo, base = calc_repo(tmp_path, FIXED.replace("    if x is None:\n        return 0\n", "    if x is None: return 0\n"))
    inst = BugInstance("o__calc-1", "swe-bench-verified", "o/calc", base, PATCH, test_patch=TEST_PATCH,
                       fail_to_pass=("test_calc.py::test_none",), pass_to_pass=("test_calc.py::test_int",),
                       test_cmd=TEST)
    (flag,) = list(run_stage2([inst], repo.parent, {"*": "2023-06-01"}, config=PresenceConfig(
        similarity="difflib", runner=LocalRunner(repo.parent, allow_unsandboxed=True)), reuse_counts=False).flags)
    assert flag.contaminated is True and flag.evidence["category"] == "verified-by-tests"
    assert flag.evidence["verification"]["transplanted"] is True
    assert flag.evidence["verification"]["tests"] == {"test_calc.py::test_none": "PASSED",
                                                      "test_calc.py::test_int": "PASSED"}


def testwhole_statements() -> None:
    text = ("def f(x):\n"            # 0
            "    if (x is None\n"     # 1
            "            or x < 0):\n"  # 2
            "        y = 0\n"         # 3
            "        z = 1\n"         # 4
            "    else:\n"             # 5
            "        y = x\n"         # 6
            "    return y\n")         # 7
    assert whole_statements(text, 2, 2) == (1, 6)   # a header row: the whole if/else
    assert whole_statements(text, 3, 3) == (3, 3)   # a statement in one body: itself
    assert whole_statements(text, 4, 6) == (1, 6)   # rows in both bodies: the if/else
    assert whole_statements(text, 7, 7) == (7, 7)
    assert whole_statements("print 'py2'\n", 0, 0) == (0, 0)   # unparsable: unchanged
