"""An executor from the commands' options (``--executor``, ``--workers``, ``--ray-address``,
``--ray-retries``)."""

from __future__ import annotations

from ..errors import InputError
from ._executor import Executor, LocalExecutor

KINDS = ("local", "ray")


def make_executor(kind: str = "local", *, workers: int = 1, ray_address: str | None = None,
                  ray_retries: int = 3) -> Executor:
    """A :class:`~._ray.RayExecutor` on the cluster at ``ray_address`` (``kind="ray"``), else a
    :class:`~._executor.LocalExecutor` of ``workers`` threads (one: this thread)."""
    if kind not in KINDS:
        raise InputError(f"--executor {kind}: choose local or ray")
    if kind == "ray":
        from ._ray import RayExecutor

        return RayExecutor(ray_address, max_retries=ray_retries)
    if ray_address:
        raise InputError("--ray-address needs --executor ray")
    return LocalExecutor(workers)
