"""Issue 14, item 10: a crafted instance's test command cannot write outside its temporary export,
cannot read the caller's API key, and exiting 0 does not make the flag ``verified-by-tests``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.testrun import confinement
from tests.helpers.calc_package import BUGGY, FIXED, PATCH, REFACTORED
from tests.helpers.git_history import history


@pytest.fixture()
def repos(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "repos" / "o__calc"
    base = history(repo, [("2023-01-01", {"calc.py": BUGGY}), ("2023-02-01", {"calc.py": FIXED}),
                          ("2023-03-01", {"calc.py": REFACTORED})])
    return repo.parent, base


def _run(tmp_path: Path, repos_dir: Path, base: str, test_cmd: str, *extra: str) -> tuple[object, list[dict]]:
    inst = {"instance_id": "o__calc-1", "repo": "o/calc", "base_commit": base, "patch": PATCH,
            "FAIL_TO_PASS": ["test_calc.py::test_none"], "PASS_TO_PASS": [], "test_cmd": test_cmd}
    src = tmp_path / "instances.jsonl"
    src.write_text(json.dumps(inst) + "\n")
    before = hashlib.sha256(src.read_bytes()).hexdigest()
    out = tmp_path / "flags.jsonl"
    res = CliRunner().invoke(main, ["patch-presence", "--instances", str(src), "--repos-dir", str(repos_dir),
                                    "--cutoff", "2023-06-01", "--similarity", "difflib", "--verify", "local",
                                    "-o", str(out), *extra])
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before
    flags = [json.loads(ln) for ln in out.read_text().splitlines()] if out.exists() else []
    return res, flags


@pytest.mark.skipif(confinement() != "namespaces", reason="user namespaces (unshare) not available here")
def test_crafted_test_command_is_confined_and_not_trusted(tmp_path: Path, repos, monkeypatch) -> None:  # noqa: ANN001
    repos_dir, base = repos
    monkeypatch.setenv("OPENAI_API_KEY", "sk-crafted-instance-must-not-see")
    stolen = tmp_path / "stolen.txt"
    payload = ("import os, pathlib; key = os.environ.get('OPENAI_API_KEY', 'none'); print('key:', key); "
               f"pathlib.Path({str(stolen)!r}).write_text(key)")
    res, (flag,) = _run(tmp_path, repos_dir, base, f'python -c "{payload}"')
    assert res.exit_code == 0, res.output
    assert not stolen.exists()
    verification = flag["evidence"]["verification"]
    assert verification["confinement"] == "namespaces"
    assert "key: none" in verification["log_tail"]
    assert flag["contaminated"] is None and flag["evidence"]["category"] == "refactored-inconclusive"
    assert verification["tests"] == {"test_calc.py::test_none": "missing"}
    assert "sk-crafted" not in (tmp_path / "flags.jsonl").read_text()


def test_exit_zero_without_the_named_tests_is_not_verified(tmp_path: Path, repos) -> None:  # noqa: ANN001
    repos_dir, base = repos
    res, (flag,) = _run(tmp_path, repos_dir, base, "python -c pass", "--allow-unsandboxed")
    assert res.exit_code == 0, res.output
    assert flag["contaminated"] is None
    assert flag["evidence"]["verification"]["passed"] is False
    assert flag["evidence"]["verification"]["detail"].startswith("0/1 named tests passed")


def test_a_shell_command_in_the_data_is_refused_for_that_instance(tmp_path: Path, repos) -> None:  # noqa: ANN001
    repos_dir, base = repos
    res, (flag,) = _run(tmp_path, repos_dir, base, f"echo pwned > {tmp_path / 'x'}", "--allow-unsandboxed")
    assert not (tmp_path / "x").exists()
    assert flag["contaminated"] is None
    assert "'>' needs a shell" in flag["evidence"]["error"]
    assert res.exit_code == 4, res.output  # every instance failed: non-zero, as documented


def test_a_shell_test_cmd_option_is_refused_before_running(tmp_path: Path, repos) -> None:  # noqa: ANN001
    repos_dir, base = repos
    res, flags = _run(tmp_path, repos_dir, base, "python -c pass", "--test-cmd", "pytest | tee log",
                      "--allow-unsandboxed")
    assert res.exit_code == 2 and flags == []
    [line] = [ln for ln in res.stderr.splitlines() if ln.startswith("Error:")]
    assert line == ("Error: --test-cmd 'pytest | tee log': '|' needs a shell; tests run without one "
                    "(give the plain commands, separated by ';' or '&&')")
