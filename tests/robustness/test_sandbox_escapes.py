"""Issue 27: what escaped the ``--verify venv`` / ``--verify local`` confinement, and the mining of
a folder for ``repo-presence``. Each test fails before its fix."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.stage1 import read_sources
from benchchecker_plugin.testrun._envs import EnvBuilder, EnvUnavailable, declared_requirements, tree_files
from benchchecker_plugin.testrun._sandbox import OUTPUT_KEEP, Step, confinement, run_steps
from benchchecker_plugin.testrun._venv import copy_regular

needs_namespaces = pytest.mark.skipif(confinement() != "namespaces", reason="user namespaces not available")


def _py(code: str) -> tuple[Step, ...]:
    return (Step((sys.executable, "-c", code)),)


@needs_namespaces
def test_dev_is_read_only_apart_from_the_usual_nodes(tmp_path: Path) -> None:
    code = ("import os\n"
            "try:\n    open('/dev/benchchecker-probe', 'w'); print('DEV writable')\n"
            "except OSError as e: print('DEV', e.errno)\n"
            "open('/dev/null', 'w').write('x'); print('NULL ok', len(open('/dev/urandom', 'rb').read(8)))\n"
            "print('SHM', sorted(os.listdir('/dev/shm')))\n")
    how, (run,) = run_steps(_py(code), tmp_path, tmp_path, timeout=60)
    assert how == "namespaces" and run.returncode == 0, run.output
    assert "DEV 30" in run.output   # EROFS
    assert "NULL ok 8" in run.output and "SHM []" in run.output   # a private /dev/shm
    assert not Path("/dev/benchchecker-probe").exists()


def test_endless_output_keeps_a_bounded_head_and_tail(tmp_path: Path) -> None:
    """64 MB printed: the parent keeps 2 x OUTPUT_KEEP of it, and says how much it cut."""
    code = ("import sys\nsys.stdout.write('FIRST\\n')\nblock = 'x' * 1048575 + '\\n'\n"
            "for _ in range(64): sys.stdout.write(block)\nsys.stdout.write('LAST\\n')\n")
    _, (run,) = run_steps(_py(code), tmp_path, tmp_path, timeout=120, allow_unsandboxed=True)
    assert run.returncode == 0
    assert len(run.output) <= 2 * OUTPUT_KEEP + 100
    assert run.output.startswith("FIRST") and run.output.rstrip().endswith("LAST")
    assert "bytes of output cut ...]" in run.output


def test_unsandboxed_step_cannot_read_the_parents_environment(tmp_path: Path) -> None:
    """--allow-unsandboxed: the step runs as the caller; the caller's environment (with the key)
    is not readable through /proc/<parent>/environ."""
    probe = ("import os\n"
             "data = open(f'/proc/{os.getppid()}/environ', 'rb').read()\n"
             "print('LEAK' if b'sk-parent-secret' in data else 'CLEAN', len(data))\n")
    driver = ("import sys\n"
              "from benchchecker_plugin.testrun import _sandbox as sandbox\n"
              "sandbox.confinement = lambda: 'none'\n"
              f"how, (run,) = sandbox.run_steps([sandbox.Step((sys.executable, '-c', {probe!r}))], "
              f"{str(tmp_path)!r}, {str(tmp_path)!r}, timeout=60, allow_unsandboxed=True)\n"
              "print(run.output)\n")
    env = {**os.environ, "OPENAI_API_KEY": "sk-parent-secret"}
    out = subprocess.run([sys.executable, "-c", driver], env=env, capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert "CLEAN" in out.stdout and "LEAK" not in out.stdout


def test_links_a_build_leaves_are_never_listed_nor_copied(tmp_path: Path) -> None:
    """A build that made ``leak_environ.txt -> /proc/self/environ`` and ``leak_home.txt -> ~/x``
    in its tree: neither is a generated file, and neither is copied, following the link."""
    src, tree, secret = tmp_path / "src", tmp_path / "tree", tmp_path / "secret.txt"
    src.mkdir()
    tree.mkdir()
    secret.write_text("sk-home-secret")
    (src / "_version.py").write_text("version = '1.0'\n")
    (src / "leak_environ.txt").symlink_to("/proc/self/environ")
    (src / "leak_home.txt").symlink_to(secret)
    (src / "linked_dir").symlink_to(tmp_path)
    assert tree_files(src) == ["_version.py"]
    assert copy_regular(src, tree, "_version.py")
    assert not copy_regular(src, tree, "leak_home.txt") and not copy_regular(src, tree, "leak_environ.txt")
    # a folder of the tested tree (committed in the repository) that links out of it
    (tmp_path / "elsewhere").mkdir()
    (tree / "out").symlink_to(tmp_path / "elsewhere")
    (src / "out").mkdir()
    (src / "out" / "gen.py").write_text("x = 1\n")
    assert not copy_regular(src, tree, "out/gen.py")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_traversing_version_string_builds_nothing_outside_the_envs_dir(tmp_path: Path) -> None:
    envs = tmp_path / "a" / "b" / "envs"
    specs = {"o/calc": {"../../../outside-envs/v": {"python": "9.99"}}}
    inst = BugInstance("o__calc-1", "swe-bench-verified", "o/calc", "0" * 40, "",
                       extra={"version": "../../../outside-envs/v"})
    with pytest.raises(EnvUnavailable, match="version '../../../outside-envs/v' of o/calc is not a plain "
                                             "version string"):
        EnvBuilder(tmp_path / "repos", specs, envs_dir=envs).environment(inst)
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == []


def test_declared_requirements_are_read_without_running_the_repository(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (tmp_path / "setup.py").write_text(
        f"open({str(marker)!r}, 'w')\nfrom setuptools import setup\n"
        "setup(name='x', install_requires=['six>=1', 'pkg @ file:///etc', '../local'], setup_requires=['cython'])\n")
    (tmp_path / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools>=61", "wheel"]\n')
    assert declared_requirements(tmp_path) == ["setuptools>=61", "wheel", "six>=1", "cython"]
    assert not marker.exists()


def test_mining_a_folder_skips_links_out_fifos_and_devices(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    (outside / "config.py").write_text("API_KEY = 'sk-outside-the-snapshot'\n")
    (repo / "real.py").write_text("x = 1\n")
    (repo / "config.py").symlink_to(outside / "config.py")
    (repo / "zero.py").symlink_to("/dev/zero")
    (repo / "pkg").symlink_to(outside)
    os.mkfifo(repo / "fifo.py")
    found: list = []
    worker = threading.Thread(target=lambda: found.extend(read_sources(repo)), daemon=True)
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert [f.path for f in found] == ["real.py"]
