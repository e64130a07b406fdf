"""``make_runner``: the one place the CLI gets a runner from."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.testrun import LocalRunner, SwebenchRunner, make_runner


def test_each_kind(tmp_path: Path) -> None:
    assert make_runner("none", repos_dir=tmp_path) is None
    local = make_runner("local", repos_dir=tmp_path, test_cmd="pytest -q", timeout=5, allow_unsandboxed=True)
    assert isinstance(local, LocalRunner) and local.test_cmd == "pytest -q" and local.timeout == 5
    assert isinstance(make_runner("swebench", repos_dir=tmp_path, timeout=7), SwebenchRunner)


def test_unknown_kind_and_an_ignored_test_cmd_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--verify 'docker': expected one of none, local, venv, swebench"):
        make_runner("docker", repos_dir=tmp_path)
    with pytest.raises(InputError, match=r"--test-cmd applies to --verify local only \(--verify venv runs "
                                         r"the environment specification's test command\)"):
        make_runner("venv", repos_dir=tmp_path, test_cmd="pytest", allow_unsandboxed=True)
