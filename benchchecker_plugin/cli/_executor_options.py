"""``--executor local|ray`` and ``--ray-address``: where a command's per-item work runs.

Use::

    @click.command()
    @executor_options
    def cmd(executor_opts: ExecutorOptions, ...):
        executor = executor_opts.build(workers)   # None: the command's in-process default
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click

from ..execution import Executor, make_executor


@dataclass(frozen=True)
class ExecutorOptions:
    """The values of ``--executor``, ``--ray-address`` and ``--ray-retries``."""

    kind: str = "local"
    ray_address: str | None = None
    ray_retries: int = 3

    @property
    def is_ray(self) -> bool:
        return self.kind == "ray"

    def build(self, workers: int = 1) -> Executor | None:
        """A Ray executor, a thread pool of ``workers``, or ``None`` (one item after another in
        this process): :func:`~..execution.make_executor`."""
        if self.is_ray or workers > 1:
            return make_executor(self.kind, workers=workers, ray_address=self.ray_address,
                                 ray_retries=self.ray_retries)
        return None


def executor_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add the executor options; the command receives them as ``executor_opts``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs["executor_opts"] = ExecutorOptions(kwargs.pop("executor_kind"), kwargs.pop("ray_address"),
                                                  kwargs.pop("ray_retries"))
        if kwargs["executor_opts"].ray_address and not kwargs["executor_opts"].is_ray:
            raise click.UsageError("--ray-address needs --executor ray")
        return fn(*args, **kwargs)

    for opt in reversed([
        click.option("--executor", "executor_kind", type=click.Choice(["local", "ray"]), default="local",
                     show_default=True,
                     help="Where the per-item work runs: this process (with --workers threads where "
                          "the command has it) or a Ray cluster (needs the [ray] extra; results, and "
                          "model answers for the cache, come back to this process)."),
        click.option("--ray-address", default=None, metavar="HOST:PORT",
                     help="Ray cluster to join ('auto': the one running on this machine); default: "
                          "$RAY_ADDRESS, else start a local one. Every node needs this package and "
                          "the repositories (a shared path, or `benchchecker repos fetch` on each)."),
        click.option("--ray-retries", type=click.IntRange(min=0), default=ExecutorOptions.ray_retries,
                     show_default=True,
                     help="With --executor ray: how often an item whose worker died is run again."),
    ]):
        wrapper = opt(wrapper)
    return wrapper


def remote_batch(model: Any, batch_size: int, opts: ExecutorOptions) -> int:
    """How many prompts a command hands the model per call: ``batch_size``, or with ``--executor
    ray`` the remote model's call size (several workers' shards), so the cluster has work to share."""
    return max(batch_size, int(getattr(model, "batch_size", batch_size) or batch_size)) if opts.is_ray else batch_size
