"""``patch-presence --state DIR``: each finished task kept as it finishes; the same command run
again takes the kept tasks and writes the flags one uninterrupted run writes.

"Not computed again" is shown, not assumed: after the first run the git objects of the clones
whose tasks were kept are deleted (their refs, which the key digests, stay), so a rerun that
computed them would fail. The kill is real in the slow test: the CLI runs in a child process whose
last repository's ``HEAD`` is a FIFO, so git blocks there after the other repositories' tasks were
kept; the child's process group is SIGKILLed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.cli._stage2_cmd import STATE_TASK_SIZE
from benchchecker_plugin.flags import read_flags
from benchchecker_plugin.stage2._units import STATE_TASK_SIZE as LIBRARY_TASK_SIZE
from tests.helpers.flags import untimed_flags
from tests.helpers.git_history import BUGGY, FIXED, PATCH, REFACTORED, history

ROOT = Path(__file__).resolve().parents[2]
REPOS = ("o__a", "o__b", "o__c")
CUTOFFS = "model,cutoff\nbuggy,2023-01-15\nfixed,2023-02-15\nrefactored,2023-06-01\n"


@pytest.fixture
def bed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Three clones (buggy, fixed, rewritten), two instances each; the instances and cutoffs files."""
    rows = []
    for name in REPOS:
        base = history(tmp_path / "repos" / name, [("2023-01-01", {"calc.py": BUGGY}),
                                                    ("2023-02-01", {"calc.py": FIXED}),
                                                    ("2023-03-01", {"calc.py": REFACTORED})])
        owner, repo = name.split("__")
        rows += [{"instance_id": f"{name}-{k}", "repo": f"{owner}/{repo}", "base_commit": base,
                  "patch": PATCH, "problem_statement": "p"} for k in (1, 2)]
    instances = tmp_path / "instances.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cutoffs = tmp_path / "cutoffs.csv"
    cutoffs.write_text(CUTOFFS)
    return tmp_path / "repos", instances, cutoffs


def _args(bed: tuple[Path, Path, Path], out: Path, state: Path) -> list[str]:
    repos, instances, cutoffs = bed
    return ["patch-presence", "--instances", str(instances), "--repos-dir", str(repos), "--similarity",
            "difflib", "--cutoffs", str(cutoffs), "--instances-per-task", "2", "--state", str(state),
            "-o", str(out)]


def _drop_objects(repo: Path) -> None:
    """Every git object of ``repo`` deleted; its refs (what the state key digests) kept."""
    shutil.rmtree(repo / ".git" / "objects")
    (repo / ".git" / "objects").mkdir()


def test_a_rerun_takes_the_kept_tasks_and_writes_the_same_flags(bed, tmp_path: Path) -> None:  # noqa: ANN001
    state = tmp_path / "state"
    first = CliRunner().invoke(main, _args(bed, tmp_path / "first.jsonl", state))
    assert first.exit_code == 0, first.output
    assert "(0 task(s) taken from --state" in first.stderr
    assert len(list(state.glob("*.json"))) == 3 and not list(state.glob(".*"))
    flags = read_flags(tmp_path / "first.jsonl")
    assert len(flags) == 6 * 3 and not any("error" in f.evidence for f in flags)
    assert {f.contaminated for f in flags} == {True, False, None}    # present, absent, rewritten
    for name in REPOS[:2]:
        _drop_objects(bed[0] / name)
    again = CliRunner().invoke(main, _args(bed, tmp_path / "again.jsonl", state))
    assert again.exit_code == 0, again.output
    assert "(3 task(s) taken from --state" in again.stderr
    assert (tmp_path / "again.jsonl").read_bytes() == (tmp_path / "first.jsonl").read_bytes()


def test_a_changed_input_is_computed_again(bed, tmp_path: Path) -> None:  # noqa: ANN001
    repos, instances, cutoffs = bed
    state = tmp_path / "state"
    assert CliRunner().invoke(main, _args(bed, tmp_path / "a.jsonl", state)).exit_code == 0
    cutoffs.write_text(CUTOFFS.replace("2023-06-01", "2023-07-01"))       # another cutoff: every task
    r = CliRunner().invoke(main, _args(bed, tmp_path / "b.jsonl", state))
    assert r.exit_code == 0 and "(0 task(s) taken from --state" in r.stderr
    cutoffs.write_text(CUTOFFS)
    history(repos / "o__z", [("2023-01-01", {"x.py": "x = 1\n"})])          # a new ref in o__a:
    subprocess.run(["git", "-C", str(repos / "o__a"), "fetch", "-q", str(repos / "o__z"), "main:other"],
                   check=True)
    r = CliRunner().invoke(main, _args(bed, tmp_path / "c.jsonl", state))
    assert r.exit_code == 0 and "(2 task(s) taken from --state" in r.stderr
    assert untimed_flags(read_flags(tmp_path / "c.jsonl")) == untimed_flags(read_flags(tmp_path / "a.jsonl"))


def test_state_inside_an_input_is_refused(bed, tmp_path: Path) -> None:  # noqa: ANN001
    r = CliRunner().invoke(main, _args(bed, tmp_path / "o.jsonl", bed[0] / "state"))
    assert r.exit_code == 2 and "--state" in r.output and "lies inside the input --repos-dir" in r.output


def test_the_help_names_the_librarys_task_size() -> None:
    assert STATE_TASK_SIZE == LIBRARY_TASK_SIZE


@pytest.mark.slow
def test_killed_run_resumes_from_its_kept_tasks_and_writes_the_same_flags(bed, tmp_path: Path) -> None:  # noqa: ANN001
    repos = bed[0]
    head = repos / "o__c" / ".git" / "HEAD"
    head_text = head.read_text()
    head.unlink()
    os.mkfifo(head)
    state = tmp_path / "state"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BENCHCHECKER_PROGRESS": "0"}
    cmd = [sys.executable, "-c", "from benchchecker_plugin.cli import main; main()",
           *_args(bed, tmp_path / "killed.jsonl", state)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:   # o__a's and o__b's tasks are kept, then git blocks reading o__c's HEAD: kill it there
        deadline = time.monotonic() + 240
        while len(list(state.glob("*.json"))) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert len(list(state.glob("*.json"))) == 2 and proc.poll() is None, \
            proc.stderr.read().decode() if proc.poll() is not None else "no task kept in time"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)   # the CLI and the git it waits on
        proc.wait()
    assert proc.returncode == -signal.SIGKILL and not (tmp_path / "killed.jsonl").exists()
    head.unlink()
    head.write_text(head_text)

    fresh = CliRunner().invoke(main, _args(bed, tmp_path / "fresh.jsonl", tmp_path / "fresh_state"))
    assert fresh.exit_code == 0, fresh.output
    for name in REPOS[:2]:
        _drop_objects(repos / name)            # their tasks can only come from the state now
    resumed = CliRunner().invoke(main, _args(bed, tmp_path / "resumed.jsonl", state))
    assert resumed.exit_code == 0, resumed.output
    assert "(2 task(s) taken from --state" in resumed.stderr
    got, want = read_flags(tmp_path / "resumed.jsonl"), read_flags(tmp_path / "fresh.jsonl")
    assert untimed_flags(got) == untimed_flags(want) and len(got) == 18
    assert not any("error" in f.evidence for f in got)
