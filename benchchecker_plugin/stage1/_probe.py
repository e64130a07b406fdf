"""Probing: ask the model to continue each query and count exact reproductions of the target.

Sampling is at temperature 1.0 by default (a memorised continuation survives sampling; a guessed
one rarely does), ``n_samples`` samples per query, each sample a separate seed so every request is
its own cache entry (re-running a probe with a cached model makes no model calls). Prompts are sent,
sorted by length, in batches of ``batch_size`` through the executor. A model with
``generate_samples`` (local models) gets all ``n_samples`` of a batch in one call and reads each
prompt once; others get one call per seed. Sample ``s`` is the request with seed ``seed + s`` either
way (the same cache entry). A failed batch or item is recorded as an error for the queries it
concerns and never counted as a hit or a miss.

A query is a *hit* when at least half of its successful samples reproduce the target
(:func:`~.queries.is_hit`); a query whose samples all failed is left out of the test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..errors import InputError
from ..execution import Executor, LocalExecutor
from ..models import Completion, GenerationParams, TextModel
from ._queries import Query, is_hit


@dataclass(frozen=True)
class ProbeResult:
    """Samples of one query. ``hits`` counts reproducing samples, ``errors`` failed ones."""

    query: Query
    samples: tuple[str, ...]
    hits: int
    errors: int

    @property
    def ok(self) -> int:
        return len(self.samples)

    @property
    def failed(self) -> bool:
        return self.ok == 0

    @property
    def hit(self) -> bool:
        return self.ok > 0 and 2 * self.hits >= self.ok

    @property
    def hit_rate(self) -> float:
        return self.hits / self.ok if self.ok else float("nan")


def probe(model: TextModel, queries: Sequence[Query], *, n_samples: int = 5,
          temperature: float = 1.0, max_tokens: int = 16, batch_size: int = 32, seed: int = 0,
          executor: Executor | None = None) -> list[ProbeResult]:
    """Sample ``n_samples`` continuations of every query from ``model``; see module docstring."""
    if n_samples < 1:
        raise InputError(f"n_samples must be >= 1, got {n_samples}")
    if batch_size < 1:
        raise InputError(f"batch_size must be >= 1, got {batch_size}")
    # Batches hold prompts of similar length (less padding); results are mapped back to order.
    order = sorted(range(len(queries)), key=lambda k: len(queries[k].query))
    prompts = [queries[k].query for k in order]
    base = GenerationParams(max_tokens=max_tokens, temperature=temperature, seed=seed)
    sampler = getattr(model, "generate_samples", None)
    # A model with generate_samples reads each prompt once for all its samples (job s = None);
    # otherwise the samples of a batch are consecutive calls with the same prompts (job s = 0..n-1).
    seeds: list[int | None] = [None] if callable(sampler) else list(range(n_samples))
    jobs = [(s, i) for i in range(0, len(prompts), batch_size) for s in seeds]

    def run(job: tuple[int | None, int]) -> list[list[Completion]]:
        s, i = job
        chunk = prompts[i:i + batch_size]
        if s is None:
            out = sampler(chunk, base, n_samples)  # type: ignore[misc]
        else:
            out = [[c] for c in model.generate(chunk, replace(base, seed=seed + s))]
        if len(out) != len(chunk):
            raise RuntimeError(f"model returned {len(out)} completions for {len(chunk)} prompts")
        return out

    ex = executor or LocalExecutor()
    results = ex.map(run, jobs, desc=f"probing {len(queries)} queries x {n_samples}")
    samples: list[list[str]] = [[] for _ in queries]
    errors = [0] * len(queries)
    for (s, i), res in zip(jobs, results):
        n = len(prompts[i:i + batch_size])
        if not res.ok:
            for k in range(i, i + n):
                errors[order[k]] += n_samples if s is None else 1
            continue
        for k, comps in enumerate(res.value or []):
            for comp in comps:
                if comp.ok:
                    samples[order[i + k]].append(comp.text)
                else:
                    errors[order[i + k]] += 1
    return [ProbeResult(q, tuple(smp), sum(is_hit(t, q.target) for t in smp), err)
            for q, smp, err in zip(queries, samples, errors)]
