"""Test-suite verification: the modified diff, the local runner, the swebench runner's grading."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import pytest

from benchchecker_plugin.errors import ExecutionError
from benchchecker_plugin.instances import BugInstance, load_swebench
from benchchecker_plugin.repos.git import git
from benchchecker_plugin.stage2 import (
    LocalRunner,
    PresenceConfig,
    SwebenchRunner,
    grade_swebench_log,
    patch_presence,
)
from tests.helpers.git_history import BUGGY, FIXED, PATCH, REFACTORED, commit_all

TEST_PATCH = """--- /dev/null
+++ b/test_calc.py
@@ -0,0 +1,8 @@
+import calc
+
+
+def test_none():
+    assert calc.add_one(None) == 0
+
+def test_int():
+    assert calc.add_one(1) == 2
"""
TEST = "python -m pytest -rA -p no:cacheprovider test_calc.py"


def _calc_repo(tmp_path: Path, later: str) -> tuple[Path, str]:
    """``repos/o__calc``: the buggy calc.py, its fix, then ``later``; the folder and the base sha."""
    repo = tmp_path / "repos" / "o__calc"
    repo.mkdir(parents=True)
    git(repo, ["init", "-q", "-b", "main"])
    (repo / "calc.py").write_text(BUGGY)
    base = commit_all(repo, "2023-01-01")
    (repo / "calc.py").write_text(FIXED)
    commit_all(repo, "2023-02-01")
    (repo / "calc.py").write_text(later)
    commit_all(repo, "2023-03-01")
    return repo, base


@pytest.fixture()
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, BugInstance]:
    repo, base = _calc_repo(tmp_path, REFACTORED)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return repo, BugInstance("o__calc-1", "swe-bench-verified", "o/calc", base, PATCH, test_patch=TEST_PATCH,
                             fail_to_pass=("test_calc.py::test_none",),
                             pass_to_pass=("test_calc.py::test_int",), test_cmd=TEST)


def test_inconclusive_instance_is_verified_by_its_tests(setup) -> None:  # noqa: ANN001
    repo, inst = setup
    plain = patch_presence([inst], repo.parent, "2023-06-01", config=PresenceConfig(similarity="difflib"))
    assert plain[0].evidence["category"] == "refactored-inconclusive" and plain[0].contaminated is None
    status = git(repo, ["status", "--porcelain"])
    runner = LocalRunner(repo.parent, timeout=60)
    (flag,) = patch_presence([inst], repo.parent, "2023-06-01",
                             config=PresenceConfig(similarity="difflib", runner=runner))
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
    (flag,) = patch_presence([inst], repo.parent, "2023-06-01",
                             config=PresenceConfig(similarity="difflib", runner=LocalRunner(repo.parent)))
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


def test_swebench_runner_up_to_the_harness_and_grading(tmp_path: Path, shared_data: Path) -> None:
    from swebench.harness.constants import END_TEST_OUTPUT, START_TEST_OUTPUT

    subset = shared_data / "swebench_verified" / "swebench_verified_fullfields_subset.jsonl"
    insts = [i for i in load_swebench(subset) if i.repo == "astropy/astropy"]
    inst = insts[0]
    seen: dict = {}

    def harness(instance, prediction, run_id, timeout):  # noqa: ANN001, ANN202
        seen.update(prediction=prediction, run_id=run_id)
        status = "PASSED" if "resolve" in prediction["model_patch"] else "FAILED"
        lines = [f"{status} {t}" for t in instance.fail_to_pass] + [f"PASSED {t}" for t in instance.pass_to_pass]
        log = tmp_path / f"{status}.txt"
        log.write_text("\n".join(["+ pytest", START_TEST_OUTPUT, *lines, END_TEST_OUTPUT]) + "\n")
        return log

    runner = SwebenchRunner(harness=harness)
    ok = runner.run(inst, "diff that should resolve")
    assert ok.passed and ok.runner == "swebench"
    assert seen["prediction"] == {"instance_id": inst.instance_id, "model_name_or_path": runner.model_name,
                                  "model_patch": "diff that should resolve"}
    assert not runner.run(inst, "diff that fails").passed
    assert not grade_swebench_log(inst, seen["prediction"], tmp_path / "FAILED.txt")


def test_swebench_runner_without_docker_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import docker

    def no_docker():  # noqa: ANN202
        raise docker.errors.DockerException("no socket")

    monkeypatch.setattr(docker, "from_env", no_docker)
    inst = BugInstance("x-1", "swe-bench-verified", "o/x", "abc", PATCH)
    with pytest.raises(ExecutionError, match="instance 'x-1': Docker is not available"):
        SwebenchRunner().run(inst, PATCH)


def test_find_repo_ignores_case_like_github(tmp_path) -> None:  # noqa: ANN001
    """Regression: Multi-SWE-bench names ``fasterxml/jackson-core``; the clone is FasterXML__jackson-core."""
    from benchchecker_plugin.errors import RepositoryError
    from benchchecker_plugin.instances.bug import BugInstance
    from benchchecker_plugin.stage2.verify import find_repo

    (tmp_path / "FasterXML__jackson-core").mkdir()
    inst = BugInstance(benchmark="multi-swe-bench", instance_id="fasterxml__jackson-core-1",
                       repo="fasterxml/jackson-core", base_commit="0" * 40, patch="")
    assert find_repo(tmp_path, inst) == tmp_path / "FasterXML__jackson-core"
    other = BugInstance(benchmark="multi-swe-bench", instance_id="x__y-1", repo="x/y",
                        base_commit="0" * 40, patch="")
    import pytest
    with pytest.raises(RepositoryError, match="no clone of x/y"):
        find_repo(tmp_path, other)


def test_snapshot_statements_reshaped_since_are_transplanted_whole(tmp_path: Path) -> None:
    """The fix rewritten as a one-line ``if``: put line by line into the base commit, the
    snapshot's lines leave an indented orphan (the tests could only fail at import); the
    snapshot's statements are transplanted whole instead, and the tests run on them."""
    repo, base = _calc_repo(tmp_path, FIXED.replace("    if x is None:\n        return 0\n", "    if x is None: return 0\n"))
    inst = BugInstance("o__calc-1", "swe-bench-verified", "o/calc", base, PATCH, test_patch=TEST_PATCH,
                       fail_to_pass=("test_calc.py::test_none",), pass_to_pass=("test_calc.py::test_int",),
                       test_cmd=TEST)
    (flag,) = patch_presence([inst], repo.parent, "2023-06-01", config=PresenceConfig(
        similarity="difflib", runner=LocalRunner(repo.parent, allow_unsandboxed=True)))
    assert flag.contaminated is True and flag.evidence["category"] == "verified-by-tests"
    assert flag.evidence["verification"]["transplanted"] is True
    assert flag.evidence["verification"]["tests"] == {"test_calc.py::test_none": "PASSED",
                                                      "test_calc.py::test_int": "PASSED"}


def test_whole_statements() -> None:
    from benchchecker_plugin.stage2.verify import _whole_statements

    text = ("def f(x):\n"            # 0
            "    if (x is None\n"     # 1
            "            or x < 0):\n"  # 2
            "        y = 0\n"         # 3
            "        z = 1\n"         # 4
            "    else:\n"             # 5
            "        y = x\n"         # 6
            "    return y\n")         # 7
    assert _whole_statements(text, 2, 2) == (1, 6)   # a header row: the whole if/else
    assert _whole_statements(text, 3, 3) == (3, 3)   # a statement in one body: itself
    assert _whole_statements(text, 4, 6) == (1, 6)   # rows in both bodies: the if/else
    assert _whole_statements(text, 7, 7) == (7, 7)
    assert _whole_statements("print 'py2'\n", 0, 0) == (0, 0)   # unparsable: unchanged
