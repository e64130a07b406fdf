"""Everything swebench-specific of running tests, reached only through
:mod:`benchchecker_plugin.swebench_compat` (which imports swebench when used, never at import time).

* :func:`swebench_test_spec` / :func:`repo_statuses`: swebench's ``TestSpec`` of an instance and
  its repository's log parser (used by :mod:`._testlog` when swebench is installed);
* :class:`SwebenchRunner` (``--verify swebench``): submits the modified diff as a prediction to
  the swebench harness (Docker) and grades the test log with swebench's own ``get_eval_report``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import ExecutionError
from ..instances import BugInstance
from ._outcome import VerifyOutcome


def _compat() -> Any:
    from .. import swebench_compat

    return swebench_compat


def swebench_test_spec(inst: BugInstance) -> Any:
    """The swebench ``TestSpec`` of ``inst``: swebench's ``make_test_spec`` when the instance has
    the harness fields (``image``, ``eval_script``, ``log_parser``, ``eval_type``), else a
    grading-only spec with the repository's log parser from swebench's own table."""
    from ..extras import require

    require("swebench.harness.utils", "--verify swebench")
    compat = _compat()
    row = inst.to_swebench()
    if all(k in row for k in ("image", "eval_script", "log_parser", "eval_type")):
        return compat.make_test_spec(row)
    parser = compat.log_parser(inst.repo)
    if parser is None:
        raise ExecutionError(f"instance {inst.instance_id!r}: swebench has no log parser for {inst.repo}")
    return compat.test_spec_class()(
        instance_id=inst.instance_id, image="", eval_script_list=[], repo=inst.repo,
        version=str(inst.extra.get("version", "")), FAIL_TO_PASS=list(inst.fail_to_pass),
        PASS_TO_PASS=list(inst.pass_to_pass), log_parser=parser.__name__, eval_type="pass_and_fail")


def repo_statuses(inst: BugInstance, log: str) -> dict[str, str] | None:
    """Test id -> status from ``log`` by swebench's log parser of ``inst``'s repository; ``None``
    when swebench is not installed or has no parser for it."""
    parser = _compat().log_parser(inst.repo)
    if parser is None:
        return None
    found = parser(log, swebench_test_spec(inst))
    return {k: str(getattr(v, "value", v)) for k, v in found.items()}


def grade_swebench_log(inst: BugInstance, prediction: dict[str, Any],
                       log_path: str | os.PathLike[str]) -> bool:
    """Whether the swebench test log shows the instance resolved (swebench's ``get_eval_report``)."""
    report = _compat().get_eval_report(test_spec=swebench_test_spec(inst), prediction=prediction,
                                       test_log_path=str(log_path), include_tests_status=True)
    return bool(report.get(inst.instance_id, {}).get("resolved", False))


def _docker_harness(inst: BugInstance, prediction: dict[str, Any], run_id: str, timeout: int) -> Path:
    """Run one prediction through the swebench harness in Docker; the test log's path."""
    try:
        import docker

        client = docker.from_env()
    except Exception as exc:  # docker raises DockerException subclasses and OSErrors alike
        raise ExecutionError(f"instance {inst.instance_id!r}: Docker is not available for the "
                             f"swebench runner: {exc}") from exc
    compat = _compat()
    spec = swebench_test_spec(inst)
    if not spec.image:
        raise ExecutionError(f"instance {inst.instance_id!r}: no swebench image/eval_script fields "
                             "(load the instances from a SWE-bench/* dataset of swebench 5)")
    compat.run_instance(spec, prediction, client, run_id, timeout)
    return Path(compat.test_log_path(run_id, prediction["model_name_or_path"], inst.instance_id))


class SwebenchRunner:
    """Submits the modified diff to the swebench harness; grades with swebench's functions.

    ``harness(inst, prediction, run_id, timeout) -> log path`` defaults to the Docker harness;
    pass another callable to run elsewhere (a remote runner, or a test double).
    """

    name = "swebench"
    model_name = "benchchecker-stage2-snapshot"

    def __init__(self, *, run_id: str = "benchchecker-stage2", timeout: int = 1800,
                 harness: Callable[[BugInstance, dict[str, Any], str, int], Path] | None = None) -> None:
        self.run_id = run_id
        self.timeout = timeout
        self.harness = harness or _docker_harness

    def prediction(self, inst: BugInstance, diff: str) -> dict[str, Any]:
        return {"instance_id": inst.instance_id, "model_name_or_path": self.model_name, "model_patch": diff}

    def run(self, inst: BugInstance, diff: str) -> VerifyOutcome:
        t0 = time.perf_counter()
        pred = self.prediction(inst, diff)
        log = self.harness(inst, pred, self.run_id, self.timeout)
        if not Path(log).is_file():
            raise ExecutionError(f"instance {inst.instance_id!r}: the harness wrote no test log at {log}")
        passed = grade_swebench_log(inst, pred, log)
        return VerifyOutcome(passed, self.name, "resolved" if passed else "not resolved",
                             round(time.perf_counter() - t0, 3),
                             Path(log).read_text(encoding="utf-8", errors="replace")[-2000:],
                             confinement="docker")
