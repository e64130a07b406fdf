"""What a command (or an Inspect ``-M`` model) is configured by to build its model: one frozen
record, the CLI's shared model options read into it (``cli.options.model_options``) and Inspect's
model API building from it alike."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..execution import Executor
from ._aliases import DEFAULT_MODEL_SPEC
from ._base import TextModel
from ._cache import default_cache_dir


@dataclass(frozen=True)
class ModelOptions:
    """The values of the shared model options of one command invocation (the defaults here are
    the options' defaults: :func:`model_options` reads them)."""

    spec: str = DEFAULT_MODEL_SPEC
    base_url: str | None = None
    cache_dir: Path | None = None
    no_cache: bool = False
    batch_size: int = 8
    max_concurrency: int = 8
    dry_run: bool = False
    device: str = "cpu"
    no_prefix_sharing: bool = False

    def build(self, *, executor: Executor | None = None, **extra: Any) -> TextModel:
        """The model these options describe (``extra`` goes to :func:`get_model`, e.g. ``chat=True``).

        With an ``executor`` (``--executor ray``) the model runs on its workers and is asked from
        here, through the cache here (:mod:`~..models.remote`); a dry run asks nothing anywhere."""
        from ._aliases import ALIASES
        from ._backends import Backend, parse_spec
        from ._spec import get_model

        options: dict[str, Any] = {"batch_size": self.batch_size, "max_concurrency": self.max_concurrency}
        if self.base_url:
            options["base_url"] = self.base_url
        parsed = parse_spec(self.spec)
        if parsed.backend is Backend.HF:
            options["device"] = self.device
            if self.no_prefix_sharing:
                options["prefix_cache_mb"] = 0
            if self.cache_dir is not None and parsed.name.lower() in ALIASES:
                options["export_dir"] = self.cache_dir / "models"  # the exported default model
        options.update(extra)
        return get_model(self.spec, cache_dir=None if self.no_cache else self.resolved_cache_dir,
                         use_cache=not self.no_cache, dry_run=self.dry_run,
                         executor=None if self.dry_run else executor, **options)

    @property
    def resolved_cache_dir(self) -> Path:
        return self.cache_dir if self.cache_dir is not None else default_cache_dir()


def set_threads(n: int) -> None:
    """torch CPU threads for local models (``--threads``, Inspect ``-M threads=N``)."""
    if n < 1:
        from ..errors import InputError

        raise InputError(f"threads must be >= 1, got {n}")
    import torch

    torch.set_num_threads(n)


@contextlib.contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """torch CPU threads set to ``n`` (:func:`set_threads`) inside the block, restored after it
    (a training run or an evaluation that owns its thread count)."""
    import torch  # imported by the run, not by importing this module

    old = torch.get_num_threads()
    set_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)
