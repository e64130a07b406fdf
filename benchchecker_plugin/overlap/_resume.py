"""The scan shard by shard on an executor, resumable: each finished shard's partial kept in a state
folder and reused on the rerun.

``benchchecker overlap ... --state DIR`` keeps the partial of every shard that finished
(:mod:`._partial`) as ``DIR/<key>.npz`` through :mod:`benchchecker_plugin.execution`'s state store
(atomic: a killed run leaves whole files or none). The key digests the shard's name as given, its
size, modification time (ns) and a sample of its content
(:func:`~benchchecker_plugin.execution.file_identity`), the text and id fields, and the benchmark
table's fingerprint: a changed shard, another benchmark or other fields is scanned again, never
confused. A rerun loads the finished shards and scans the others only; the partials are merged in
shard order, so the flags equal one uninterrupted scan's.

Not kept: a shard that failed (it is read again next time) and ``hf:`` datasets (no size or time
to key on). A state file that cannot be read is scanned again, with a warning; a state folder on a
full disk is one line naming it (the shards already kept stay whole).

The executor (:func:`~benchchecker_plugin.execution.make_executor`): in this process one shard
after another, or one Ray task per shard. On Ray the table is shared once (its items as bare
placeholders: a worker's scanner reads the arrays only) and a worker keeps its scanner between the
shards it is given; a shard whose worker died past its retries is recorded as failed (never
clean). Plain tasks rather than Ray Data: the unit of work, of failure and of resume is the shard
(a file our own streaming readers read, failures named per shard).
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..errors import BenchcheckerError
from ..execution import (
    Executor,
    Keeper,
    LocalExecutor,
    Shared,
    StateStore,
    digest,
    file_identity,
    run_resumable,
)
from ._corpus import Shard
from ._partial import ScanPartial, combine_all, from_payload, to_payload
from ._scan import scan_shard
from ._table import BenchmarkTable, table_fingerprint


def _write(path: Path, key: str, partial: ScanPartial) -> None:
    arrays, meta = to_payload(partial)
    meta["key"] = key
    with open(path, "wb") as fh:
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), np.uint8)
        np.savez(fh, **arrays)  # type: ignore[arg-type]


def _read(path: Path, key: str) -> ScanPartial:
    """The partial saved at ``path`` under ``key`` (``ValueError`` if it is another one's)."""
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(z["meta"].tobytes().decode("utf-8"))
        if meta.get("key") != key:
            raise ValueError(f"{path}: holds another shard's partial")
        return from_payload({k: z[k] for k in z.files if k != "meta"}, meta)


class ScanState:
    """The state folder of one benchmark table scanned with given text and id fields."""

    def __init__(self, folder: str | os.PathLike[str], table: BenchmarkTable, *, text_field: str = "text",
                 id_field: str = "id") -> None:
        self.store = StateStore(folder, suffix=".npz")
        self.fingerprint = table_fingerprint(table)
        self.fields = (text_field, id_field)
        self.keeper: Keeper[Shard, ScanPartial] = Keeper(
            self.store, self.key, _write, _read, keep=lambda p: not p.failed, name=lambda s: s.name,
            work="the scan of", again="scanning it again", kept="the shards kept before are whole")

    def key(self, shard: Shard) -> str | None:
        """The shard's key, or ``None`` where it is never kept (see the module)."""
        if shard.kind == "hf":
            return None
        ident = file_identity(shard.name)
        if ident is None:
            return None
        return digest("overlap-state/2", shard.name, *ident, *self.fields, self.fingerprint)

    def load(self, shard: Shard) -> ScanPartial | None:
        """The finished partial of ``shard``, if kept and still current."""
        return self.keeper.load(shard, self.key(shard))


def _scan_task(table: Shared[BenchmarkTable], text_field: str, id_field: str,
               on_bytes: Callable[[int], None] | None, shard: Shard) -> ScanPartial:
    """One shard, on whichever worker: the table from this process's shared copy."""
    return scan_shard(table.get(), shard, text_field=text_field, id_field=id_field, on_bytes=on_bytes)


def _lost(table: BenchmarkTable, shard: Shard, why: str) -> ScanPartial:
    empty = ScanPartial.empty(len(table.items), table.sizes)
    return replace(empty, shards=(shard.name,), failed=((shard.name, f"{shard.name}: lost on the Ray "
                                                                      f"cluster ({why})"),))


def scan_shards(table: BenchmarkTable, shards: Sequence[Shard], *, text_field: str = "text",
                id_field: str = "id", state: str | os.PathLike[str] | None = None,
                executor: Executor | None = None,
                on_resumed: Callable[[ScanPartial], None] | None = None,
                on_bytes: Callable[[int], None] | None = None) -> tuple[ScanPartial, list[ScanPartial]]:
    """Scan ``shards`` for ``table`` shard by shard on ``executor`` (default: this process),
    skipping those finished in ``state`` (each handed to ``on_resumed``) and keeping each newly
    finished one there. Returns the combined partial (``seconds``: this run's wall time) and the
    partials taken from the state."""
    start = time.perf_counter()
    executor = executor or LocalExecutor()
    here = isinstance(executor, LocalExecutor)
    # elsewhere: broadcast once, with the items as bare placeholders (pickling 14k item records
    # took 0.19 s of driver time before any task ran)
    shared = executor.share(table if here else replace(table, items=(None,) * len(table.items)))  # type: ignore[arg-type]
    fn = functools.partial(_scan_task, shared, text_field, id_field, on_bytes if here else None)
    keeper = ScanState(state, table, text_field=text_field, id_field=id_field).keeper if state else None
    parts: list[ScanPartial | None] = [None] * len(shards)
    resumed: list[ScanPartial] = []
    for res, taken in run_resumable(executor, fn, shards, keeper, desc=None, errors="raise"):
        shard = shards[res.index]
        partial = res.value if res.ok and res.value is not None else _lost(table, shard, res.error or "")
        if taken:
            resumed.append(partial)
            if on_resumed is not None:
                on_resumed(partial)
        elif not here and on_bytes is not None:
            on_bytes(shard.size or partial.bytes)
        parts[res.index] = partial
    missing = [shards[i].name for i, p in enumerate(parts) if p is None]
    if missing:
        raise BenchcheckerError(f"the executor left {len(missing)} shard(s) unscanned: {missing[0]}, ...")
    out = combine_all([p for p in parts if p is not None], len(table.items), table.sizes)
    return replace(out, seconds=time.perf_counter() - start), resumed
