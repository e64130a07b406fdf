"""``--verify swebench``: the swebench runner up to the harness, and its grading."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.errors import ExecutionError
from benchchecker_plugin.instances import BugInstance, load_swebench
from benchchecker_plugin.testrun import SwebenchRunner, grade_swebench_log
from tests.helpers.git_history import PATCH


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
