"""Issue 27: a crafted repository whose build and tests try each escape of ``--verify venv`` (links
out of the export, ``/proc/self/environ``, a file outside, ``/dev``, the network during the build,
an API key in the caller's environment): no secret in any output, cache or log, nothing written
outside the work folder, and a clear verdict."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from benchchecker_plugin.repos import git
from benchchecker_plugin.testrun import confinement
from tests.helpers.calc_package import BUGGY, PATCH, PYPROJECT, REFACTORED
from tests.helpers.git_history import commit_all

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(confinement() != "namespaces", reason="user namespaces not available")]

KEY = "sk-crafted-repository-must-not-see"
SETUP = """\
import os, pathlib, socket
from setuptools import setup
here = pathlib.Path(__file__).resolve().parent
for name, target in [("leak_environ.txt", "/proc/self/environ"), ("leak_file.txt", {secret!r})]:
    try:
        os.symlink(target, here / name)
    except OSError:
        pass
probe = []
try:
    open("/dev/benchchecker-crafted", "w"); probe.append("dev:writable")
except OSError as exc:
    probe.append(f"dev:{{exc.errno}}")
for host, port in [("127.0.0.1", {port}), ("pypi.org", 443)]:
    try:
        socket.create_connection((host, port), timeout=3); probe.append(f"net:{{host}}:reached")
    except OSError:
        probe.append(f"net:{{host}}:blocked")
(here / "build_probe.txt").write_text(" ".join(probe))
setup()
"""
TESTS = """\
import pathlib
for name in ["leak_environ.txt", "leak_file.txt", "build_probe.txt"]:
    p = pathlib.Path(name)
    print("FOUND", name, p.read_bytes().replace(b"\\\\0", b" ")[:4000] if p.exists() else "absent")
try:
    open("/dev/benchchecker-crafted-test", "w"); print("DEV writable")
except OSError as exc:
    print("DEV", exc.errno)
import calc

def test_none():
    assert calc.add_one(None) == 0

def test_int():
    assert calc.add_one(1) == 2
"""


def _diff(name: str, text: str) -> str:
    rows = text.splitlines()
    return f"--- /dev/null\n+++ b/{name}\n@@ -0,0 +1,{len(rows)} @@\n" + "".join(f"+{r}\n" for r in rows)


def test_every_escape_of_a_crafted_repository_is_closed(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-FILE-CONTENT-outside-the-export")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    reached: list[object] = []
    threading.Thread(target=lambda: reached.append(listener.accept()), daemon=True).start()
    repo = tmp_path / "repos" / "o__calc"
    repo.mkdir(parents=True)
    git(repo, ["init", "-q", "-b", "main"])
    (repo / "pyproject.toml").write_text(PYPROJECT)
    (repo / "setup.py").write_text(SETUP.format(secret=str(secret), port=listener.getsockname()[1]))
    (repo / "calc.py").write_text(BUGGY)
    base = commit_all(repo, "2023-01-01")
    (repo / "calc.py").write_text(REFACTORED)
    commit_all(repo, "2023-03-01")
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    specs = tmp_path / "specs.json"
    specs.write_text(json.dumps({"o/calc": {"1.0": {"python": py, "pip_packages": ["pytest"],
                                                    "install": "python -m pip install -e .",
                                                    "test_cmd": "pytest -rA -s -p no:cacheprovider"}}}))
    inst = {"instance_id": "o__calc-1", "repo": "o/calc", "base_commit": base, "patch": PATCH,
            "test_patch": _diff("test_calc.py", TESTS), "FAIL_TO_PASS": ["test_calc.py::test_none"],
            "PASS_TO_PASS": ["test_calc.py::test_int"], "version": "1.0", "environment_setup_commit": base}
    instances = tmp_path / "instances.jsonl"
    instances.write_text(json.dumps(inst) + "\n")
    envs, out = tmp_path / "envs", tmp_path / "flags.jsonl"
    res = subprocess.run([sys.executable, "-c", "from benchchecker_plugin.cli import main; main()",
                          "patch-presence", "--instances",
                          str(instances), "--repos-dir", str(tmp_path / "repos"), "--cutoff", "2023-06-01",
                          "--similarity", "difflib", "--verify", "venv", "--env-specs", str(specs),
                          "--envs-dir", str(envs), "-o", str(out)],
                         env={**os.environ, "OPENAI_API_KEY": KEY}, capture_output=True, text=True,
                         timeout=900, check=False)
    (flag,) = [json.loads(ln) for ln in out.read_text().splitlines()]
    verification = flag["evidence"]["verification"]
    # a clear verdict: the environment was built and trusted, the snapshot's code passed
    assert flag["evidence"]["category"] == "verified-by-tests", (res.stderr, verification)
    log = verification["log_tail"]
    assert "FOUND leak_environ.txt absent" in log and "FOUND leak_file.txt absent" in log
    assert "DEV 30" in log
    probe = next(envs.glob("o__calc-1.0-*/src/build_probe.txt")).read_text()
    assert probe == "dev:30 net:127.0.0.1:blocked net:pypi.org:blocked"
    assert not reached
    # no secret anywhere: flags, outcomes, markers, logs, the tested and the built trees
    everything = [out, *(p for p in envs.rglob("*") if p.is_file() and not p.is_symlink())]
    for path in everything:
        data = path.read_bytes()
        assert KEY.encode() not in data and b"SECRET-FILE-CONTENT" not in data, path
    assert KEY not in res.stdout + res.stderr
    assert not Path("/dev/benchchecker-crafted").exists() and not Path("/dev/benchchecker-crafted-test").exists()
