"""Building the virtual environment of a repository version, once, for ``--verify venv``.

For each repository *version* the environment is built once and cached outside the project
(``--envs-dir``, default ``~/.cache/benchchecker/venvs``): a virtual environment on the
interpreter the version's specification names (found on ``PATH`` or in pyenv), its pinned
``pip_packages`` and ``packages`` from the package registry, then the repository itself installed
from its ``environment_setup_commit`` with the specification's install command. The
specifications have swebench's per-version shape (``python``, ``packages``, ``pip_packages``,
``install``, ``pre_install``, ``test_cmd``): swebench's own table when the installed swebench has
one (``MAP_REPO_VERSION_TO_SPECS``, swebench < 5), else a JSON file ``{repo: {version: spec}}``
given with ``--env-specs``.

An environment that cannot be built here (no such interpreter, conda ``environment.yml``,
``pre_install`` steps other than plain ``sed -i 's/A/B/'`` edits, which are applied without a
shell to the built and the tested tree, a failing install) is :class:`EnvUnavailable` with its
reason, remembered in a ``.failed`` marker; a built one has a ``.ok`` marker. Each environment has
its own lock: two versions build side by side, and two instances of one version wait for one build.
"""

from __future__ import annotations

import hashlib
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

from ..atomic import write_text_atomic
from ..errors import ExecutionError, InputError
from ..instances.bug import BugInstance
from ..repos.clones import find_repo
from ..repos.git import export_tree
from .pre_install import Edit, apply_edits, parse_step
from .sandbox import Step, run_steps, split_command

__all__ = ["EnvBuilder", "EnvUnavailable", "Environment", "default_envs_dir", "find_python", "load_env_specs",
           "spec_edits"]


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
    from harness_adapters.swebench.compat import version_specs

    table = version_specs()
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
class Environment:
    """A built environment: its key and folder, the interpreter prefix it links to, the test
    command, the specification's edits and the files the build generated."""

    key: str
    folder: Path
    base: Path   # the interpreter's prefix the environment links to (kept visible when confined)
    test_cmd: str
    edits: tuple[Edit, ...] = ()
    generated: tuple[str, ...] = ()   # files the build wrote into its source tree


def spec_edits(spec: Mapping[str, Any]) -> tuple[Edit, ...]:
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


def tree_files(tree: Path) -> list[str]:
    """The files under ``tree`` (relative, sorted), byte-code caches left out."""
    return sorted(str(p.relative_to(tree)) for p in tree.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


class EnvBuilder:
    """Builds and finds the environments of repository versions (see module doc)."""

    def __init__(self, repos_dir: str | os.PathLike[str], specs: Mapping[str, Mapping[str, Any]], *,
                 envs_dir: str | os.PathLike[str] | None = None, build_timeout: float = 1800.0,
                 allow_unsandboxed: bool = False, constraints: str | os.PathLike[str] | None = None) -> None:
        self.repos_dir = Path(repos_dir)
        try:   # pins for every install of every build (PIP_CONSTRAINT): the packages of an era
            self.constraints = Path(constraints).read_text(encoding="utf-8") if constraints is not None else ""
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{constraints}: cannot read the constraints file ({exc})") from None
        self.specs = specs
        self.envs_dir = Path(envs_dir) if envs_dir is not None else default_envs_dir()
        self.build_timeout = build_timeout
        self.allow_unsandboxed = allow_unsandboxed
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()

    def _lock(self, key: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault(key, threading.Lock())

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

    def environment(self, inst: BugInstance) -> Environment:
        """The built environment of ``inst``'s repository version (built now if needed)."""
        version, spec = self.spec(inst)
        setup = str(inst.extra.get("environment_setup_commit") or inst.base_commit)
        key = self.env_key(inst)
        folder = self.envs_dir / key
        with self._lock(key):
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
        return Environment(key, folder, Path(built["python"]).parent.parent,
                           str(spec.get("test_cmd") or "pytest -rA"), spec_edits(spec),
                           tuple(built.get("generated", ())))

    def _build(self, inst: BugInstance, version: str, spec: dict[str, Any], setup: str, folder: Path) -> None:
        python = find_python(str(spec.get("python", "")))
        if python is None:
            raise EnvUnavailable(f"Python {spec.get('python')} is not installed here")
        packages = str(spec.get("packages") or "")
        if packages.endswith((".yml", ".yaml")):
            raise EnvUnavailable(f"packages from {packages} need conda")
        edits = spec_edits(spec)   # EnvUnavailable for any pre_install step other than a plain sed -i
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        src = export_tree(find_repo(self.repos_dir, inst), setup, folder / "src")
        apply_edits(edits, src)
        tracked = set(tree_files(src))
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
        generated = [f for f in tree_files(src) if f not in tracked]
        write_text_atomic(folder / ".ok", json.dumps({"python": str(python), "build_s": round(
            time.perf_counter() - t0, 1), "confinement": how, "generated": generated, "format": _ENV_FORMAT}) + "\n")
