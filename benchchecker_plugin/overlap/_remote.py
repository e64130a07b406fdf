"""The overlap scan on a Ray cluster: one Ray task per corpus shard, partials merged in the driver.

The benchmark table is put in the object store once (``ray.put``); each task scans one shard
(:func:`._scan.scan_shard`) and returns its partial, which the driver keeps in ``--state`` as
it arrives and merges in shard order (:mod:`._resume`): the flags equal the local run's byte for
byte. A worker process keeps its scanner (hash table and gate) between the shards it is given,
so the table is unpacked and the scanner built once per worker, not once per shard.

Plain Ray tasks rather than Ray Data: the unit of work, of failure and of resume is the shard
(a file our own streaming readers read, failures named per shard); Ray Data would parse records
into blocks with its own readers and reduce per block, losing both the per-shard failure record
and the per-shard resume. A worker that dies is retried (``--ray-retries``), then its shard is
recorded as failed (never clean); a shard that cannot be read is recorded as locally.

``import ray`` happens only when a run uses this runner.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from ._corpus import Shard
from ._partial import ScanPartial
from ._scan import scan_shard
from ._table import BenchmarkTable, table_fingerprint

#: this worker's table, by fingerprint (unpacked once per worker, not once per shard)
_TABLES: dict[str, BenchmarkTable] = {}


def _scan_task(fingerprint: str, boxed: list[Any], shard: Shard, text_field: str,
               id_field: str) -> ScanPartial:
    """One Ray task: the table from this worker's cache, else from the object store (boxed, so Ray
    does not fetch it for a worker that already has it)."""
    table = _TABLES.get(fingerprint)
    if table is None:
        import ray

        table = ray.get(boxed[0])
        _TABLES.clear()
        _TABLES[fingerprint] = table
    return scan_shard(table, shard, text_field=text_field, id_field=id_field)


def _lost(table: BenchmarkTable, shard: Shard, why: str) -> ScanPartial:
    empty = ScanPartial.empty(len(table.items), table.sizes)
    return replace(empty, shards=(shard.name,), failed=((shard.name, why),))


def ray_partials(table: BenchmarkTable, shards: Sequence[Shard], *, text_field: str = "text",
                 id_field: str = "id", address: str | None = None, retries: int = 3,
                 on_bytes: Callable[[int], None] | None = None) -> Iterator[tuple[int, ScanPartial]]:
    """``(index into shards, partial)`` of every shard, as the cluster finishes them."""
    if not shards:
        return
    from ..models import RayExecutor

    executor = RayExecutor(address, max_retries=retries)
    executor.connect()
    ray = executor.ray
    task = ray.remote(_scan_task).options(num_cpus=1, max_retries=retries, retry_exceptions=False)
    fingerprint = table_fingerprint(table)
    # broadcast once, with the items as bare placeholders: a worker's scanner reads the arrays
    # only, and pickling 14k item records took 0.19 s of driver time before any task ran
    ref = ray.put(replace(table, items=(None,) * len(table.items)))  # type: ignore[arg-type]
    refs = [task.remote(fingerprint, [ref], s, text_field, id_field) for s in shards]
    where = {r: i for i, r in enumerate(refs)}
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for r in done:
            i = where[r]
            try:
                partial = ray.get(r)
            except ray.exceptions.RayError as exc:   # the worker died past its retries, or a bug
                text = str(exc).strip().splitlines()
                partial = _lost(table, shards[i], f"{shards[i].name}: lost on the Ray cluster "
                                           f"({type(exc).__name__}: {text[0] if text else ''})")
            if on_bytes is not None:
                on_bytes(shards[i].size or partial.bytes)
            yield i, partial


def ray_runner(address: str | None = None, retries: int = 3, *, text_field: str = "text",
               id_field: str = "id", on_bytes: Callable[[int], None] | None = None
               ) -> Callable[[BenchmarkTable, Sequence[Shard]], Iterator[tuple[int, ScanPartial]]]:
    """A :data:`._resume.Runner` on the cluster at ``address`` (``--ray-address``; ``None``: start or
    join as :class:`~..models.ray_executor.RayExecutor` does)."""
    def run(table: BenchmarkTable, shards: Sequence[Shard]) -> Iterator[tuple[int, ScanPartial]]:
        return ray_partials(table, shards, text_field=text_field, id_field=id_field,
                            address=address, retries=retries, on_bytes=on_bytes)
    return run
