"""``--verify local``: an instance's tests in a throw-away export of its base commit.

The base commit is exported into a temporary folder (``git archive``; the clone is not touched),
the modified diff and the test patch are applied, and the test command (from the instance, or
given) runs without a shell, with a scrubbed environment, confined to that folder and with a time
limit (:mod:`._sandbox`); the verdict comes from the named tests' results (:mod:`._testlog`), never
from the exit code alone. The folder is deleted afterwards.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from ..errors import ExecutionError
from ..instances import BugInstance
from ..repos import apply_diff, export_tree, find_repo
from ._outcome import VerifyOutcome
from ._sandbox import run_steps, split_command
from ._testlog import judge_run


class LocalRunner:
    """Runs the tests in a throw-away export of the base commit (see module doc).

    ``allow_unsandboxed`` lets the run go ahead where the tests cannot be confined (no user
    namespaces); the environment is still scrubbed and no shell is used.
    """

    name = "local"

    def __init__(self, repos_dir: str | os.PathLike[str], *, test_cmd: str | None = None,
                 timeout: float = 900.0, allow_unsandboxed: bool = False) -> None:
        self.repos_dir = Path(repos_dir)
        self.test_cmd = test_cmd
        self.timeout = timeout
        self.allow_unsandboxed = allow_unsandboxed
        if test_cmd is not None:
            split_command(test_cmd, what="--test-cmd")  # refused before any instance runs

    def run(self, inst: BugInstance, diff: str) -> VerifyOutcome:
        cmd = self.test_cmd or inst.test_cmd
        if not cmd:
            raise ExecutionError(f"instance {inst.instance_id!r}: no test command (give one with "
                                 "--test-cmd)")
        steps = split_command(cmd, what=f"instance {inst.instance_id!r}: test command")
        repo = find_repo(self.repos_dir, inst)
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="benchchecker-verify-") as tmp:
            tree = export_tree(repo, inst.base_commit, Path(tmp) / "tree")
            for part in (diff, inst.test_patch):
                if part.strip():
                    apply_diff(tree, part)
            how, runs = run_steps(steps, tmp, tree, timeout=self.timeout,
                                  allow_unsandboxed=self.allow_unsandboxed)
        verdict = judge_run(inst, runs)
        tail = "\n".join(r.output for r in runs)[-2000:]
        return VerifyOutcome(verdict.passed, self.name, verdict.detail,
                             round(time.perf_counter() - t0, 3), tail, verdict.tests, how)
