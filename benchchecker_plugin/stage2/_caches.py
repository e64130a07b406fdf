"""What Stage II keeps per repository while it reads the repository's commits, under one lock
discipline: every shared cache is a :class:`OnceMap`, which makes each value once, whichever
worker thread asks first (the others asking for that key wait for it; other keys do not wait).

- :class:`BlobCache`: parsed files, identifier sets and subtree indexes by blob id (the same
  bytes parse the same at any commit), and the identifier index per language (:class:`_Words`),
  moved from commit to commit by the files that changed;
- :class:`SharedIndex`: a :class:`~.localize.SnapshotIndex` reading through a :class:`BlobCache`;
- :class:`MemoSimilarity`: each similarity matrix computed once per (lines, candidate lines).

Every one of these caches a pure function of its key, so sharing cannot change a verdict.
"""

from __future__ import annotations

import sys
import threading
from bisect import bisect_left, insort
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Generic, TypeVar

import numpy as np

from ..errors import DataError
from ..repos import Snapshot
from ._localize import IDENTIFIER, SnapshotIndex
from ._normalize import ParsedSource, Scope, parse_source
from ._similarity import Similarity
from ._subtree import SubtreeIndex

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _Cell(Generic[V]):
    def __init__(self) -> None:
        self.done = threading.Event()
        self.failed = False
        self.value: V | None = None


class OnceMap(Generic[K, V]):
    """A cache whose value for a key is made once: the first thread to ask makes it (outside the
    map's lock), a thread asking for the same key meanwhile waits for that value. A ``make``
    that raises stores nothing: the next asker (a waiting one included) makes it again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cells: dict[K, _Cell[V]] = {}

    def get(self, key: K, make: Callable[[], V]) -> V:
        while True:
            with self._lock:
                cell = self._cells.get(key)
                mine = cell is None
                if cell is None:
                    cell = self._cells[key] = _Cell()
            if mine:
                try:
                    cell.value = make()
                except BaseException:
                    with self._lock:
                        del self._cells[key]
                    cell.failed = True
                    raise
                finally:
                    cell.done.set()
                return cell.value
            cell.done.wait()
            if not cell.failed:
                return cell.value  # type: ignore[return-value]  # set before done

    def __getitem__(self, key: K) -> V:
        """A value already made (``KeyError`` otherwise)."""
        cell = self._cells[key]
        if not cell.done.is_set() or cell.failed:
            raise KeyError(key)
        return cell.value  # type: ignore[return-value]

    def values(self) -> Iterator[V]:
        """The values made so far."""
        with self._lock:
            cells = list(self._cells.values())
        return (c.value for c in cells if c.done.is_set() and not c.failed)  # type: ignore[misc]

    def __len__(self) -> int:
        return sum(1 for _ in self.values())


class BlobCache:
    """One repository's parsed files, identifier sets and subtree indexes by blob id, and its
    identifier index per language (:class:`_Words`)."""

    def __init__(self) -> None:
        self.parsed: OnceMap[tuple[str, str | None], ParsedSource] = OnceMap()
        self.words: OnceMap[str, tuple[str, ...]] = OnceMap()
        self.subtrees: OnceMap[tuple[int, int], SubtreeIndex] = OnceMap()
        self.indexes: OnceMap[str | None, _Words] = OnceMap()

    def words_of(self, snapshot: Snapshot, path: str, blob: str) -> tuple[str, ...]:
        """The identifiers of ``path`` (blob ``blob``), as ``SnapshotIndex`` indexes them."""

        def make() -> tuple[str, ...]:
            try:
                text = snapshot.read(path)
            except DataError:
                text = ""  # a non-UTF-8 file cannot hold the code we look for
            return tuple(map(sys.intern, set(IDENTIFIER.findall(text))))

        return self.words.get(blob, make)

    def index_of(self, language: str | None) -> _Words:
        """The identifier index of ``language`` (one per repository and language)."""
        return self.indexes.get(language, lambda: _Words(language))


class _Words:
    """Identifier -> sorted paths of one language at one commit, moved to another commit by the
    files whose blob differs (the commits come in date order: each move is small)."""

    def __init__(self, language: str | None) -> None:
        self.language = language
        self.commit: str | None = None
        self.blobs: dict[str, str] = {}
        self.index: dict[str, list[str]] = {}
        self.lock = threading.Lock()  # worker threads of one commit ask at once

    def at(self, snapshot: Snapshot, cache: BlobCache) -> dict[str, list[str]]:
        with self.lock:
            if self.commit != snapshot.commit:
                self._move(snapshot, cache)
            return self.index

    def _move(self, snapshot: Snapshot, cache: BlobCache) -> None:
        try:
            new = {p: snapshot.blob(p) or f"{snapshot.commit}:{p}" for p in snapshot.files(self.language)}
            for path, blob in self.blobs.items():
                if new.get(path) != blob:
                    for w in cache.words[blob]:
                        paths = self.index[w]
                        del paths[bisect_left(paths, path)]
                        if not paths:
                            del self.index[w]
            for path, blob in new.items():
                if self.blobs.get(path) != blob:
                    for w in cache.words_of(snapshot, path, blob):
                        insort(self.index.setdefault(w, []), path)
        except BaseException:
            self.commit, self.blobs, self.index = None, {}, {}  # half moved: start afresh next time
            raise
        self.commit, self.blobs = snapshot.commit, new


class SharedIndex(SnapshotIndex):
    """A :class:`SnapshotIndex` whose parses and identifier sets come from a per-repository
    :class:`BlobCache` keyed by blob id (the same bytes parse the same at any commit)."""

    def __init__(self, snapshot: Snapshot, blobs: BlobCache, *, preprocess: bool, max_files: int) -> None:
        super().__init__(snapshot, preprocess=preprocess, max_files=max_files)
        self._blobs = blobs

    def parsed(self, path: str, language: str | None) -> ParsedSource | None:
        if path not in self._parsed:
            blob = self.snapshot.blob(path)
            hit = None if blob is None else self._blobs.parsed.get(
                (blob, language),
                lambda: parse_source(self.snapshot.read(path), language, preprocess=self.preprocess))
            self._parsed[path] = hit
        return self._parsed[path]

    def files_with(self, word: str, language: str | None) -> tuple[str, ...]:
        return tuple(self._blobs.index_of(language).at(self.snapshot, self._blobs).get(word, ()))

    def subtree(self, path: str, parsed: ParsedSource, scope: Scope) -> SubtreeIndex:
        # parsed files live in the cache: ids stay unique
        return self._blobs.subtrees.get((id(parsed), scope.node_id),
                                        lambda: SnapshotIndex.subtree(self, path, parsed, scope))


class MemoSimilarity:
    """A similarity that computes each (queries, candidates) matrix once (same name)."""

    def __init__(self, sim: Similarity) -> None:
        self.sim = sim
        self.name = sim.name
        self._memo: OnceMap[tuple[tuple[str, ...], tuple[str, ...]], np.ndarray] = OnceMap()

    def matrix(self, queries: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        key = (tuple(queries), tuple(candidates))
        return self._memo.get(key, lambda: np.asarray(self.sim.matrix(queries, candidates))).copy()
