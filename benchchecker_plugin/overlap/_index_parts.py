"""The index engine in partitions: one BM25 index per contiguous run of corpus shards, built and
queried here one after another or as Ray tasks, each item's top-k merged across partitions.

Layout: ``DIR/part-000``, ``DIR/part-001``, ... are ordinary indexes (:mod:`._index`, each with its
own manifest over its shards) and :data:`PARTS` (written last) lists them with the shard ranges
and document counts. A document's corpus order is its partition's offset plus its order there,
so the union of retrieved documents is read in the same corpus order as from one index.

Merging: each partition answers an item's top-k; the item's top-k is the best k of those by BM25
score, ties by corpus order. BM25's statistics (document frequencies, average length) are each
partition's own, as in Elasticsearch's default query-then-fetch: where a query term is much rarer
in one partition than in the corpus, its documents score higher than one index would rank them.
With one partition this is :mod:`._index` exactly; the n-gram metrics read the merged top-k's
union as they read one index's. The local and the Ray runs give the same flags (same partitions,
same per-partition answers, same merge).

On a cluster of several machines ``DIR`` must be a folder every worker reaches (a shared
filesystem); a partition whose task dies past its retries has its shards recorded as failed.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..execution import Executor, LocalExecutor
from ._corpus import Shard
from ._index import CorpusIndex, Hit, IndexManifest, SearchIndex, build_index, read_manifest, write_manifest
from ._items import OverlapItem

PARTS = "benchchecker-index-parts.json"
PARTS_FORMAT = "benchchecker.overlap.index-parts/1"


def partition(shards: Sequence[Shard], parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ``[start, stop)`` runs of ``shards``, balanced by size (at most one
    partition per shard; every partition non-empty)."""
    if parts < 1:
        raise InputError(f"--index-partitions must be >= 1, got {parts}")
    if not shards:
        raise InputError("the index needs at least one corpus shard")
    parts = min(parts, len(shards))
    sizes = [max(int(s.size), 1) for s in shards]
    total = sum(sizes)
    cuts = [0]
    acc = 0
    for i, size in enumerate(sizes[:-1]):
        acc += size
        to_open = parts - len(cuts)          # partitions still to start after this one
        if to_open and (len(shards) - i - 1 == to_open or acc * parts >= len(cuts) * total):
            cuts.append(i + 1)
    cuts.append(len(shards))
    return list(zip(cuts[:-1], cuts[1:]))


@dataclass(frozen=True)
class PartsManifest:
    """What a partitioned index holds: per partition its folder, shard range, documents and
    passages."""

    parts: tuple[tuple[str, int, int, int, int], ...]   # (folder, shard start, stop, documents, passages)
    failed: tuple[tuple[str, str], ...] = ()          # (shard, why) of partitions lost on a cluster
    seconds: float = 0.0
    format: str = PARTS_FORMAT

    def write(self, path: Path) -> None:
        write_manifest(self, path)

    @classmethod
    def read(cls, index_dir: Path) -> PartsManifest:
        return read_manifest(index_dir, PARTS, PARTS_FORMAT, lambda raw: cls(
            tuple((str(d), int(a), int(b), int(n), int(p)) for d, a, b, n, p in raw["parts"]),
            tuple((str(s), str(w)) for s, w in raw.get("failed", ())), float(raw["seconds"])))


def _spread(fn: Callable[..., Any]) -> Callable[[tuple[Any, ...]], Any]:
    return functools.partial(_call, fn)


def _call(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    return fn(*args)


def _build_part(shards: Sequence[Shard], folder: str, text_field: str, id_field: str) -> IndexManifest:
    return build_index(shards, folder, text_field=text_field, id_field=id_field)


def build_parted_index(shards: Sequence[Shard], index_dir: str | Path, parts: int, *,
                       text_field: str = "text", id_field: str = "id",
                       executor: Executor | None = None) -> PartsManifest:
    """Index ``shards`` into ``parts`` partitions under the new or empty ``index_dir``."""
    path = Path(index_dir)
    if path.is_dir() and any(path.iterdir()):
        raise InputError(f"--index {path}: a folder that is not empty and holds no index; give a new "
                         "or empty folder")
    path.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    ranges = partition(shards, parts)
    folders = [f"part-{p:03d}" for p in range(len(ranges))]
    got = (executor or LocalExecutor()).map(
        _spread(_build_part), [(list(shards[a:b]), str(path / f), text_field, id_field)
                               for f, (a, b) in zip(folders, ranges)], desc=None, errors="raise")
    rows, failed = [], []
    for f, (a, b), res in zip(folders, ranges, got):
        if not res.ok or res.value is None:   # its task was lost on a cluster
            failed += [(s.name, f"{s.name}: partition {f} lost on the Ray cluster ({res.error})")
                       for s in shards[a:b]]
            rows.append((f, a, b, 0, 0))
        else:
            rows.append((f, a, b, res.value.documents, res.value.passages))
    manifest = PartsManifest(tuple(rows), tuple(failed), round(time.perf_counter() - start, 3))
    manifest.write(path / PARTS)
    return manifest


def _search_part(folder: str, shards: Sequence[Shard], texts: Sequence[str], k: int, text_field: str,
                 id_field: str) -> list[list[Hit]]:
    index = CorpusIndex.open(folder, shards, text_field=text_field, id_field=id_field)
    return index.search([OverlapItem("", str(i), t) for i, t in enumerate(texts)], k, threads=1)


def _offsets(manifest: PartsManifest, column: int) -> list[int]:
    return [0, *itertools.accumulate(int(row[column]) for row in manifest.parts)]


class PartedIndex:
    """An opened partitioned index: :meth:`search` and :meth:`stats` as :class:`._index.CorpusIndex`."""

    def __init__(self, path: Path, manifest: PartsManifest, shards: Sequence[Shard], text_field: str,
                 id_field: str, executor: Executor) -> None:
        self.path, self.manifest, self.shards = path, manifest, list(shards)
        self.text_field, self.id_field, self.executor = text_field, id_field, executor
        failed = {s for s, _ in manifest.failed}   # shards of partitions lost on a cluster
        self.parts: list[CorpusIndex | None] = []
        ords, docs = _offsets(manifest, 4), _offsets(manifest, 3)
        for p, (f, a, b, _, _) in enumerate(manifest.parts):
            if any(s.name in failed for s in self.shards[a:b]):
                self.parts.append(None)
                continue
            one = CorpusIndex.open(path / f, self.shards[a:b], text_field=text_field, id_field=id_field)
            one.part, one.ord_base, one.doc_base = p, ords[p], docs[p]
            self.parts.append(one)

    @classmethod
    def open(cls, index_dir: str | Path, shards: Sequence[Shard], *, text_field: str = "text",
             id_field: str = "id", executor: Executor | None = None) -> PartedIndex:
        path = Path(index_dir)
        manifest = PartsManifest.read(path)
        stop = manifest.parts[-1][2] if manifest.parts else 0
        if stop != len(shards):
            raise InputError(f"--index {path}: built from {stop} corpus shard(s), this --corpus gives "
                             f"{len(shards)}; rebuild it into a new folder")
        return cls(path, manifest, shards, text_field, id_field, executor or LocalExecutor())

    def search(self, items: Sequence[OverlapItem], k: int = 10, *, threads: int | None = None) -> list[list[Hit]]:
        """Each item's top ``k`` documents over every partition, best first (see the module)."""
        if k < 1:
            raise InputError(f"--top-k must be >= 1, got {k}")
        texts = [i.text for i in items]
        live = [p for p, part in enumerate(self.parts) if part is not None]
        answers = self.executor.map(_spread(_search_part), [
            (str(self.path / f), self.shards[a:b], texts, k, self.text_field, self.id_field)
            for f, a, b, _, _ in (self.manifest.parts[p] for p in live)], desc=None, errors="raise")
        ords, docs = _offsets(self.manifest, 4), _offsets(self.manifest, 3)
        merged: list[list[Hit]] = [[] for _ in items]
        for p, res in zip(live, answers):
            if not res.ok or res.value is None:
                raise InputError(f"--index {self.path}: searching partition {self.manifest.parts[p][0]} "
                                 f"failed on the cluster ({res.error})")
            for row, hits in zip(merged, res.value):
                row.extend(Hit(h.score, h.ord + ords[p], h.shard, h.doc, h.doc_no + docs[p], h.start, p,
                               h.address) for h in hits)
        return [sorted(row, key=lambda h: (-h.score, h.ord))[:k] for row in merged]

    def text(self, hit: Hit) -> str:
        part = self.parts[hit.part]
        assert part is not None, "a hit of a lost partition"
        return part.text(hit)

    def failed(self) -> dict[str, str]:
        out = dict(self.manifest.failed)
        for index in self.parts:
            if index is not None:
                out.update(index.failed())
        return out

    @property
    def documents(self) -> int:
        return sum(row[3] for row in self.manifest.parts)

    @property
    def chars(self) -> int:
        return sum(index.chars for index in self.parts if index is not None)


def open_index(index_dir: str | Path, shards: Sequence[Shard], *, text_field: str = "text",
               id_field: str = "id", executor: Executor | None = None) -> SearchIndex:
    """The index in ``index_dir``: partitioned (:data:`PARTS`) or one (:mod:`._index`)."""
    if (Path(index_dir) / PARTS).is_file():
        return PartedIndex.open(index_dir, shards, text_field=text_field, id_field=id_field, executor=executor)
    return CorpusIndex.open(index_dir, shards, text_field=text_field, id_field=id_field)
