"""``--verify venv``: settle undecided instances by running their tests without Docker.

For each instance the environment of its repository *version* is built once and cached outside
the project (``--envs-dir``, default ``~/.cache/benchchecker/venvs``): a virtual environment on
the interpreter the version's specification names (found on ``PATH`` or in pyenv), its pinned
``pip_packages`` and ``packages`` from the package registry, then the repository itself
installed from its ``environment_setup_commit`` with the specification's install command. The
specifications have swebench's per-version shape (``python``, ``packages``, ``pip_packages``,
``install``, ``pre_install``, ``test_cmd``): swebench's own table when the installed swebench
has one (``MAP_REPO_VERSION_TO_SPECS``, swebench < 5), else a JSON file ``{repo: {version:
spec}}`` given with ``--env-specs``.

A test run exports the base commit with the patch blocks replaced by the snapshot's code (the
modified diff), applies the test patch and runs ``test_cmd`` on the test files the test patch
touches, with the environment first on ``PATH`` and the tested tree first on ``PYTHONPATH`` (the
environment's editable install points at its own build copy, not at the code under test), confined as every test run is
(:mod:`.sandbox`: no shell, scrubbed environment, no network, read-only machine, time limit),
and decides from the named FAIL_TO_PASS/PASS_TO_PASS results (:mod:`.testlog`).

**Trust**: the instance's own gold patch is run first in the same environment; when it does not
pass, the environment cannot reproduce the benchmark and the instance stays undecided (never
guessed). An environment that cannot be built here (no such interpreter, conda
``environment.yml``, ``pre_install`` steps other than plain ``sed -i 's/A/B/'`` edits, which are
applied without a shell to the built and the tested tree, a failing install) is reported with its reason and its instances stay undecided.

Resumable: built environments are reused (a ``.ok`` marker), failed builds are remembered with
their reason, and every test outcome is recorded by (instance, diff) in ``outcomes.jsonl`` there.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unidiff import PatchSet

from ..atomic import write_text_atomic
from ..errors import ExecutionError, InputError
from ..instances.bug import BugInstance
from ..repos.git import apply_diff, export_tree
from .pre_install import Edit, apply_edits, parse_step
from .sandbox import Step, run_steps, split_command
from .testlog import judge_run
from .verify import VerifyOutcome, find_repo

__all__ = ["EnvUnavailable", "VenvRunner", "default_envs_dir", "find_python", "load_env_specs"]


class EnvUnavailable(ExecutionError):
    """The environment of a repository version cannot be built here (the reason says why)."""


def default_envs_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "benchchecker" / "venvs"


def load_env_specs(path: str | os.PathLike[str] | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """``{repo: {version: spec}}``: from ``path`` (JSON), else swebench's table if it has one."""
    if path is not None:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{path}: cannot read the environment specifications ({exc})") from None
        if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
            raise InputError(f"{path}: expected a JSON object {{repo: {{version: spec}}}}")
        return data
    try:
        table = getattr(importlib.import_module("swebench.harness.constants"), "MAP_REPO_VERSION_TO_SPECS", None)
    except ImportError:
        table = None
    if table is None:
        raise InputError("--verify venv needs environment specifications: swebench >= 5 no longer "
                         "ships its per-version table; give --env-specs FILE ({repo: {version: "
                         "spec}} in swebench's shape)")
    return {r: dict(v) for r, v in table.items()}


def find_python(version: str) -> Path | None:
    """An interpreter ``python<version>``: pyenv's (the newest patch release) or on PATH (a pyenv
    shim is skipped: it may point elsewhere); ``None`` if absent."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = sorted(root.glob(f"{version}.*/bin/python{version}"),
                   key=lambda p: [int(x) if x.isdigit() else -1 for x in p.parts[-3].split(".")]) \
        if root.is_dir() and version else []
    if found:
        return found[-1]
    exe = shutil.which(f"python{version}") if version else None
    if exe and "shims" not in Path(exe).parts:
        return Path(exe).resolve()
    return None


@dataclass(frozen=True)
class _Env:
    key: str
    folder: Path
    base: Path   # the interpreter's prefix the environment links to (kept visible when confined)
    test_cmd: str
    edits: tuple[Edit, ...] = ()
    generated: tuple[str, ...] = ()   # files the build wrote into its source tree


def _edits(spec: Mapping[str, Any]) -> tuple[Edit, ...]:
    """The specification's ``pre_install`` steps as file edits (:mod:`.pre_install`); any other
    step (a package manager, a download, other shell logic) makes the environment unavailable."""
    out = []
    for raw in spec.get("pre_install") or []:
        edit = parse_step(str(raw))
        if edit is None:
            raise EnvUnavailable(f"pre_install step {str(raw)[:80]!r} needs a shell or a system package manager")
        out.append(edit)
    return tuple(out)


def _release(version: str) -> str:
    """A full release number for a benchmark's ``version`` ("5.4" -> "5.4.0")."""
    parts = [p for p in version.split(".") if p.isdigit()] or ["0"]
    return ".".join((parts + ["0", "0"])[:3])


# part of every recorded outcome's key: bumped when how a test run is set up changes, so that
# outcomes recorded by an older runner are not reused (2: the tested tree first on
# PYTHONPATH; 3: the build's generated files copied into it; 4: the site hook)
_RUN_FORMAT = 4


def _import_roots(tree: Path) -> list[str]:
    """Where the tested tree's own packages are imported from, ahead of the environment's
    editable install (which points at the build's copy at ``environment_setup_commit``, not at
    the code under test): ``src/`` for a src-layout repository, and the tree itself."""
    src = tree / "src"
    layout = src.is_dir() and any((p / "__init__.py").is_file() for p in src.iterdir() if p.is_dir())
    return [str(src), str(tree)] if layout else [str(tree)]


_HOOK = """\
# written by benchchecker's venv runner: an interpreter reached through a link to the environment's
# (tox-current-env's .tox/<env>/bin/python) does not see a venv's site-packages; add them
import os.path
import site
import sys

if os.path.realpath(sys.prefix) != os.path.realpath({venv!r}):
    for _dir in {dirs!r}:
        site.addsitedir(_dir)
"""


def _site_hook(venv: Path, folder: Path) -> str:
    """A folder with a ``sitecustomize`` that gives the environment's packages to an interpreter
    started through a symbolic link to the venv's ``python`` (which Python does not treat as the
    venv: it looks for ``pyvenv.cfg`` beside the link, not beside its target)."""
    folder.mkdir(parents=True, exist_ok=True)
    dirs = sorted(str(p) for p in (venv / "lib").glob("python*/site-packages"))
    write_text_atomic(folder / "sitecustomize.py", _HOOK.format(venv=str(venv), dirs=dirs))
    return str(folder)


# written into the .ok and .failed markers: an environment built, or refused, by an older runner
# is built again (2: generated files listed; grep-conditional pre_install edits understood)
_ENV_FORMAT = 2


def _marker(path: Path) -> dict[str, Any] | None:
    """The marker's record when it was written by this runner's format, else ``None``."""
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) and rec.get("format") == _ENV_FORMAT else None


def _files(tree: Path) -> list[str]:
    """The files under ``tree`` (relative, sorted), byte-code caches left out."""
    return sorted(str(p.relative_to(tree)) for p in tree.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def _test_files(test_patch: str) -> list[str]:
    return [f.path for f in PatchSet(test_patch) if not f.is_removed_file] if test_patch.strip() else []


class VenvRunner:
    """Runs an instance's tests in a per-version virtual environment (see module doc)."""

    name = "venv"

    def __init__(self, repos_dir: str | os.PathLike[str], specs: Mapping[str, Mapping[str, Any]], *,
                 envs_dir: str | os.PathLike[str] | None = None, timeout: float = 900.0,
                 build_timeout: float = 1800.0, allow_unsandboxed: bool = False,
                 constraints: str | os.PathLike[str] | None = None) -> None:
        self.repos_dir = Path(repos_dir)
        try:   # pins for every install of every build (PIP_CONSTRAINT): the packages of an era
            self.constraints = Path(constraints).read_text(encoding="utf-8") if constraints is not None else ""
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{constraints}: cannot read the constraints file ({exc})") from None
        self.specs = specs
        self.envs_dir = Path(envs_dir) if envs_dir is not None else default_envs_dir()
        self.timeout = timeout
        self.build_timeout = build_timeout
        self.allow_unsandboxed = allow_unsandboxed
        self._lock = threading.Lock()
        self._gold: dict[str, VerifyOutcome] = {}
        self._outcomes: dict[str, VerifyOutcome] | None = None   # outcomes.jsonl, read once

    # ------------------------------------------------------------------ environments
    def spec(self, inst: BugInstance) -> tuple[str, dict[str, Any]]:
        version = str(inst.extra.get("version", ""))
        spec = self.specs.get(inst.repo, {}).get(version)
        if spec is None:
            raise EnvUnavailable(f"no environment specification for {inst.repo} version {version or '?'}")
        return version, dict(spec)

    def env_key(self, inst: BugInstance) -> str:
        """The name of ``inst``'s environment folder: repository, version and a digest of the
        specification and setup commit (:class:`EnvUnavailable` without a specification)."""
        version, spec = self.spec(inst)
        setup = str(inst.extra.get("environment_setup_commit") or inst.base_commit)
        parts: list[Any] = [inst.repo, version, setup, spec] + ([self.constraints] if self.constraints else [])
        digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:12]
        return f"{inst.repo.replace('/', '__')}-{version}-{digest}"

    def environment(self, inst: BugInstance) -> _Env:
        """The built environment of ``inst``'s repository version (built now if needed)."""
        version, spec = self.spec(inst)
        setup = str(inst.extra.get("environment_setup_commit") or inst.base_commit)
        key = self.env_key(inst)
        folder = self.envs_dir / key
        with self._lock:
            failed = _marker(folder / ".failed")
            if failed is not None:
                raise EnvUnavailable(f"{key}: {failed['reason']}")
            if _marker(folder / ".ok") is None:   # never built, or built by an older runner
                try:
                    self._build(inst, version, spec, setup, folder)
                except EnvUnavailable as exc:
                    folder.mkdir(parents=True, exist_ok=True)
                    write_text_atomic(folder / ".failed", json.dumps({"format": _ENV_FORMAT, "reason": str(exc)}) + "\n")
                    raise EnvUnavailable(f"{key}: {exc}") from None
        built = json.loads((folder / ".ok").read_text(encoding="utf-8"))
        return _Env(key, folder, Path(built["python"]).parent.parent, str(spec.get("test_cmd") or "pytest -rA"),
                    _edits(spec), tuple(built.get("generated", ())))

    def _build(self, inst: BugInstance, version: str, spec: dict[str, Any], setup: str, folder: Path) -> None:
        python = find_python(str(spec.get("python", "")))
        if python is None:
            raise EnvUnavailable(f"Python {spec.get('python')} is not installed here")
        packages = str(spec.get("packages") or "")
        if packages.endswith((".yml", ".yaml")):
            raise EnvUnavailable(f"packages from {packages} need conda")
        edits = _edits(spec)   # EnvUnavailable for any pre_install step other than a plain sed -i
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        src = export_tree(find_repo(self.repos_dir, inst), setup, folder / "src")
        apply_edits(edits, src)
        tracked = set(_files(src))
        pip = [str(folder / "venv" / "bin" / "python"), "-m", "pip", "install", "-q",
               "--disable-pip-version-check"]
        steps = [Step((str(python), "-m", "venv", str(folder / "venv")))]
        pins = [str(p) for p in spec.get("pip_packages") or []]
        if packages == "requirements.txt":
            steps.append(Step((*pip, "-r", "requirements.txt")))
        elif packages:
            pins = [*split_command(packages, what="packages")[0].argv, *pins]
        if pins:
            steps.append(Step((*pip, *pins)))
        for step in split_command(str(spec.get("install") or "python -m pip install -e ."), what="install"):
            argv = step.argv
            if argv[:1] == ("python",):
                argv = (str(folder / "venv" / "bin" / "python"), *argv[1:])
            steps.append(Step(argv, step.env))
        extra_env = {"PIP_CACHE_DIR": str(self.envs_dir / "pip-cache"),
                     # the export has no .git: setuptools-scm is told the version
                     "SETUPTOOLS_SCM_PRETEND_VERSION": _release(version)}
        if self.constraints:
            write_text_atomic(folder / "constraints.txt", self.constraints)
            extra_env["PIP_CONSTRAINT"] = str(folder / "constraints.txt")
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="benchchecker-build-") as tmp:
            how, runs = run_steps(steps, tmp, src, timeout=self.build_timeout, network=True,
                                  writable=[folder], allow_unsandboxed=self.allow_unsandboxed,
                                  visible=[python.parent.parent], env=extra_env)
        (self.envs_dir / "pip-cache").mkdir(parents=True, exist_ok=True)
        bad = next((r for r in runs if r.returncode != 0), None)
        if bad is not None or len(runs) != len(steps):
            noise = ("note:", "hint:", "warning:", "[notice]", "╰─>", "error: subprocess-exited")
            lines = [ln.strip() for ln in (bad.output if bad else "").splitlines()
                     if ln.strip() and not ln.strip().lower().startswith(noise)]
            tail = [ln for ln in lines if "error" in ln.lower()][-2:] or lines[-3:]
            what = "timed out" if bad is None or bad.returncode is None else f"exit {bad.returncode}"
            raise EnvUnavailable(f"`{bad.step if bad else steps[len(runs)]}` {what}: {' | '.join(tail)}")
        # what the build wrote into the source tree (setuptools-scm's _version.py, compiled
        # extensions): the tested tree gets these too, as swebench's built /testbed has them
        generated = [f for f in _files(src) if f not in tracked]
        write_text_atomic(folder / ".ok", json.dumps({"python": str(python), "build_s": round(
            time.perf_counter() - t0, 1), "confinement": how, "generated": generated, "format": _ENV_FORMAT}) + "\n")

    # ------------------------------------------------------------------ test runs
    def _outcome_file(self) -> Path:
        return self.envs_dir / "outcomes.jsonl"

    def _recorded(self, key: str) -> VerifyOutcome | None:
        """The outcome recorded under ``key`` (the file is read once, on first use)."""
        with self._lock:
            if self._outcomes is None:
                path = self._outcome_file()
                lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
                self._outcomes = {}
                for line in lines:
                    rec = json.loads(line)
                    out = rec["outcome"]
                    out["tests"] = tuple(map(tuple, out.get("tests", {}).items()))
                    self._outcomes.setdefault(rec["key"], VerifyOutcome(**out))
            return self._outcomes.get(key)

    def _record(self, key: str, outcome: VerifyOutcome) -> None:
        with self._lock, open(self._outcome_file(), "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"key": key, "outcome": outcome.to_dict()}) + "\n")
            if self._outcomes is not None:
                self._outcomes.setdefault(key, outcome)

    def _run(self, inst: BugInstance, env: _Env, diff: str) -> VerifyOutcome:
        key = hashlib.sha256(json.dumps([_RUN_FORMAT, inst.instance_id, env.key, diff, inst.test_patch]
                                        ).encode()).hexdigest()
        done = self._recorded(key)
        if done is not None:
            return done
        steps = split_command(" ".join([env.test_cmd, *_test_files(inst.test_patch)]),
                              what=f"instance {inst.instance_id!r}: test command")
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="benchchecker-verify-") as tmp:
            tree = export_tree(find_repo(self.repos_dir, inst), inst.base_commit, Path(tmp) / "tree")
            apply_edits(env.edits, tree)   # the specification's edits hold in the tested tree too
            for part in (diff, inst.test_patch):
                if part.strip():
                    apply_diff(tree, part)
            for rel in env.generated:   # the build's outputs the tested tree lacks
                made, target = env.folder / "src" / rel, tree / rel
                if made.is_file() and not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(made, target)
            bindir = str(env.folder / "venv" / "bin")
            hook = _site_hook(env.folder / "venv", Path(tmp) / "site-hook")
            how, runs = run_steps(steps, tmp, tree, timeout=self.timeout, path_prepend=[bindir],
                                  visible=[env.folder, env.base], allow_unsandboxed=self.allow_unsandboxed,
                                  env={"VIRTUAL_ENV": str(env.folder / "venv"),
                                       "PYTHONPATH": os.pathsep.join([*_import_roots(tree), hook])})
        verdict = judge_run(inst, runs)
        # decisive only when every named test ran to a result (none missing, no timeout)
        ran = bool(verdict.tests) and all(s not in ("missing", "timeout", "no results") for _, s in verdict.tests)
        outcome = VerifyOutcome(verdict.passed, self.name, f"{verdict.detail} (environment {env.key})",
                                round(time.perf_counter() - t0, 3),
                                "\n".join(r.output for r in runs)[-2000:], verdict.tests, how,
                                decisive=ran and not verdict.passed)
        self._record(key, outcome)
        return outcome

    def gold(self, inst: BugInstance) -> VerifyOutcome:
        """The instance's gold patch run in its environment: whether the environment is trusted."""
        if inst.instance_id not in self._gold:
            self._gold[inst.instance_id] = self._run(inst, self.environment(inst), inst.patch)
        return self._gold[inst.instance_id]

    def run(self, inst: BugInstance, diff: str) -> VerifyOutcome:
        t0 = time.perf_counter()
        try:
            env = self.environment(inst)
        except EnvUnavailable as exc:
            return VerifyOutcome(False, self.name, f"environment unavailable: {exc}",
                                 round(time.perf_counter() - t0, 3))
        gold = self.gold(inst)
        if not gold.passed:
            return VerifyOutcome(False, self.name, f"environment not trusted: the gold patch does not "
                                 f"pass ({gold.detail})", round(time.perf_counter() - t0, 3),
                                 gold.log_tail, gold.tests, gold.confinement)
        out = self._run(inst, env, diff)
        # trusted: the gold patch passes here, so a failure of the snapshot's code is its own
        return out
