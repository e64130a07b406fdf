"""Deciding a test run from the tests' own results, never from an exit code alone.

An instance names its tests in two ways:

* **test ids** (SWE-bench's FAIL_TO_PASS / PASS_TO_PASS: ``tests/test_x.py::test_y``): each is
  looked up in the run's output, parsed with swebench's log parser of the repository when
  swebench is installed and has one, else with the pytest parser below (the same rules as
  swebench's ``parse_log_pytest``: ``-rA`` summary lines and ``-v`` lines). The run passes when
  every named test passed (or xfailed); a named test missing from the output fails it.
* **commands** (BugsInPy's ``run_test.sh``, or a ``--test-cmd`` without named tests): each step
  passes when it exited 0 *and* its output reports at least one test run and none failed
  (pytest's or unittest's summary line); an output that reports nothing fails it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from ..instances import BugInstance
from ._sandbox import StepRun
from ._swebench import repo_statuses

_STATUSES = ("PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL", "XPASS")
_OK = {"PASSED", "XFAIL"}
_RUNNERS = {"pytest", "py.test", "python", "python3", "tox", "nosetests", "coverage"}
_VERBOSE = re.compile(r"^(\S+::\S.*?) (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b")
_PYTEST_TAIL = re.compile(r"^=+ (.*\b(?:passed|failed|error|errors|skipped|xfailed|xpassed|"
                          r"deselected|no tests ran)\b.*) in [\d.]+s?.*=+$")
_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)")
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in ")
_UNITTEST_END = re.compile(r"^(OK|FAILED)\b(?: \((.*)\))?")


@dataclass(frozen=True)
class TestVerdict:
    """``passed`` when every test the instance names (or every step) passed; ``tests`` maps each
    named test (or step) to what the output says: a status, ``missing``, ``no results`` or
    ``timeout``."""

    passed: bool
    detail: str
    tests: tuple[tuple[str, str], ...]


def is_command(test: str) -> bool:
    """Whether an instance's test entry is a command to run (BugsInPy) rather than a test id."""
    try:
        first = shlex.split(test)[:1]
    except ValueError:
        return False
    return bool(first) and first[0].rsplit("/", 1)[-1] in _RUNNERS and " " in test.strip()


def pytest_statuses(log: str) -> dict[str, str]:
    """Test id -> status from pytest output (``-rA`` summary lines and ``-v`` progress lines)."""
    out: dict[str, str] = {}
    for raw in log.splitlines():
        line = raw.strip()
        head = line.split(" ", 1)[0]
        if head in _STATUSES and " " in line:
            rest = line.split(" ", 1)[1]
            if head in ("FAILED", "ERROR", "XFAIL", "XPASS"):
                rest = rest.split(" - ", 1)[0]
            out[rest.strip()] = head
            continue
        m = _VERBOSE.match(line)
        if m:
            out.setdefault(m.group(1), m.group(2))
    return out


def _statuses(inst: BugInstance, log: str) -> dict[str, str]:
    return repo_statuses(inst, log) or pytest_statuses(log)


def step_summary(output: str) -> tuple[int, int] | None:
    """(tests passed, tests failed or errored) from pytest's or unittest's summary line; ``None``
    when the output has neither."""
    for line in reversed(output.splitlines()):
        m = _PYTEST_TAIL.match(line.strip())
        if m:
            counts = {k.rstrip("s") if k.startswith("error") else k: int(n) for n, k in _COUNT.findall(m.group(1))}
            return (counts.get("passed", 0) + counts.get("xfailed", 0),
                    counts.get("failed", 0) + counts.get("error", 0))
    lines = [ln.strip() for ln in output.splitlines()]
    for i, line in enumerate(lines):
        m = _UNITTEST_RAN.match(line)
        if not m:
            continue
        ran = int(m.group(1))
        for after in lines[i + 1:i + 4]:
            end = _UNITTEST_END.match(after)
            if end:
                bad = sum(int(n) for k, n in re.findall(r"(failures|errors|unexpected successes)=(\d+)",
                                                        end.group(2) or ""))
                return (ran - bad, bad) if end.group(1) == "FAILED" else (ran, 0)
    return None


def lookup(statuses: dict[str, str], test: str) -> str:
    """The status of the named ``test``: its own entry; else, for a name the benchmark cut at its
    first space (SWE-bench's older parser split ``test_p[a b]`` there, so Verified names
    ``test_p[a``), the ids that start with it: passed only when every one passed; ``missing``
    when none ran."""
    if test in statuses:
        return statuses[test]
    if test.count("[") <= test.count("]"):
        return "missing"
    found = [st for tid, st in statuses.items() if tid.split(" ", 1)[0] == test]
    if not found:
        return "missing"
    return next((st for st in found if st not in _OK), found[0])


def judge_run(inst: BugInstance, runs: Sequence[StepRun]) -> TestVerdict:
    """The verdict of ``runs`` for ``inst`` (see the module doc)."""
    named = [t for t in (*inst.fail_to_pass, *inst.pass_to_pass) if not is_command(t)]
    if any(r.returncode is None for r in runs):
        cut = next(r for r in runs if r.returncode is None)
        return TestVerdict(False, f"timeout in {cut.step}",
                           tuple((t, "timeout") for t in named) or ((str(cut.step), "timeout"),))
    if named:
        statuses = _statuses(inst, "\n".join(r.output for r in runs))
        tests = tuple((t, lookup(statuses, t)) for t in named)
        bad = [f"{t} ({s})" for t, s in tests if s not in _OK]
        if not bad:
            return TestVerdict(True, f"{len(tests)}/{len(tests)} named tests passed", tests)
        shown = ", ".join(bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
        return TestVerdict(False, f"{len(tests) - len(bad)}/{len(tests)} named tests passed; not: {shown}",
                           tests)
    per_step: list[tuple[str, str]] = []
    for run in runs:
        summary = step_summary(run.output)
        if summary is None:
            status = "no results"
        elif run.returncode == 0 and summary[0] > 0 and summary[1] == 0:
            status = "PASSED"
        else:
            status = f"FAILED (exit {run.returncode}, {summary[0]} passed, {summary[1]} failed)"
        per_step.append((str(run.step), status))
    ok = sum(s == "PASSED" for _, s in per_step)
    if not per_step:
        return TestVerdict(False, "no test command ran", ())
    detail = f"{ok}/{len(per_step)} test commands passed"
    if any(s == "no results" for _, s in per_step):
        detail += " (an output reported no test results: not counted as a pass)"
    return TestVerdict(ok == len(per_step), detail, tuple(per_step))
