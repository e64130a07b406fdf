"""Confined test runs: no shell, a scrubbed environment, a read-only machine outside the work
folder, no network, a time limit; refused where it cannot be confined unless opted in."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from benchchecker_plugin.errors import ExecutionError, InputError
from benchchecker_plugin.testrun import Step, confinement, run_steps, split_command
from benchchecker_plugin.testrun import _sandbox as sandbox

needs_namespaces = pytest.mark.skipif(confinement() != "namespaces",
                                      reason="user namespaces (unshare) not available here")


def test_split_command_without_a_shell() -> None:
    assert split_command("pytest a.py::t;pytest b.py && A=1 B='x y' python -m pytest -k 'p and q'") == (
        Step(("pytest", "a.py::t")), Step(("pytest", "b.py")),
        Step(("python", "-m", "pytest", "-k", "p and q"), (("A", "1"), ("B", "x y"))))
    assert split_command("pytest a\npytest b\n") == (Step(("pytest", "a")), Step(("pytest", "b")))


@pytest.mark.parametrize(("cmd", "message"), [
    ("pytest | tee log", "test command 'pytest | tee log': '|' needs a shell"),
    ("pytest > log", "test command 'pytest > log': '>' needs a shell"),
    ("pytest 2>&1", "'>&' needs a shell"),
    ("pytest || true", "'||' needs a shell"),
    ("sleep 9 &", "'&' needs a shell"),
    ("echo $OPENAI_API_KEY", "'$OPENAI_API_KEY' needs a shell"),
    ("echo `id`", "'`id`' needs a shell"),
    ("A=1", "an assignment without a command"),
    ("pytest 'unclosed", "No closing quotation"),
    (" ; ", "no command in it"),
])
def test_shell_syntax_is_refused(cmd: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        split_command(cmd)
    assert str(err.value).startswith(f"test command {cmd!r}: ") and message in str(err.value)


def _python(code: str) -> tuple[Step]:
    return (Step((Path(sys.executable).name if shutil.which(Path(sys.executable).name) else sys.executable,
                  "-c", code)),)


@needs_namespaces
def test_confined_run_cannot_write_outside_or_read_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-do-not-leak")
    outside = tmp_path / "outside"
    outside.mkdir()
    work = tmp_path / "work"
    (work / "tree").mkdir(parents=True)
    home_secret = Path.home() / ".benchchecker-sandbox-test-secret"
    code = ("import os, pathlib, socket, sys\n"
            "print('KEY', os.environ.get('OPENAI_API_KEY'))\n"
            "print('ENV', sorted(os.environ))\n"
            f"pathlib.Path('inside.txt').write_text('ok')\n"
            f"for target in [{str(outside / 'x')!r}, {str(home_secret)!r}]:\n"
            "    try:\n"
            "        pathlib.Path(target).write_text('pwned'); print('WROTE', target)\n"
            "    except OSError as e: print('REFUSED', e.errno)\n"
            "try:\n"
            "    socket.create_connection(('1.1.1.1', 53), timeout=2); print('NET up')\n"
            "except OSError: print('NET down')\n"
            "srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen()\n"
            "socket.create_connection(srv.getsockname(), timeout=2); print('LO up')\n"
            "print('PIDS', sorted(p for p in os.listdir('/proc') if p.isdigit()))\n")
    how, (run,) = run_steps(_python(code), work, work / "tree", timeout=60)
    assert how == "namespaces" and run.returncode == 0, run.output
    assert "KEY None" in run.output and "sk-do-not-leak" not in run.output
    env_line = next(ln for ln in run.output.splitlines() if ln.startswith("ENV"))
    assert eval(env_line[4:]) == sorted(["HOME", "LANG", "LC_ALL", "PATH", "PYTHONDONTWRITEBYTECODE",
                                         "TMPDIR"])
    assert run.output.count("REFUSED 30") == 2  # EROFS
    assert not (outside / "x").exists() and not home_secret.exists()
    assert (work / "tree" / "inside.txt").read_text() == "ok"
    assert "NET down" in run.output and "LO up" in run.output   # loopback only
    pids = eval(next(ln for ln in run.output.splitlines() if ln.startswith("PIDS"))[5:])
    assert len(pids) <= 3  # its own processes only (init, python)


@needs_namespaces
def test_timeout_kills_the_whole_command(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "tree").mkdir(parents=True)
    marker = work / "tree" / "late"
    child = f"import time, pathlib; time.sleep(3); pathlib.Path({str(marker)!r}).write_text('x')"
    code = f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {child!r}]); time.sleep(30)"
    t0 = time.monotonic()
    how, runs = run_steps(_python(code) + (Step(("true",)),), work, work / "tree", timeout=1.5)
    assert time.monotonic() - t0 < 10
    assert [r.returncode for r in runs] == [None]  # the later step does not run
    time.sleep(3)
    assert not marker.exists()  # the child was killed with it


def test_refused_without_confinement_unless_opted_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)  # a machine without unshare
    sandbox.confinement.cache_clear()
    try:
        assert confinement() == "none"
        monkeypatch.setenv("OPENAI_API_KEY", "sk-do-not-leak")
        with pytest.raises(ExecutionError, match="cannot confine the test run .* --allow-unsandboxed"):
            run_steps(_python("print(1)"), tmp_path, tmp_path, timeout=30)
        how, (run,) = run_steps(_python("import os; print(os.environ.get('OPENAI_API_KEY'))"),
                                tmp_path, tmp_path, timeout=30, allow_unsandboxed=True)
        assert how == "none" and run.output.strip() == "None"  # still scrubbed
    finally:
        sandbox.confinement.cache_clear()


def test_a_missing_program_is_a_failed_step(tmp_path: Path) -> None:
    how, (run,) = run_steps((Step(("no-such-program-xyz",)),), tmp_path, tmp_path, timeout=30,
                            allow_unsandboxed=True)
    assert run.returncode not in (0, None)
    assert os.path.isdir(tmp_path / "home") and os.path.isdir(tmp_path / "tmp")
