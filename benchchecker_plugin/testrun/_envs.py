"""Building the virtual environment of a repository version, once, for ``--verify venv``.

For each repository *version* the environment is built once and cached outside the project
(``--envs-dir``, default ``~/.cache/benchchecker/venvs``): a virtual environment on the
interpreter the version's specification names (found on ``PATH`` or in pyenv), its pinned
``pip_packages`` and ``packages`` from the package registry, then the repository itself installed
from its ``environment_setup_commit`` with the specification's install command. The
specifications have swebench's per-version shape (``python``, ``packages``, ``pip_packages``,
``install``, ``pre_install``, ``test_cmd``): the table shipped for the SWE-bench Verified
repositories (``benchchecker_plugin/data/swebench_verified_env_specs.json``, swebench 4.0.3's,
MIT), or a JSON file ``{repo: {version: spec}}`` given with ``--env-specs``.

An environment that cannot be built here (no such interpreter, conda ``environment.yml``,
``pre_install`` steps other than plain ``sed -i 's/A/B/'`` edits, which are applied without a
shell to the built and the tested tree, a failing install) is :class:`EnvUnavailable` with its
reason, remembered in a ``.failed`` marker; a built one has a ``.ok`` marker. Each environment has
its own lock: two versions build side by side, and two instances of one version wait for one build.
"""

from __future__ import annotations

import ast
import configparser
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import threading
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic import write_text_atomic
from ..errors import ExecutionError, InputError
from ..instances import BugInstance
from ..repos import export_tree, find_repo
from ._pre_install import Edit, apply_edits, parse_step
from ._sandbox import Step, run_steps, split_command

#: a version string as it may appear in a folder name (no separator, no "..")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
#: a requirement fetched from the index: a name, extras, a version specifier or marker; no path,
#: URL or option (those would make pip build local code, with the network on)
_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,\s-]*\])?\s*([<>=!~][^@/\\]*)?(;[^@/\\]*)?$")


class EnvUnavailable(ExecutionError):
    """The environment of a repository version cannot be built here (the reason says why)."""


def default_envs_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "benchchecker" / "venvs"


#: the SWE-bench Verified repositories' per-version table, shipped (source and licence inside)
SHIPPED_ENV_SPECS = Path(__file__).resolve().parents[1] / "data" / "swebench_verified_env_specs.json"


def load_env_specs(path: str | os.PathLike[str] | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """``{repo: {version: spec}}``: from ``path`` (JSON), else the shipped table (so a
    repository or version the table lacks can be given without editing the package)."""
    path = SHIPPED_ENV_SPECS if path is None else path
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: cannot read the environment specifications ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("specs"), dict):   # with its source, licence
        data = data["specs"]
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise InputError(f"{path}: expected a JSON object {{repo: {{version: spec}}}}")
    return data


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
    """The specification's ``pre_install`` steps as file edits (:mod:`._pre_install`); any other
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
# is built again (2: generated files listed; grep-conditional pre_install edits understood;
# 3: packages downloaded first, the build without the network; links never listed as generated)
_ENV_FORMAT = 3


def _marker(path: Path) -> dict[str, Any] | None:
    """The marker's record when it was written by this runner's format, else ``None``."""
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) and rec.get("format") == _ENV_FORMAT else None


def tree_files(tree: Path) -> list[str]:
    """The regular files under ``tree`` (relative, sorted), byte-code caches left out. A link is
    never listed nor followed (a build could leave ``x -> /proc/self/environ`` there)."""
    out = []
    for dirpath, _dirs, filenames in os.walk(tree):   # does not descend into linked folders
        for name in filenames:
            path = Path(dirpath) / name
            if stat.S_ISREG(os.lstat(path).st_mode) and "__pycache__" not in path.parts and path.suffix != ".pyc":
                out.append(str(path.relative_to(tree)))
    return sorted(out)


def plain_requirements(lines: list[str]) -> list[str]:
    """The entries of ``lines`` that name a package of the index (``name[extra]>=1; marker``),
    comments and everything else (paths, URLs, ``-e``, options) left out."""
    out = []
    for raw in lines:
        line = raw.split(" #", 1)[0].strip()
        if line and not line.startswith("#") and _PLAIN.match(line):
            out.append(line)
    return out


def _setup_py_requires(text: str) -> list[str]:
    """``install_requires`` / ``setup_requires`` given as literal lists to ``setup()``, read
    without running the file."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("install_requires", "setup_requires"):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(value, (list, tuple)):
                out.extend(str(v) for v in value)
    return out


def declared_requirements(tree: Path) -> list[str]:
    """What ``tree`` declares it needs to be built and installed, read without running any of its
    code: ``pyproject.toml``'s build requirements (setuptools and wheel when it has none) and
    ``[project] dependencies``, ``setup.cfg``'s ``install_requires`` and literal lists given to
    ``setup()`` in ``setup.py``; index packages only (:func:`plain_requirements`)."""
    found: list[str] = []
    build = ["setuptools>=40.8.0", "wheel"]
    try:
        meta = tomllib.loads(_regular_text(tree / "pyproject.toml") or "")
        build = list(meta.get("build-system", {}).get("requires", build))
        found += list(meta.get("project", {}).get("dependencies", []))
    except (tomllib.TOMLDecodeError, AttributeError, TypeError):
        pass
    cfg = configparser.ConfigParser(interpolation=None)
    try:
        cfg.read_string(_regular_text(tree / "setup.cfg") or "")
        found += cfg.get("options", "install_requires", fallback="").splitlines()
        found += cfg.get("options", "setup_requires", fallback="").splitlines()
    except configparser.Error:
        pass
    found += _setup_py_requires(_regular_text(tree / "setup.py") or "")
    return list(dict.fromkeys(plain_requirements([*map(str, build), *map(str, found)])))


def _regular_text(path: Path) -> str | None:
    """The text of ``path`` when it is a regular file (not a link), else ``None``."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


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
        # both become part of a folder name under --envs-dir: nothing that could leave it
        if not _VERSION.match(version) or ".." in version:
            raise EnvUnavailable(f"version {version[:80]!r} of {inst.repo} is not a plain version string "
                                 "(letters, digits, '.', '_', '+', '-')")
        if not _REPO.match(inst.repo) or ".." in inst.repo:
            raise EnvUnavailable(f"repository {inst.repo[:80]!r} is not owner/name")
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
        if folder.resolve().parent != self.envs_dir.resolve():
            raise EnvUnavailable(f"{key}: not a folder directly inside {self.envs_dir}")
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
        venv_python = str(folder / "venv" / "bin" / "python")
        quiet = ("-q", "--disable-pip-version-check")
        wheels = folder / "wheelhouse"
        pins = [str(p) for p in spec.get("pip_packages") or []]
        requirements: list[str] = []
        if packages == "requirements.txt":
            requirements = plain_requirements((_regular_text(src / "requirements.txt") or "").splitlines())
        elif packages:
            pins = [*split_command(packages, what="packages")[0].argv, *pins]
        # 1. with the network, no code of the repository: the interpreter's environment, and every
        #    package the build will need downloaded from the index (pins, requirements, what the
        #    repository declares, read without running it)
        fetch = [Step((str(python), "-m", "venv", str(folder / "venv")))]
        download = (venv_python, "-m", "pip", "download", *quiet, "-d", str(wheels))
        if pins or requirements:
            fetch.append(Step((*download, *pins, *requirements)))
        declared = declared_requirements(src)
        # 2. without the network: the environment built from what was downloaded
        offline = ("--no-index", "--find-links", str(wheels))
        build: list[Step] = []
        if packages == "requirements.txt":
            build.append(Step((venv_python, "-m", "pip", "install", *quiet, *offline, "-r", "requirements.txt")))
        if pins:
            build.append(Step((venv_python, "-m", "pip", "install", *quiet, *offline, *pins)))
        for step in split_command(str(spec.get("install") or "python -m pip install -e ."), what="install"):
            argv = step.argv
            if argv[:1] == ("python",):
                argv = (venv_python, *argv[1:])
            build.append(Step(argv, step.env))
        extra_env = {"PIP_CACHE_DIR": str(self.envs_dir / "pip-cache"),
                     # the export has no .git: setuptools-scm is told the version
                     "SETUPTOOLS_SCM_PRETEND_VERSION": _release(version)}
        if self.constraints:
            write_text_atomic(folder / "constraints.txt", self.constraints)
            extra_env["PIP_CONSTRAINT"] = str(folder / "constraints.txt")
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="benchchecker-build-") as tmp:
            options: dict[str, Any] = {"writable": [folder], "allow_unsandboxed": self.allow_unsandboxed,
                                       "visible": [python.parent.parent]}
            how, runs = run_steps(fetch, tmp, tmp, timeout=self.build_timeout, network=True, env=extra_env,
                                  **options)
            _check_build(fetch, runs)
            if declared:   # best effort: what the install resolves offline decides
                run_steps([Step((*download, *declared))], tmp, tmp, timeout=self.build_timeout, network=True,
                          env=extra_env, **options)
            how, runs = run_steps(build, tmp, src, timeout=self.build_timeout, network=False,
                                  env={**extra_env, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)},
                                  **options)
            _check_build(build, runs, offline=True)
        (self.envs_dir / "pip-cache").mkdir(parents=True, exist_ok=True)
        # what the build wrote into the source tree (setuptools-scm's _version.py, compiled
        # extensions): the tested tree gets these too, as swebench's built /testbed has them
        generated = [f for f in tree_files(src) if f not in tracked]
        write_text_atomic(folder / ".ok", json.dumps({"python": str(python), "build_s": round(
            time.perf_counter() - t0, 1), "confinement": how, "generated": generated, "format": _ENV_FORMAT}) + "\n")


def _check_build(steps: list[Step], runs: list[Any], *, offline: bool = False) -> None:
    """:class:`EnvUnavailable` naming the first step that failed (or timed out), with the lines
    of its output that say why."""
    bad = next((r for r in runs if r.returncode != 0), None)
    if bad is None and len(runs) == len(steps):
        return
    noise = ("note:", "hint:", "warning:", "[notice]", "╰─>", "error: subprocess-exited")
    lines = [ln.strip() for ln in (bad.output if bad else "").splitlines()
             if ln.strip() and not ln.strip().lower().startswith(noise)]
    tail = [ln for ln in lines if "error" in ln.lower()][-2:] or lines[-3:]
    what = "timed out" if bad is None or bad.returncode is None else f"exit {bad.returncode}"
    hint = (" (built without the network from the packages downloaded first: a package the "
            "repository needs but does not declare statically belongs in pip_packages)"
            if offline and any("no matching distribution" in ln.lower() for ln in lines) else "")
    raise EnvUnavailable(f"`{bad.step if bad else steps[len(runs)]}` {what}: {' | '.join(tail)}{hint}")
