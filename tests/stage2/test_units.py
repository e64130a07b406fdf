"""A Stage II task's key and state file: every input in the key, a repository that cannot be
identified never kept, a kept run read back equal, another task's file refused."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import pytest

from benchchecker_plugin.execution import digest
from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.stage2 import PresenceConfig, run_stage2
from benchchecker_plugin.stage2._units import read_run, settings, task_key, write_run
from benchchecker_plugin.testrun import make_runner
from tests.helpers.git_history import BUGGY, FIXED, PATCH, history

WHENS = {"m": datetime(2023, 2, 15, tzinfo=UTC)}
CONFIG = PresenceConfig(similarity="difflib")


@pytest.fixture
def bed(tmp_path: Path) -> tuple[Path, BugInstance]:
    base = history(tmp_path / "repos" / "o__calc", [("2023-01-01", {"calc.py": BUGGY}),
                                                     ("2023-02-01", {"calc.py": FIXED})])
    return tmp_path / "repos", BugInstance("o__calc-1", "swe-bench-verified", "o/calc", base, PATCH)


def test_every_input_changes_the_key(bed) -> None:  # noqa: ANN001
    repos, inst = bed
    key = task_key(str(repos), [inst], WHENS, None, CONFIG, True)
    assert key is not None and key == task_key(str(repos), [inst], WHENS, None, CONFIG, True)
    others = [
        task_key(str(repos), [dataclasses.replace(inst, test_patch="x")], WHENS, None, CONFIG, True),
        task_key(str(repos), [inst], {"m": datetime(2023, 2, 16, tzinfo=UTC)}, None, CONFIG, True),
        task_key(str(repos), [inst], WHENS, [("o__calc-1", "m")], CONFIG, True),
        task_key(str(repos), [inst], WHENS, None, dataclasses.replace(CONFIG, threshold=0.8), True),
        task_key(str(repos), [inst], WHENS, None, CONFIG, False),
        task_key(str(repos), [inst], WHENS, None, dataclasses.replace(
            CONFIG, runner=make_runner("local", repos_dir=repos, allow_unsandboxed=True)), True),
    ]
    assert None not in others and len({key, *others}) == len(others) + 1
    assert task_key(str(repos), [dataclasses.replace(inst, repo="o/gone")], WHENS, None, CONFIG, True) is None


def test_a_runner_is_keyed_by_its_settings(tmp_path: Path) -> None:
    a = make_runner("local", repos_dir=tmp_path, timeout=60, allow_unsandboxed=True)
    b = make_runner("local", repos_dir=tmp_path, timeout=61, allow_unsandboxed=True)
    assert settings(a)["type"].endswith("LocalRunner") and settings(a)["timeout"] == 60
    assert settings(a) != settings(b) and settings(None) is None and settings("difflib") == "difflib"


def test_a_kept_run_reads_back_equal_and_another_tasks_file_is_refused(bed, tmp_path: Path) -> None:  # noqa: ANN001
    repos, inst = bed
    run = run_stage2([inst], repos, WHENS, config=CONFIG)
    assert run.flags[0].contaminated is True
    path, key = tmp_path / "k.json", digest("k")
    write_run(path, key, run)
    assert read_run(path, key) == dataclasses.replace(run, resumed=0)
    with pytest.raises(ValueError, match="holds another unit's state"):
        read_run(path, digest("other"))
    broken = run_stage2([dataclasses.replace(inst, patch="not a diff")], repos, WHENS, config=CONFIG)
    write_run(path, key, broken)            # an instance's error is kept with its task
    assert read_run(path, key).flags[0].evidence["error"] == broken.flags[0].evidence["error"]
