"""``--verify local``: the local runner settles an inconclusive instance by its named tests."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import pytest

from benchchecker_plugin.errors import ExecutionError
from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.repos import git
from benchchecker_plugin.stage2 import PresenceConfig, run_stage2
from benchchecker_plugin.testrun import LocalRunner
from tests.helpers.git_history import CALC_TEST as TEST
from tests.helpers.git_history import CALC_TEST_PATCH as TEST_PATCH
from tests.helpers.git_history import PATCH, REFACTORED, calc_repo


@pytest.fixture()
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, BugInstance]:
    repo, base = calc_repo(tmp_path, REFACTORED)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return repo, BugInstance("o__calc-1", "swe-bench-verified", "o/calc", base, PATCH, test_patch=TEST_PATCH,
                             fail_to_pass=("test_calc.py::test_none",),
                             pass_to_pass=("test_calc.py::test_int",), test_cmd=TEST)


def test_inconclusive_instance_is_verified_by_its_tests(setup) -> None:  # noqa: ANN001
    repo, inst = setup
    plain = list(run_stage2([inst], repo.parent, {"*": "2023-06-01"}, config=PresenceConfig(similarity="difflib"), reuse_counts=False).flags)
    assert plain[0].evidence["category"] == "refactored-inconclusive" and plain[0].contaminated is None
    status = git(repo, ["status", "--porcelain"])
    runner = LocalRunner(repo.parent, timeout=60)
    (flag,) = list(run_stage2([inst], repo.parent, {"*": "2023-06-01"}, config=PresenceConfig(similarity="difflib", runner=runner), reuse_counts=False).flags)
    assert flag.contaminated is True and flag.score == 1.0
    assert flag.evidence["category"] == "verified-by-tests"
    assert flag.evidence["verification"]["passed"] is True
    assert flag.evidence["verification"]["tests"] == {"test_calc.py::test_none": "PASSED",
                                                      "test_calc.py::test_int": "PASSED"}
    # nothing written outside the temporary export, which is gone
    assert git(repo, ["status", "--porcelain"]) == status
    assert list(Path(tempfile.tempdir).iterdir()) == []


def test_failing_tests_leave_it_inconclusive(setup) -> None:  # noqa: ANN001
    repo, inst = setup
    failing = TEST_PATCH.replace("add_one(None) == 0", "add_one(None) == 5")
    inst = dataclasses.replace(inst, test_patch=failing)
    (flag,) = list(run_stage2([inst], repo.parent, {"*": "2023-06-01"}, config=PresenceConfig(similarity="difflib", runner=LocalRunner(repo.parent)), reuse_counts=False).flags)
    verification = flag.evidence["verification"]
    assert flag.contaminated is None and verification["passed"] is False
    assert verification["tests"]["test_calc.py::test_none"] == "FAILED"
    assert verification["detail"].startswith("1/2 named tests passed; not: test_calc.py::test_none (FAILED)")
    assert "AssertionError" in verification["log_tail"]


def test_exit_code_zero_is_not_a_pass(setup) -> None:  # noqa: ANN001
    """A command that exits 0 without running the named tests does not verify anything."""
    repo, inst = setup
    out = LocalRunner(repo.parent, test_cmd="python -c pass").run(inst, "")
    assert not out.passed
    assert out.tests == (("test_calc.py::test_none", "missing"), ("test_calc.py::test_int", "missing"))


def test_timeout_and_missing_command(setup) -> None:  # noqa: ANN001
    repo, inst = setup
    out = LocalRunner(repo.parent, test_cmd="sleep 5", timeout=0.5).run(inst, "")
    assert not out.passed and out.detail == "timeout in sleep 5"
    bare = BugInstance("o__calc-2", "swe-bench-verified", "o/calc", inst.base_commit, PATCH)
    with pytest.raises(ExecutionError, match="instance 'o__calc-2': no test command"):
        LocalRunner(repo.parent).run(bare, "")
