"""A model whose requests run on an executor's workers (a Ray cluster) while the caller stays here.

:func:`~.spec.get_model` builds a :class:`RemoteModel` when it is given an ``executor``: the
command, the response cache and the flags stay in this (the driver) process; only the prompts
the cache lacks travel, as shards, to the workers, and only answers come back. So the cache stays
one SQLite file on the driver, written by the driver alone, and a re-run after a crash asks
nothing that was stored.

- **Workers build the model themselves**, once per worker process, from a :class:`ModelRecipe`
  (the spec and its options, never the cache). API keys are not shipped: a worker reads
  ``OPENAI_API_KEY`` (or the provider's variable) from its own environment — a local cluster
  inherits this process's, ``ray start`` the shell's.
- **One concurrency limit for the whole cluster** (API models: ``openai-compatible/`` and
  ``inspect/``): every request holds one of ``max_concurrency`` slots of a shared
  :class:`RaySlots` actor, whichever worker sends it. A slot is a lease: when the worker holding
  it dies, the slot comes back after ``lease_s`` seconds.
- **Failures**: a shard whose worker was lost (after the executor's retries) gives errored
  completions for its prompts (stored as errors, asked again next run, never an answer); when
  every shard of a call fails, the backend is unusable and :class:`~..errors.ExecutionError`
  says why.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import ExecutionError, InputError
from ..execution import Executor, ItemResult, RayExecutor, import_ray
from ._backends import build_model
from ._base import Completion, GenerationParams, TextModel, TokenScores


@dataclass(frozen=True)
class ModelRecipe:
    """What a worker needs to build the model: :func:`~.backends.build_model` (no cache)."""

    spec: str
    options: tuple[tuple[str, Any], ...] = ()

    def build(self) -> TextModel:
        """The model, built once per process and reused by every later shard."""
        key = (self.spec, repr(self.options))
        with _BUILT_LOCK:
            model = _BUILT.get(key)
            if model is None:
                model = _BUILT[key] = build_model(self.spec, **dict(self.options))
        return model


_BUILT: dict[tuple[str, str], TextModel] = {}
_BUILT_LOCK = threading.Lock()


class Slots(Protocol):
    """A concurrency limit shared by every worker: ``acquire`` blocks until a slot is free."""

    limit: int

    def acquire(self) -> str:
        ...

    def release(self, token: str) -> None:
        ...


class LocalSlots:
    """:class:`Slots` for the threads of one process (the local executor)."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise InputError(f"max_concurrency must be >= 1, got {limit}")
        self.limit = limit
        self._sem = threading.BoundedSemaphore(limit)

    def acquire(self) -> str:
        self._sem.acquire()
        return ""

    def release(self, token: str) -> None:
        self._sem.release()


class _SlotsActor:
    """The Ray actor behind :class:`RaySlots`: ``limit`` leased slots (async: waiting costs no thread)."""

    def __init__(self, limit: int, lease_s: float) -> None:
        self.limit = limit
        self.lease_s = lease_s
        self.held: dict[str, float] = {}
        self.peak = 0
        self.granted = 0

    async def acquire(self) -> str:
        while True:
            now = time.monotonic()
            for token, deadline in list(self.held.items()):
                if deadline < now:   # its holder died without releasing it
                    del self.held[token]
            if len(self.held) < self.limit:
                break
            await asyncio.sleep(0.005)
        token = uuid.uuid4().hex
        self.held[token] = now + self.lease_s
        self.granted += 1
        self.peak = max(self.peak, len(self.held))
        return token

    async def release(self, token: str) -> None:
        self.held.pop(token, None)

    async def stats(self) -> dict[str, int]:
        return {"limit": self.limit, "peak": self.peak, "granted": self.granted, "held": len(self.held)}


class RaySlots:
    """:class:`Slots` shared by every worker of a Ray cluster (one actor holds them)."""

    def __init__(self, limit: int, *, lease_s: float = 900.0) -> None:
        if limit < 1:
            raise InputError(f"max_concurrency must be >= 1, got {limit}")
        ray = import_ray()
        self.limit = limit
        self.actor = ray.remote(_SlotsActor).options(num_cpus=0).remote(limit, lease_s)

    def acquire(self) -> str:
        import ray

        return str(ray.get(self.actor.acquire.remote()))

    def release(self, token: str) -> None:
        import ray

        ray.get(self.actor.release.remote(token))

    def stats(self) -> dict[str, int]:
        """``limit``, ``peak`` (most slots held at once), ``granted`` and ``held`` now."""
        import ray

        return dict(ray.get(self.actor.stats.remote()))


def _generate_shard(recipe: ModelRecipe, params: GenerationParams, slots: Slots | None,
                    prompts: list[str]) -> list[Completion]:
    """One shard on a worker: a local model takes it as one batch; an API model sends one request
    per prompt, each holding a shared slot."""
    model = recipe.build()
    if slots is None:
        return model.generate(prompts, params)

    def one(prompt: str) -> Completion:
        token = slots.acquire()
        try:
            return model.generate([prompt], params)[0]
        finally:
            slots.release(token)

    with ThreadPoolExecutor(max_workers=max(1, min(len(prompts), slots.limit))) as pool:
        return list(pool.map(one, prompts))


def _samples_shard(recipe: ModelRecipe, params: GenerationParams, n: int, prompts: list[str]) -> list[list[Completion]]:
    return recipe.build().generate_samples(prompts, params, n)  # type: ignore[attr-defined]


def _scores_shard(recipe: ModelRecipe, texts: list[str]) -> list[TokenScores]:
    return recipe.build().token_scores(texts)  # type: ignore[attr-defined]


class RemoteModel:
    """A :class:`~.base.TextModel` on the driver whose calls run as shards on ``executor``."""

    def __init__(self, recipe: ModelRecipe, executor: Executor, *, identity: str, shard_size: int,
                 shards_per_call: int = 4, slots: Slots | None = None) -> None:
        if shard_size < 1:
            raise InputError(f"shard_size must be >= 1, got {shard_size}")
        self.recipe = recipe
        self.executor = executor
        self.spec = recipe.spec
        self.cache_identity = identity
        self.shard_size = shard_size
        self.slots = slots
        # the cache commits one call's answers at a time: a call spans several shards
        self.batch_size = shard_size * shards_per_call

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r}, executor={type(self.executor).__name__})"

    def _shards(self, items: Sequence[str]) -> list[list[str]]:
        items = list(items)
        return [items[i:i + self.shard_size] for i in range(0, len(items), self.shard_size)]

    def _gather(self, shards: list[list[str]], runs: list[ItemResult[Any]], failed: Any) -> list[Any]:
        if runs and all(not r.ok for r in runs):
            raise ExecutionError(f"{self.spec}: every shard failed on the workers: {runs[0].error}")
        out: list[Any] = []
        for shard, run in zip(shards, runs):
            if run.ok and run.value is not None and len(run.value) == len(shard):
                out.extend(run.value)
            else:
                why = run.error or f"{len(run.value or [])} answers for {len(shard)} prompts"
                out.extend(failed(why) for _ in shard)
        return out

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Completion]:
        shards = self._shards(prompts)
        runs = self.executor.map(lambda s: _generate_shard(self.recipe, params, self.slots, s), shards,
                                 desc=f"{self.spec}: {len(prompts)} prompts")
        return self._gather(shards, runs, lambda why: Completion("", error=f"worker failed: {why}"))


class RemoteLogprobModel(RemoteModel):
    """A :class:`RemoteModel` of a local model: ``token_scores`` and ``generate_samples`` too."""

    def generate_samples(self, prompts: Sequence[str], params: GenerationParams, n: int) -> list[list[Completion]]:
        shards = self._shards(prompts)
        runs = self.executor.map(lambda s: _samples_shard(self.recipe, params, n, s), shards,
                                 desc=f"{self.spec}: {len(prompts)} prompts x {n}")
        return self._gather(shards, runs, lambda why: [Completion("", error=f"worker failed: {why}")] * n)

    def token_scores(self, texts: Sequence[str]) -> list[TokenScores]:
        shards = self._shards(texts)
        runs = self.executor.map(lambda s: _scores_shard(self.recipe, s), shards,
                                 desc=f"{self.spec}: scoring {len(texts)} texts")
        bad = next((r for r in runs if not r.ok), None)
        if bad is not None:   # no "failed" token scores exist: the caller records the batch as failed
            raise ExecutionError(f"{self.spec}: token scoring failed on a worker: {bad.error}")
        return [s for r in runs for s in (r.value or [])]


def remote_model(recipe: ModelRecipe, executor: Executor, *, identity: str, local: bool,
                 max_concurrency: int, batch_size: int) -> RemoteModel:
    """The remote form of a model: a local (``hf/``) model gets shards of ``batch_size`` texts and
    ``token_scores``; an API model gets shards of ``max_concurrency`` prompts and one shared limit
    of ``max_concurrency`` requests in flight (a Ray actor on a Ray executor)."""
    if local:
        return RemoteLogprobModel(recipe, executor, identity=identity, shard_size=batch_size, shards_per_call=8)
    if isinstance(executor, RayExecutor):
        executor.connect()   # the slots' actor lives on the cluster
        slots: Slots = RaySlots(max_concurrency)
    else:
        slots = LocalSlots(max_concurrency)
    return RemoteModel(recipe, executor, identity=identity, shard_size=max_concurrency, slots=slots)
