"""One place that builds a test runner from the ``--verify`` choice and its options."""

from __future__ import annotations

import os

from ..errors import ExecutionError, InputError
from ._outcome import TestRunner

#: the ``--verify`` choices, in the order ``--help`` lists them
RUNNER_KINDS: tuple[str, ...] = ("none", "local", "venv", "swebench")


def make_runner(kind: str, *, repos_dir: str | os.PathLike[str], timeout: float = 900.0,
                test_cmd: str | None = None, allow_unsandboxed: bool = False,
                env_specs: str | os.PathLike[str] | None = None,
                envs_dir: str | os.PathLike[str] | None = None,
                env_constraints: str | os.PathLike[str] | None = None) -> TestRunner | None:
    """The runner of ``--verify KIND`` (``None`` for ``none``).

    ``local`` and ``venv`` need confinement (user namespaces) unless ``allow_unsandboxed``:
    :class:`ExecutionError` before any work otherwise. ``test_cmd`` applies to ``local`` only:
    given with another kind it is an :class:`InputError` (it would be silently ignored); the
    ``env_*`` / ``envs_dir`` options are used by ``venv`` only."""
    if kind not in RUNNER_KINDS:
        raise InputError(f"--verify {kind!r}: expected one of {', '.join(RUNNER_KINDS)}")
    if test_cmd is not None and kind != "local":
        raise InputError(f"--test-cmd applies to --verify local only (--verify {kind} runs "
                         + ("the environment specification's test command)" if kind == "venv"
                            else "no test command of yours)"))
    if kind == "none":
        return None
    if kind in ("local", "venv"):
        from ._sandbox import confinement

        if confinement() == "none" and not allow_unsandboxed:
            raise ExecutionError(f"--verify {kind}: the tests cannot be confined on this machine (user "
                                 "namespaces via `unshare` are not available); pass "
                                 "--allow-unsandboxed to run the data's test commands anyway")
    if kind == "local":
        from ._local import LocalRunner

        return LocalRunner(repos_dir, test_cmd=test_cmd, timeout=timeout, allow_unsandboxed=allow_unsandboxed)
    if kind == "venv":
        from ._envs import load_env_specs
        from ._venv import VenvRunner

        return VenvRunner(repos_dir, load_env_specs(env_specs), envs_dir=envs_dir, timeout=timeout,
                          allow_unsandboxed=allow_unsandboxed, constraints=env_constraints)
    from ._swebench import SwebenchRunner

    return SwebenchRunner(timeout=int(timeout))
