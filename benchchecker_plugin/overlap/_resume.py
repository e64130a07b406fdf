"""A scan that resumes: each finished shard's partial kept in a state folder, reused on the rerun.

``benchchecker overlap ... --state DIR`` writes the partial of every shard that finished
(:mod:`._partial`) to ``DIR/<key>.npz`` atomically (:mod:`..atomic`: a killed run leaves whole
files or none). The key digests the shard's name as given, its size, modification time (ns) and a
sample of its content (:func:`shard_identity`), the text and id fields, and the benchmark table's
fingerprint: a changed shard, another benchmark or other fields is scanned again, never confused.
A rerun loads the finished shards and scans the others only; the partials are merged in shard
order, so the flags equal one uninterrupted scan's.

Not kept: a shard that failed (it is read again next time) and ``hf:`` datasets (no size or time
to key on). A state file that cannot be read is scanned again, with a warning; a state folder on a
full disk is one line naming it (the shards already kept stay whole).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
import warnings
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from ..atomic import atomic_path
from ..errors import BenchcheckerError, InputError
from ._corpus import Shard
from ._partial import ScanPartial, combine_all, from_payload, to_payload
from ._scan import scan_shard
from ._table import BenchmarkTable, table_fingerprint

#: runs pending shards, yielding ``(index into the list, partial)`` as each finishes
Runner = Callable[[BenchmarkTable, Sequence[Shard]], Iterable[tuple[int, ScanPartial]]]
SAMPLE = 1 << 16


def shard_identity(path: str) -> list[object] | None:
    """Size, modification time (ns) and a digest of the first and last 64 KiB of a shard file:
    an edit in place that keeps the size (and even the time) still changes it."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):   # a FIFO or a device is never opened here
            return None
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            h.update(fh.read(SAMPLE))
            if st.st_size > SAMPLE:
                fh.seek(max(SAMPLE, st.st_size - SAMPLE))
                h.update(fh.read(SAMPLE))
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, h.hexdigest()]


def save_partial(path: Path, partial: ScanPartial, key: str) -> None:
    """Write ``partial`` to ``path`` (``.npz``) atomically, under ``key``."""
    arrays, meta = to_payload(partial)
    meta["key"] = key
    try:
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as fh:
                arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), np.uint8)
                np.savez(fh, **arrays)  # type: ignore[arg-type]
    except (OSError, InputError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else \
            str(exc).rsplit("(", 1)[-1].rstrip(")") if isinstance(exc, InputError) else str(exc)
        raise InputError(f"--state {path.parent}: cannot keep the scan of {partial.shards[0]} "
                         f"({why}); the shards kept before are whole") from None


def load_partial(path: Path, key: str) -> ScanPartial:
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
        self.folder = Path(folder)
        self.fingerprint = table_fingerprint(table)
        self.fields = (text_field, id_field)

    def key(self, shard: Shard) -> str | None:
        """The shard's key, or ``None`` where it is never kept (see the module)."""
        if shard.kind == "hf":
            return None
        ident = shard_identity(shard.name)
        if ident is None:
            return None
        spec = ["overlap-state/2", shard.name, *ident, *self.fields, self.fingerprint]
        return hashlib.sha256(json.dumps(spec).encode("utf-8")).hexdigest()

    def path(self, key: str) -> Path:
        return self.folder / f"{key[:40]}.npz"

    def load(self, shard: Shard) -> ScanPartial | None:
        """The finished partial of ``shard``, if kept and still current."""
        key = self.key(shard)
        if key is None or not self.path(key).is_file():
            return None
        try:
            return load_partial(self.path(key), key)
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
            warnings.warn(f"{self.path(key)}: unreadable state of {shard.name} ({exc}); scanning it "
                          "again", RuntimeWarning, stacklevel=2)
            return None

    def save(self, shard: Shard, partial: ScanPartial) -> bool:
        """Keep ``partial`` if the shard finished (did not fail) and can be keyed."""
        key = self.key(shard)
        if key is None or partial.failed:
            return False
        save_partial(self.path(key), partial, key)
        return True


def local_runner(text_field: str, id_field: str,
                 on_bytes: Callable[[int], None] | None = None) -> Runner:
    """Shards one after another in this process (one scanner for all)."""
    def run(table: BenchmarkTable, shards: Sequence[Shard]) -> Iterator[tuple[int, ScanPartial]]:
        for i, shard in enumerate(shards):
            yield i, scan_shard(table, shard, text_field=text_field, id_field=id_field, on_bytes=on_bytes)
    return run


def scan_shards(table: BenchmarkTable, shards: Sequence[Shard], *, text_field: str = "text",
                id_field: str = "id", state: str | os.PathLike[str] | None = None,
                runner: Runner | None = None,
                on_resumed: Callable[[ScanPartial], None] | None = None,
                on_bytes: Callable[[int], None] | None = None) -> tuple[ScanPartial, list[ScanPartial]]:
    """Scan ``shards`` for ``table`` shard by shard through ``runner`` (default: this process),
    skipping those finished in ``state`` (each handed to ``on_resumed``) and keeping each newly
    finished one there. Returns the combined partial (``seconds``: this run's wall time) and the
    partials taken from the state."""
    start = time.perf_counter()
    keeper = ScanState(state, table, text_field=text_field, id_field=id_field) if state else None
    parts: list[ScanPartial | None] = [keeper.load(s) if keeper else None for s in shards]
    resumed = [p for p in parts if p is not None]
    if on_resumed is not None:
        for p in resumed:
            on_resumed(p)
    todo = [i for i, p in enumerate(parts) if p is None]
    run = runner or local_runner(text_field, id_field, on_bytes)
    for j, partial in run(table, [shards[i] for i in todo]):
        parts[todo[j]] = partial
        if keeper is not None:
            keeper.save(shards[todo[j]], partial)
    missing = [shards[i].name for i, p in enumerate(parts) if p is None]
    if missing:
        raise BenchcheckerError(f"the runner left {len(missing)} shard(s) unscanned: {missing[0]}, ...")
    out = combine_all([p for p in parts if p is not None], len(table.items), table.sizes)
    return ScanPartial(out.shards, out.counts, out.kind, out.sim, out.matched, out.options, out.docs,
                       out.evidence, out.quoted, out.quotes, out.documents, out.bytes,
                       time.perf_counter() - start, out.failed), resumed
