"""The wheel installs like a library (issue 15): a user's own torch is kept, the harnesses are
extras, and the lm-eval tasks run from the installed wheel, not only from a checkout."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.helpers import SHARED_DATA, needs_shared_data

ROOT = Path(__file__).resolve().parents[1]
MMLU = SHARED_DATA / "mmlu"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    str(ROOT), "-w", str(out)], check=True, cwd=out)
    (whl,) = out.glob("benchchecker_plugin-*.whl")
    return whl


def _site_dirs() -> list[str]:
    """The running interpreter's site-packages folders (a venv's, or the system's), in its order."""
    dirs = site.getsitepackages() + ([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])
    return [d for d in dirs if d in sys.path]


def _venv(path: Path) -> Path:
    """A new venv that sees, after its own packages, the packages of the interpreter running the
    tests, as ``--system-site-packages`` does for the system Python: the tests run in a venv as
    well as in the system interpreter (``--system-site-packages`` would reach the base interpreter
    under the test venv, not the venv itself)."""
    venv.EnvBuilder(with_pip=True).create(path)
    py = path / "bin" / "python"
    own = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    # a .pth line starting with "import" runs: each folder is added with its own .pth files
    Path(own, "_running_interpreter.pth").write_text(
        "".join(f"import site; site.addsitedir({d!r})\n" for d in _site_dirs()), encoding="utf-8")
    return py


def _fake_torch(dest: Path, version: str) -> Path:
    """A stand-in wheel named torch (a user's own build, say), to see whether pip replaces it."""
    name = f"torch-{version}-py3-none-any.whl"
    whl = dest / name
    dist = f"torch-{version}.dist-info"
    with zipfile.ZipFile(whl, "w") as z:
        z.writestr("torch/__init__.py", f"__version__ = {version!r}\n")
        z.writestr(f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
        z.writestr(f"{dist}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{dist}/RECORD", "")
    return whl


def test_the_wheel_carries_the_tasks_and_types(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "benchchecker_plugin/tasks/lm_eval/mmlu_local/mmlu_local_astronomy.yaml" in names
    assert "benchchecker_plugin/tasks/lm_eval/mmlu_local/_default_template_yaml" in names
    assert "benchchecker_plugin/tasks/lm_eval/ts_guessing/utils.py" in names
    assert "benchchecker_plugin/py.typed" in names and "harness_adapters/py.typed" in names
    assert "benchchecker_plugin/tsguessing/task_rules.yaml" in names   # TS-Guessing's wording
    assert not [n for n in names if n.startswith(("tasks/", "tests/"))]
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    requires = [ln.split(":", 1)[1].strip() for ln in meta.splitlines() if ln.startswith("Requires-Dist:")]
    core = [r for r in requires if "extra ==" not in r]
    assert "torch>=2.4" in core and not any(r.startswith("torch==") for r in requires)
    assert not any(r.split(">")[0].split("<")[0].split("=")[0].strip() in ("lm-eval", "inspect-ai", "swebench")
                   for r in core)


def _oldest_torch_the_dependencies_allow() -> str:
    """The oldest torch minor release (x.y.0) that our ``torch>=2.4`` and every installed
    distribution's own torch requirement allow: a user's torch as old as the dependencies already
    installed let it be (accelerate 1.16 asks for torch>=2.6, so a 2.5 must be replaced)."""
    specs = [SpecifierSet(">=2.4")]
    for dist in metadata.distributions():
        for line in dist.requires or []:
            req = Requirement(line)
            if req.name.lower() == "torch" and (req.marker is None or req.marker.evaluate()):
                specs.append(req.specifier)
    for minor in range(4, 100):
        candidate = f"2.{minor}.0"
        if all(Version(candidate) in spec for spec in specs):
            return candidate
    raise AssertionError(f"no torch 2.x satisfies the installed requirements {[str(s) for s in specs]}")


def test_a_users_own_torch_is_kept(wheel: Path, tmp_path: Path) -> None:
    """pip, asked to install the wheel where the user's own torch (as old as the dependencies
    allow, well behind the newest release) is already installed, keeps it."""
    users = _oldest_torch_the_dependencies_allow()
    py = _venv(tmp_path / "venv")   # the rest of the dependencies: already there
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", _fake_torch(tmp_path, users)], check=True)
    report = tmp_path / "report.json"
    subprocess.run([py, "-m", "pip", "install", "-q", "--dry-run", "--report", report, wheel], check=True,
                   env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    planned = {i["metadata"]["name"].lower().replace("_", "-"): i["metadata"]["version"]
               for i in json.loads(report.read_text())["install"]}
    assert planned == {"benchchecker-plugin": planned["benchchecker-plugin"]}, planned
    out = subprocess.run([py, "-c", "import torch; print(torch.__version__)"], capture_output=True,
                         text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == users


@needs_shared_data("mmlu")
def test_the_lm_eval_task_runs_from_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    py = _venv(tmp_path / "venv")   # lm-eval (the [lm-eval] extra) comes from the running interpreter
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", wheel], check=True)
    work = tmp_path / "elsewhere"   # not the checkout: nothing can come from tasks/ here
    work.mkdir()
    bindir = py.parent
    where = subprocess.run([bindir / "benchchecker", "tasks", "path"], capture_output=True, text=True,
                           check=True, cwd=work).stdout.strip()
    assert where.startswith(str(tmp_path / "venv")) and where.endswith("benchchecker_plugin/tasks/lm_eval")
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    env.pop("PYTHONPATH", None)
    run = subprocess.run([py, "-m", "lm_eval", "run", "--model", "dummy", "--include_path", where,
                          "--tasks", "mmlu_local_astronomy", "--limit", "3", "--metadata",
                          json.dumps({"data": str(MMLU)}), "--output_path", str(work / "out")],
                         capture_output=True, text=True, cwd=work, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "|astronomy|" in run.stdout   # the task's alias
    (results,) = (work / "out").rglob("results_*.json")
    assert json.loads(results.read_text())["results"]["mmlu_local_astronomy"]["acc,none"] >= 0


@needs_shared_data("swebench_verified")
@needs_shared_data("multi_swe_bench")
def test_republish_runs_from_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    """``benchchecker republish`` from the wheel alone (no checkout on the path): SWE-bench Verified
    from its shipped inputs and Multi-SWE-bench's Java experiments, each bundle rebuilt byte for
    byte by ``--rebuild`` (a quick MDE: the rebuild equality is what is checked)."""
    pytest.importorskip("openpyxl")
    from tests.helpers.real_boards import java_args, same_files, verified_args

    py = _venv(tmp_path / "venv")   # (--ignore-installed: a development install seen through
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", wheel],
                   check=True)       # the running interpreter would count as this version)
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run([py, "-c", "import benchchecker_plugin.republish as r; print(r.__file__)"],
                           capture_output=True, text=True, check=True, cwd=work, env=env).stdout
    assert where.startswith(str(tmp_path / "venv")), where
    cli = py.parent / "benchchecker"
    for name, args in (("verified", verified_args(work / "verified", "--mde-sims", "5")),
                       ("java", java_args(tmp_path, work / "java", "--band-floor", "2023-06-01"))):
        run = subprocess.run([cli, *args], capture_output=True, text=True, cwd=work, env=env)
        assert run.returncode == 0, run.stderr[-3000:]
        again = subprocess.run([cli, "republish", "--rebuild", str(work / name), "--out",
                                str(work / f"{name}-again")], capture_output=True, text=True, cwd=work,
                               env=env)
        assert again.returncode == 0, again.stderr[-3000:]
        assert same_files(work / name, work / f"{name}-again") == [], name
