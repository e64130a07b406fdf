"""--verify venv end to end on a real repository built here: a per-version environment built from
its specification and the package registry, the gold patch as the trust check, then the snapshot's
code settles the undecided instance: contaminated where it passes, clean where it fails."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.stage2 import PresenceConfig, run_stage2
from benchchecker_plugin.testrun import VenvRunner, confinement, find_python, load_env_specs
from tests.helpers.calc_package import BUGGY, FIXED, PATCH, PYPROJECT, REFACTORED, TEST_PATCH
from tests.helpers.git_history import history

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(confinement() != "namespaces", reason="user namespaces not available")]

WRONG = "def add_one(x):\n    if x is None:\n        return int(-1)\n    return int(x) + 1\n"
PY = f"{sys.version_info.major}.{sys.version_info.minor}"
SPECS = {"o/calc": {"1.0": {"python": PY, "pip_packages": ["pytest"], "install": "python -m pip install -e .",
                            "test_cmd": "pytest -rA -p no:cacheprovider"}}}


def _repo(root: Path, name: str, later: str) -> str:
    return history(root / name, [("2023-01-01", {"calc.py": BUGGY, "pyproject.toml": PYPROJECT}),
                                  ("2023-03-01", {"calc.py": later})])


def _instance(iid: str, repo: str, base: str) -> BugInstance:
    return BugInstance(iid, "swe-bench-verified", repo, base, PATCH, test_patch=TEST_PATCH,
                       fail_to_pass=("test_calc.py::test_none",), pass_to_pass=("test_calc.py::test_int",),
                       extra={"version": "1.0", "environment_setup_commit": base})


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, BugInstance, BugInstance]:
    root = tmp_path_factory.mktemp("venv")
    repos = root / "repos"
    fixed = _instance("o__calc-1", "o/calc", _repo(repos, "o__calc", REFACTORED))
    unfixed = _instance("p__calc-1", "p/calc", _repo(repos, "p__calc", WRONG))
    return repos, root / "envs", fixed, unfixed


def test_settles_contaminated_and_clean(world) -> None:  # noqa: ANN001
    repos, envs, fixed, unfixed = world
    specs = {**SPECS, "p/calc": SPECS["o/calc"]}
    plain = list(run_stage2([fixed, unfixed], repos, {"*": "2023-06-01"}, config=PresenceConfig(similarity="difflib"), reuse_counts=False).flags)
    assert [f.evidence["category"] for f in plain] == ["refactored-inconclusive"] * 2
    runner = VenvRunner(repos, specs, envs_dir=envs, timeout=300)
    flags = list(run_stage2([fixed, unfixed], repos, {"*": "2023-06-01"}, config=PresenceConfig(similarity="difflib", runner=runner), reuse_counts=False).flags)
    yes, no = flags
    assert yes.contaminated is True and yes.evidence["category"] == "verified-by-tests"
    assert yes.evidence["verification"]["tests"] == {"test_calc.py::test_none": "PASSED",
                                                     "test_calc.py::test_int": "PASSED"}
    assert no.contaminated is False and no.evidence["category"] == "refuted-by-tests"
    assert no.evidence["verification"]["tests"]["test_calc.py::test_none"] == "FAILED"
    assert no.evidence["verification"]["confinement"] == "namespaces"
    # one environment per (repository, version), built once and kept; outcomes recorded
    assert sorted(p.name for p in envs.iterdir() if (p / ".ok").is_file())[0].startswith("o__calc-1.0-")
    recorded = (envs / "outcomes.jsonl").read_text().splitlines()
    assert len(recorded) == 4   # gold + snapshot, for each instance

    again = list(run_stage2([fixed, unfixed], repos, {"*": "2023-06-01"}, config=PresenceConfig(similarity="difflib",
                                                 runner=VenvRunner(repos, specs, envs_dir=envs)), reuse_counts=False).flags)
    assert [f.contaminated for f in again] == [True, False]
    assert (envs / "outcomes.jsonl").read_text().splitlines() == recorded   # nothing run twice


def test_an_environment_that_cannot_be_built_stays_undecided(world, tmp_path: Path) -> None:  # noqa: ANN001
    repos, _, fixed, _ = world
    specs = {"o/calc": {"1.0": {**SPECS["o/calc"]["1.0"], "python": "2.0"}}}
    (flag,) = list(run_stage2([fixed], repos, {"*": "2023-06-01"}, config=PresenceConfig(
        similarity="difflib", runner=VenvRunner(repos, specs, envs_dir=tmp_path / "envs")), reuse_counts=False).flags)
    assert flag.contaminated is None and flag.evidence["category"] == "refactored-inconclusive"
    detail = flag.evidence["verification"]["detail"]
    assert detail.startswith("environment unavailable: o__calc-1.0-") and "Python 2.0 is not installed here" in detail
    conda = {"o/calc": {"1.0": {**SPECS["o/calc"]["1.0"], "packages": "environment.yml"}}}
    (flag,) = list(run_stage2([fixed], repos, {"*": "2023-06-01"}, config=PresenceConfig(
        similarity="difflib", runner=VenvRunner(repos, conda, envs_dir=tmp_path / "envs2")), reuse_counts=False).flags)
    assert "packages from environment.yml need conda" in flag.evidence["verification"]["detail"]


def test_a_gold_patch_that_fails_means_the_environment_is_not_trusted(world) -> None:  # noqa: ANN001
    repos, envs, fixed, _ = world   # the same environment: its outcomes are recorded per test patch
    bad_tests = fixed.test_patch.replace("add_one(1) == 2", "add_one(1) == 3")
    inst = BugInstance(fixed.instance_id, fixed.benchmark, fixed.repo, fixed.base_commit, fixed.patch,
                       test_patch=bad_tests, fail_to_pass=fixed.fail_to_pass, pass_to_pass=fixed.pass_to_pass,
                       extra=dict(fixed.extra))
    (flag,) = list(run_stage2([inst], repos, {"*": "2023-06-01"}, config=PresenceConfig(
        similarity="difflib", runner=VenvRunner(repos, SPECS, envs_dir=envs)), reuse_counts=False).flags)
    assert flag.contaminated is None
    assert flag.evidence["verification"]["detail"].startswith("environment not trusted: the gold patch does not pass")


def test_specs_file_and_interpreters(tmp_path: Path) -> None:
    path = tmp_path / "specs.json"
    path.write_text(json.dumps(SPECS))
    assert load_env_specs(path) == SPECS
    path.write_text("[1]")
    with pytest.raises(Exception, match="expected a JSON object"):
        load_env_specs(path)
    assert find_python(PY) is not None and find_python("2.0") is None


def test_without_a_specs_file_the_shipped_verified_table_is_used() -> None:
    """Issue 29, item 7: --verify venv could not run without a specifications file nothing
    shipped (swebench 5 dropped its table); the Verified repositories' table ships, with its
    source and licence, and covers every (repository, version) of SWE-bench Verified."""
    from benchchecker_plugin.testrun._envs import SHIPPED_ENV_SPECS
    from tests.helpers import require_shared_data

    specs = load_env_specs()
    shipped = json.loads(SHIPPED_ENV_SPECS.read_text(encoding="utf-8"))
    assert shipped["license"] == "MIT" and "swebench 4.0.3" in shipped["about"]
    assert "Permission is hereby granted" in shipped["license_text"]
    assert specs == shipped["specs"] and len(specs) == 12
    assert specs["psf/requests"]["2.0"]["python"] == "3.9"
    rows = [json.loads(line) for line in (require_shared_data("swebench_verified")
            / "swebench_verified_composite.jsonl").read_text().splitlines()]
    used = {(r["repo"], str(r["version"])) for r in rows}
    assert len(used) == 80 and all(v in specs[repo] for repo, v in used)
    assert all("python" in s and "test_cmd" in s for v in specs.values() for s in v.values())


SRC_PYPROJECT = ('[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
                 '[project]\nname = "calc"\nversion = "1.0"\n[tool.setuptools]\npackage-dir = {"" = "src"}\n'
                 'packages = ["calc"]\n')


# the build writes a file git does not track (as setuptools-scm writes _version.py)
SETUP_PY = ('from pathlib import Path\nfrom setuptools import setup\n'
            'Path("src/calc/_version.py").write_text("version = \'1.0\'\\n")\nsetup()\n')
IMPORTS_VERSION = "from ._version import version  # noqa: F401\n"


def test_a_src_layout_package_is_imported_from_the_tested_tree(tmp_path: Path) -> None:
    """The environment installs the package editable from its own build copy (the buggy setup
    commit); the tests must import the tested tree's code, or the gold patch 'fails' there, and
    the tested tree needs the files the build generated (its _version.py), as /testbed has them."""
    init = "src/calc/__init__.py"
    base = history(tmp_path / "repos" / "s__calc", [
        ("2023-01-01", {init: BUGGY + IMPORTS_VERSION, "pyproject.toml": SRC_PYPROJECT, "setup.py": SETUP_PY}),
        ("2023-03-01", {init: REFACTORED + IMPORTS_VERSION})])
    patch = PATCH.replace("a/calc.py", "a/src/calc/__init__.py").replace("b/calc.py", "b/src/calc/__init__.py")
    inst = BugInstance("s__calc-1", "swe-bench-verified", "s/calc", base, patch, test_patch=TEST_PATCH,
                       fail_to_pass=("test_calc.py::test_none",), pass_to_pass=("test_calc.py::test_int",),
                       extra={"version": "1.0", "environment_setup_commit": base})
    runner = VenvRunner(tmp_path / "repos", {"s/calc": SPECS["o/calc"]}, envs_dir=tmp_path / "envs", timeout=300)
    gold = runner.gold(inst)
    assert gold.passed, gold.detail   # the fixed code under test, not the environment's buggy copy
    assert "src/calc/_version.py" in json.loads(next((tmp_path / "envs").glob("s__calc-*/.ok")).read_text())[
        "generated"]
    (flag,) = list(run_stage2([inst], tmp_path / "repos", {"*": "2023-06-01"}, config=PresenceConfig(similarity="difflib", runner=runner), reuse_counts=False).flags)
    assert flag.contaminated is True and flag.evidence["category"] == "verified-by-tests"


def test_an_interpreter_linked_to_the_environment_sees_its_packages(tmp_path: Path) -> None:
    """tox-current-env runs tests with ``.tox/py39/bin/python``, a symbolic link to the venv's
    python, which Python does not treat as the venv; the site hook gives it the venv's packages."""
    import subprocess

    from benchchecker_plugin.testrun._venv import site_hook

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = (venv / "lib").glob("python*/site-packages")
    (site / "only_in_the_env.py").write_text("WHERE = 'env'\n")
    link = tmp_path / ".tox" / "py" / "bin" / "python"
    link.parent.mkdir(parents=True)
    link.symlink_to(venv / "bin" / "python")
    probe = ["-c", "import only_in_the_env; print(only_in_the_env.WHERE)"]
    bare = subprocess.run([str(link), *probe], capture_output=True, text=True, check=False)
    assert bare.returncode != 0 and "No module named 'only_in_the_env'" in bare.stderr
    hook = site_hook(venv, tmp_path / "hook")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": hook}
    fixed = subprocess.run([str(link), *probe], capture_output=True, text=True, check=False, env=env)
    assert fixed.stdout.strip() == "env", fixed.stderr
    own = subprocess.run([str(venv / "bin" / "python"), "-c", "import sys; print(len(sys.path) == len(set(sys.path)))"],
                         capture_output=True, text=True, check=False, env=env)
    assert own.stdout.strip() == "True", own.stderr   # the venv's own python: the hook adds nothing


def test_a_failure_of_lines_found_in_another_scope_does_not_settle_clean(tmp_path: Path) -> None:
    """The fixed method is gone by the cutoff; Stage II aligns its line to another class's method
    of the same name. Those lines fail the tests, but that shows nothing about the fix: the
    instance stays undecided, with the reason (before, it was settled clean: sphinx-9698)."""
    bug = 'class A:\n    def label(self, x):\n        return "%s()" % x\n\n\ndef other():\n    return 3\n'
    fix = bug.replace('"%s()" % x', '"%s" % x')
    later = 'class B:\n    def label(self, x):\n        return "%s [B]" % self.name\n\n\ndef other():\n    return 3\n'
    patch = ('--- a/calc.py\n+++ b/calc.py\n@@ -1,6 +1,6 @@\n class A:\n     def label(self, x):\n'
             '-        return "%s()" % x\n+        return "%s" % x\n \n \n def other():\n')
    tests = ('--- /dev/null\n+++ b/test_calc.py\n@@ -0,0 +1,4 @@\n+import calc\n+\n+def test_label():\n'
             '+    assert calc.A().label("f") == "f"\n')
    base = history(tmp_path / "repos" / "m__calc", [("2023-01-01", {"calc.py": bug, "pyproject.toml": PYPROJECT}),
                                                      ("2023-02-01", {"calc.py": fix}),
                                                      ("2023-03-01", {"calc.py": later})])
    inst = BugInstance("m__calc-1", "swe-bench-verified", "m/calc", base, patch, test_patch=tests,
                       fail_to_pass=("test_calc.py::test_label",),
                       extra={"version": "1.0", "environment_setup_commit": base})
    runner = VenvRunner(tmp_path / "repos", {"m/calc": SPECS["o/calc"]}, envs_dir=tmp_path / "envs", timeout=300)
    (flag,) = list(run_stage2([inst], tmp_path / "repos", {"*": "2023-06-01"}, config=PresenceConfig(similarity="difflib", runner=runner), reuse_counts=False).flags)
    assert flag.evidence["blocks"][0]["found_scope"] == "B.label"
    verification = flag.evidence["verification"]
    assert verification["decisive"] is True and verification["tests"] == {"test_calc.py::test_label": "FAILED"}
    assert flag.contaminated is None and flag.evidence["category"] == "refactored-inconclusive"
    assert verification["detail"].endswith(
        "; not settled clean: the snapshot's lines came from calc.py B.label, not calc.py A.label, so a "
        "failure there does not show the fix is absent")


def test_a_failure_that_breaks_pass_to_pass_tests_too_does_not_settle_clean(tmp_path: Path) -> None:
    """The fix is there at the cutoff, folded into a wider condition: spliced into the base commit
    it breaks a PASS_TO_PASS test (which passes with the gold patch). Such a failure is the
    splice's, not the fix's absence (sphinx-9281: 1 FAIL_TO_PASS and 9 PASS_TO_PASS failed)."""
    wider = FIXED.replace("    if x is None:\n", "    if x is None or int(x) == 1:\n")
    base = history(tmp_path / "repos" / "q__calc", [("2023-01-01", {"calc.py": BUGGY, "pyproject.toml": PYPROJECT}),
                                                      ("2023-02-01", {"calc.py": FIXED}),
                                                      ("2023-03-01", {"calc.py": wider})])
    inst = _instance("q__calc-1", "q/calc", base)
    runner = VenvRunner(tmp_path / "repos", {"q/calc": SPECS["o/calc"]}, envs_dir=tmp_path / "envs", timeout=300)
    (flag,) = list(run_stage2([inst], tmp_path / "repos", {"*": "2023-06-01"}, config=PresenceConfig(similarity="difflib", runner=runner), reuse_counts=False).flags)
    verification = flag.evidence["verification"]
    assert verification["decisive"] is True
    assert verification["tests"] == {"test_calc.py::test_none": "PASSED", "test_calc.py::test_int": "FAILED"}
    assert flag.contaminated is None and flag.evidence["category"] == "refactored-inconclusive"
    assert verification["detail"].endswith(
        "; not settled clean: 1 PASS_TO_PASS test(s) failed too (e.g. test_calc.py::test_int), so the "
        "snapshot's lines broke more than the fix")


def test_constraints_pin_every_install_and_key_the_environment(world, tmp_path: Path) -> None:  # noqa: ANN001
    """--env-constraints: the file pins what the specification leaves open (here pytest, which the
    specification names without a version), and an environment built with it is another one."""
    import subprocess

    repos, _, fixed, _ = world
    pins = tmp_path / "pins.txt"
    pins.write_text("pytest<8.1  # the era's release\n")
    plain = VenvRunner(repos, SPECS, envs_dir=tmp_path / "envs")
    pinned = VenvRunner(repos, SPECS, envs_dir=tmp_path / "envs", constraints=pins)
    assert plain.env_key(fixed) != pinned.env_key(fixed)
    env = pinned.environment(fixed)
    version = subprocess.run([str(env.folder / "venv" / "bin" / "python"), "-c",
                              "import pytest; print(pytest.__version__)"], capture_output=True, text=True, check=True)
    major, minor = (int(x) for x in version.stdout.split(".")[:2])
    assert (major, minor) < (8, 1), version.stdout
    with pytest.raises(Exception, match="cannot read the constraints file"):
        VenvRunner(repos, SPECS, constraints=tmp_path / "absent.txt")
