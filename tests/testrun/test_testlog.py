"""Deciding a test run from the tests' results: parsers checked on real pytest and unittest
output (produced here) and against swebench's own pytest parser."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.testrun import Step, StepRun
from benchchecker_plugin.testrun._testlog import is_command, judge_run, lookup, pytest_statuses, step_summary
from tests.helpers import require_shared_data

TESTS = '''import pytest
def test_a(): assert True
def test_b(): assert False
@pytest.mark.xfail
def test_c(): assert False
@pytest.mark.parametrize("v", ["a b", "c"])
def test_p(v): assert v
'''
UNITTEST = '''import unittest
class T(unittest.TestCase):
    def test_a(self): pass
    def test_b(self): {body}
'''


def _run(tmp: Path, *argv: str) -> StepRun:
    proc = subprocess.run([sys.executable, *argv], cwd=tmp, capture_output=True, text=True, check=False)
    return StepRun(Step(tuple(argv)), proc.returncode, proc.stdout + proc.stderr, 0.0)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, StepRun]:
    tmp = tmp_path_factory.mktemp("logs")
    (tmp / "test_x.py").write_text(TESTS)
    (tmp / "ut_bad.py").write_text(UNITTEST.format(body="self.fail()"))
    (tmp / "ut_ok.py").write_text(UNITTEST.format(body="pass"))
    return {"rA": _run(tmp, "-m", "pytest", "-rA", "-p", "no:cacheprovider", "test_x.py"),
            "v": _run(tmp, "-m", "pytest", "-v", "-p", "no:cacheprovider", "test_x.py"),
            "one": _run(tmp, "-m", "pytest", "-p", "no:cacheprovider", "test_x.py::test_a"),
            "ut_bad": _run(tmp, "-m", "unittest", "ut_bad"),
            "ut_ok": _run(tmp, "-m", "unittest", "ut_ok")}


def test_pytest_statuses_from_both_output_styles(outputs) -> None:  # noqa: ANN001
    want = {"test_x.py::test_a": "PASSED", "test_x.py::test_b": "FAILED", "test_x.py::test_c": "XFAIL",
            "test_x.py::test_p[a b]": "PASSED", "test_x.py::test_p[c]": "PASSED"}
    assert pytest_statuses(outputs["rA"].output) == want
    assert pytest_statuses(outputs["v"].output) == want


def test_pytest_statuses_agree_with_swebench_where_it_can_read_the_id(outputs) -> None:  # noqa: ANN001
    from swebench.harness.log_parsers.python import parse_log_pytest

    theirs = parse_log_pytest(outputs["rA"].output, None)
    ours = pytest_statuses(outputs["rA"].output)
    for test, status in theirs.items():
        if " " not in test and "[a" not in test:  # swebench splits on spaces: "test_p[a b]" -> "test_p[a"
            assert ours[test] == status, test
    assert len([t for t in theirs if "[a" not in t]) == 4


def test_step_summaries(outputs) -> None:  # noqa: ANN001
    assert step_summary(outputs["rA"].output) == (4, 1)  # 3 passed + 1 xfailed, 1 failed
    assert step_summary(outputs["one"].output) == (1, 0)
    assert step_summary(outputs["ut_bad"].output) == (1, 1)
    assert step_summary(outputs["ut_ok"].output) == (2, 0)
    assert step_summary("hello\nall good\n") is None


def test_named_tests_decide_not_the_exit_code(outputs) -> None:  # noqa: ANN001
    inst = BugInstance("o__x-1", "swe-bench-verified", "o/x", "0" * 40, "",
                       fail_to_pass=("test_x.py::test_a", "test_x.py::test_p[a b]"),
                       pass_to_pass=("test_x.py::test_c",))
    run = outputs["rA"]
    assert run.returncode != 0  # test_b failed, but it is not one of the instance's tests
    verdict = judge_run(inst, [run])
    assert verdict.passed and verdict.detail == "3/3 named tests passed"
    missing = judge_run(BugInstance("o__x-2", "swe-bench-verified", "o/x", "0" * 40, "",
                                    fail_to_pass=("test_x.py::test_a", "test_x.py::test_zz")), [run])
    assert not missing.passed
    assert missing.tests == (("test_x.py::test_a", "PASSED"), ("test_x.py::test_zz", "missing"))
    silent = StepRun(Step(("python", "-c", "pass")), 0, "", 0.0)
    assert not judge_run(inst, [silent]).passed


def test_commands_need_a_summary_and_no_failures(outputs) -> None:  # noqa: ANN001
    cmds = BugInstance("p-1", "bugsinpy", "o/p", "0" * 40, "",
                       fail_to_pass=("pytest test_x.py::test_a", "python -m unittest ut_ok"))
    assert all(is_command(t) for t in cmds.fail_to_pass)
    good = judge_run(cmds, [outputs["one"], outputs["ut_ok"]])
    assert good.passed and good.detail == "2/2 test commands passed"
    bad = judge_run(cmds, [outputs["one"], outputs["ut_bad"]])
    assert not bad.passed and bad.tests[1][1].startswith("FAILED (exit 1, 1 passed, 1 failed)")
    silent = judge_run(cmds, [StepRun(Step(("true",)), 0, "", 0.0)])
    assert not silent.passed and silent.tests == (("true", "no results"),)
    assert "not counted as a pass" in silent.detail
    timed_out = judge_run(cmds, [StepRun(Step(("pytest",)), None, "", 1.0)])
    assert not timed_out.passed and timed_out.detail == "timeout in pytest"


def test_bugsinpy_run_test_lines_are_commands() -> None:
    data = require_shared_data("bugsinpy")
    lines = [ln for f in sorted(data.rglob("run_test.sh")) for ln in f.read_text().splitlines() if ln.strip()]
    assert len(lines) > 100
    assert all(is_command(ln) for ln in lines)
    assert not is_command("tests/test_x.py::test_y")
    assert not is_command("test_p[python -c]")


def test_names_cut_at_their_first_space_match_every_id_they_begin(outputs) -> None:  # noqa: ANN001
    """SWE-bench Verified names ``test_unparse[(1,`` where pytest says ``test_unparse[(1, 2)-(1, 2)]``
    (its older parser split ids at spaces): such a name stands for every id it begins, and passes
    only when all of them passed."""
    statuses = {"t.py::test_u[a - b-a - b]": "PASSED", "t.py::test_u[a or b-a or b]": "PASSED",
                "t.py::test_u[(1, 2)-(1, 2)]": "FAILED", "t.py::test_u[x]": "PASSED"}
    assert lookup(statuses, "t.py::test_u[a") == "PASSED"
    assert lookup(statuses, "t.py::test_u[(1,") == "FAILED"
    assert lookup(statuses, "t.py::test_u[x]") == "PASSED"
    assert lookup(statuses, "t.py::test_u[zz") == "missing"
    assert lookup(statuses, "t.py::test_u[a]") == "missing"   # a whole name is never a prefix
    assert lookup({**statuses, "t.py::test_u[a b]": "FAILED"}, "t.py::test_u[a") == "FAILED"
    cut = BugInstance("o__x-3", "swe-bench-verified", "o/x", "0" * 40, "", fail_to_pass=("test_x.py::test_p[a",))
    assert judge_run(cut, [outputs["rA"]]).tests == (("test_x.py::test_p[a", "PASSED"),)
