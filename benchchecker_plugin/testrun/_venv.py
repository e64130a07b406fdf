"""``--verify venv``: settle undecided instances by running their tests without Docker.

The environment of the instance's repository version comes from :class:`~.envs.EnvBuilder`
(built once, cached in ``--envs-dir``). A test run exports the base commit with the patch blocks
replaced by the snapshot's code (the modified diff), applies the test patch and runs ``test_cmd``
on the test files the test patch touches, with the environment first on ``PATH`` and the tested
tree first on ``PYTHONPATH`` (the environment's editable install points at its own build copy, not
at the code under test), confined as every test run is (:mod:`._sandbox`: no shell, scrubbed
environment, no network, read-only machine, time limit), and decides from the named
FAIL_TO_PASS/PASS_TO_PASS results (:mod:`._testlog`).

**Trust**: the instance's own gold patch is run first in the same environment; when it does not
pass, the environment cannot reproduce the benchmark and the instance stays undecided (never
guessed). An environment that cannot be built here is reported with its reason and its instances
stay undecided.

Resumable: built environments are reused, failed builds are remembered with their reason, and
every test outcome is recorded by (instance, diff) in ``outcomes.jsonl`` there (:mod:`._outcomes`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from unidiff import PatchSet

from ..atomic import write_text_atomic
from ..instances import BugInstance
from ..repos import apply_diff, export_tree, find_repo
from ._envs import EnvBuilder, Environment, EnvUnavailable
from ._outcome import VerifyOutcome
from ._outcomes import OutcomeStore
from ._pre_install import apply_edits
from ._sandbox import run_steps, split_command
from ._testlog import judge_run

# part of every recorded outcome's key: bumped when how a test run is set up changes, so that
# outcomes recorded by an older runner are not reused (2: the tested tree first on
# PYTHONPATH; 3: the build's generated files copied into it; 4: the site hook; 5: links never
# copied, a fresh read-only /dev)
_RUN_FORMAT = 5


def import_roots(tree: Path) -> list[str]:
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


def site_hook(venv: Path, folder: Path) -> str:
    """A folder with a ``sitecustomize`` that gives the environment's packages to an interpreter
    started through a symbolic link to the venv's ``python`` (which Python does not treat as the
    venv: it looks for ``pyvenv.cfg`` beside the link, not beside its target)."""
    folder.mkdir(parents=True, exist_ok=True)
    dirs = sorted(str(p) for p in (venv / "lib").glob("python*/site-packages"))
    write_text_atomic(folder / "sitecustomize.py", _HOOK.format(venv=str(venv), dirs=dirs))
    return str(folder)


def copy_regular(source: Path, tree: Path, rel: str) -> bool:
    """Copy ``source/rel`` to ``tree/rel`` when it is a regular file (a link is never followed:
    it could lead to ``/proc/self/environ`` or a file of the caller's) and ``tree/rel`` does not
    exist and lies inside ``tree`` (no folder on the way is a link out of it); whether copied."""
    made, target = source / rel, tree / rel
    try:
        if not stat.S_ISREG(os.lstat(made).st_mode) or os.path.lexists(target):
            return False
    except OSError:
        return False
    root = tree.resolve()
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    if parent.resolve() != root and root not in parent.resolve().parents:
        return False
    shutil.copyfile(made, target, follow_symlinks=False)
    shutil.copymode(made, target, follow_symlinks=False)
    return True


def _test_files(test_patch: str) -> list[str]:
    return [f.path for f in PatchSet(test_patch) if not f.is_removed_file] if test_patch.strip() else []


class VenvRunner:
    """Runs an instance's tests in a per-version virtual environment (see module doc): the
    environments from an :class:`EnvBuilder`, the outcomes kept in an :class:`OutcomeStore`."""

    name = "venv"

    def __init__(self, repos_dir: str | os.PathLike[str], specs: Mapping[str, Mapping[str, Any]], *,
                 envs_dir: str | os.PathLike[str] | None = None, timeout: float = 900.0,
                 build_timeout: float = 1800.0, allow_unsandboxed: bool = False,
                 constraints: str | os.PathLike[str] | None = None) -> None:
        self.builder = EnvBuilder(repos_dir, specs, envs_dir=envs_dir, build_timeout=build_timeout,
                                  allow_unsandboxed=allow_unsandboxed, constraints=constraints)
        self.store = OutcomeStore(self.builder.envs_dir / "outcomes.jsonl")
        self.repos_dir = self.builder.repos_dir
        self.envs_dir = self.builder.envs_dir
        self.timeout = timeout
        self.allow_unsandboxed = allow_unsandboxed
        self._gold: dict[str, VerifyOutcome] = {}
        self._gold_lock = threading.Lock()

    def env_key(self, inst: BugInstance) -> str:
        """The name of ``inst``'s environment folder (see :meth:`EnvBuilder.env_key`)."""
        return self.builder.env_key(inst)

    def environment(self, inst: BugInstance) -> Environment:
        """The built environment of ``inst``'s repository version (built now if needed)."""
        return self.builder.environment(inst)

    def _run(self, inst: BugInstance, env: Environment, diff: str) -> VerifyOutcome:
        key = hashlib.sha256(json.dumps([_RUN_FORMAT, inst.instance_id, env.key, diff, inst.test_patch]
                                        ).encode()).hexdigest()
        done = self.store.get(key)
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
                copy_regular(env.folder / "src", tree, rel)
            bindir = str(env.folder / "venv" / "bin")
            hook = site_hook(env.folder / "venv", Path(tmp) / "site-hook")
            how, runs = run_steps(steps, tmp, tree, timeout=self.timeout, path_prepend=[bindir],
                                  visible=[env.folder, env.base], allow_unsandboxed=self.allow_unsandboxed,
                                  env={"VIRTUAL_ENV": str(env.folder / "venv"),
                                       "PYTHONPATH": os.pathsep.join([*import_roots(tree), hook])})
        verdict = judge_run(inst, runs)
        # decisive only when every named test ran to a result (none missing, no timeout)
        ran = bool(verdict.tests) and all(s not in ("missing", "timeout", "no results") for _, s in verdict.tests)
        outcome = VerifyOutcome(verdict.passed, self.name, f"{verdict.detail} (environment {env.key})",
                                round(time.perf_counter() - t0, 3),
                                "\n".join(r.output for r in runs)[-2000:], verdict.tests, how,
                                decisive=ran and not verdict.passed)
        self.store.put(key, outcome)
        return outcome

    def gold(self, inst: BugInstance) -> VerifyOutcome:
        """The instance's gold patch run in its environment: whether the environment is trusted."""
        with self._gold_lock:
            done = self._gold.get(inst.instance_id)
        if done is None:
            done = self._run(inst, self.environment(inst), inst.patch)
            with self._gold_lock:
                done = self._gold.setdefault(inst.instance_id, done)
        return done

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
