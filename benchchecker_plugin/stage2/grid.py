"""Stage II for many models in one run: one flag per (instance, model), the work shared.

>>> flags = patch_presence_grid(load_instances("verified.jsonl"), "repos/",
...                             {"gpt-4-0613": "2021-09", "claude-2": "2023"})   # doctest: +SKIP

Flags come ordered by instance, then by model in the order of ``cutoffs``; each is the flag a
separate :func:`~.presence.patch_presence` run with that model's cutoff gives (timings aside).
The cost grows with the distinct snapshots, not with the models:

- models whose cutoffs resolve to the same commit of a repository share it: one snapshot, one
  :class:`~.localize.SnapshotIndex`, each instance computed once and its result copied;
- an instance's gold patch is parsed once (it depends on the base commit, not on the cutoff);
- a block located in its own file by name (``same-name``/``module``, which depend only on that
  file's content) is not located and aligned again at a commit where the file it was looked up
  in (followed through renames since the base commit) has the same path and blob id;
- a block located again at the very same location (file, scope, lines) as at another commit is
  not aligned again;
- across the commits of a repository, parsed files and identifier sets are kept per blob id, the
  identifier index moves from commit to commit by the files that changed, and each similarity
  matrix is computed once per (lines, candidate lines).

Every one of these is a cache of a pure function of what it is keyed by, so sharing cannot
change a verdict (``tests/stage2/test_grid.py`` checks the flags against per-model runs).
"""

from __future__ import annotations

import copy
import os
import sys
import threading
import time
from bisect import bisect_left, insort
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..cutoff import CutoffPeriod
from ..errors import BenchcheckerError, DataError, InputError, RepositoryError
from ..flags import ContaminationFlag
from ..instances.bug import BugInstance
from ..models.executor import Executor, ItemResult, LocalExecutor
from ..progress import OneBar, one_bar
from ..repos.snapshot import Snapshot, parse_cutoff
from ..testrun.outcome import VerifyOutcome
from .base_read import cached_sibling, read_base
from .decide import BlockResult, Category
from .localize import IDENTIFIER, Location, SnapshotIndex, localize
from .normalize import ParsedSource, Scope, parse_source
from .patch import PatchBlock
from .presence import PresenceConfig, judge_block, named, to_flag, verdict
from .similarity import Similarity
from .sources import adjust_for_dates, locate, snapshot_at
from .subtree import SubtreeIndex

__all__ = ["GridRun", "cutoff_when", "patch_presence_grid", "run_grid"]

_CONTENT_ONLY = frozenset({"same-name", "module"})  # locations that depend on one file's content


@dataclass(frozen=True)
class GridRun:
    """The flags of a grid run and what was shared: ``snapshots`` distinct (repository, commit)
    pairs, each indexed once; per (instance, distinct commit) and block: ``blocks_computed``
    located and aligned, ``blocks_reused`` taken whole from another commit where the block's file
    was the same blob, ``alignments_reused`` located again at the same location as at another
    commit, so not aligned again."""

    flags: tuple[ContaminationFlag, ...]
    models: int
    snapshots: int
    blocks_computed: int
    blocks_reused: int
    alignments_reused: int


class _BlobCache:
    """One repository's parsed files, identifier sets and subtree indexes by blob id, and its
    identifier index per language (:class:`_Words`)."""

    def __init__(self) -> None:
        self.parsed: dict[tuple[str, str | None], ParsedSource] = {}
        self.words: dict[str, tuple[str, ...]] = {}
        self.subtrees: dict[tuple[int, int], SubtreeIndex] = {}
        self.indexes: dict[str | None, _Words] = {}

    def words_of(self, snapshot: Snapshot, path: str, blob: str) -> tuple[str, ...]:
        """The identifiers of ``path`` (blob ``blob``), as ``SnapshotIndex`` indexes them."""
        words = self.words.get(blob)
        if words is None:
            try:
                text = snapshot.read(path)
            except DataError:
                text = ""  # a non-UTF-8 file cannot hold the code we look for
            words = self.words[blob] = tuple(map(sys.intern, set(IDENTIFIER.findall(text))))
        return words


class _Words:
    """Identifier -> sorted paths of one language at one commit, moved to another commit by the
    files whose blob differs (the commits come in date order: each move is small)."""

    def __init__(self, language: str | None) -> None:
        self.language = language
        self.commit: str | None = None
        self.blobs: dict[str, str] = {}
        self.index: dict[str, list[str]] = {}
        self.lock = threading.Lock()  # worker threads of one commit ask at once

    def at(self, snapshot: Snapshot, cache: _BlobCache) -> dict[str, list[str]]:
        with self.lock:
            if self.commit != snapshot.commit:
                self._move(snapshot, cache)
            return self.index

    def _move(self, snapshot: Snapshot, cache: _BlobCache) -> None:
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


class _SharedIndex(SnapshotIndex):
    """A :class:`SnapshotIndex` whose parses and identifier sets come from a per-repository
    cache keyed by blob id (the same bytes parse the same at any commit)."""

    def __init__(self, snapshot: Snapshot, blobs: _BlobCache, *, preprocess: bool, max_files: int) -> None:
        super().__init__(snapshot, preprocess=preprocess, max_files=max_files)
        self._blobs = blobs

    def parsed(self, path: str, language: str | None) -> ParsedSource | None:
        if path not in self._parsed:
            blob = self.snapshot.blob(path)
            hit = None if blob is None else self._blobs.parsed.get((blob, language))
            if blob is not None and hit is None:
                hit = parse_source(self.snapshot.read(path), language, preprocess=self.preprocess)
                self._blobs.parsed[(blob, language)] = hit
            self._parsed[path] = hit
        return self._parsed[path]

    def files_with(self, word: str, language: str | None) -> tuple[str, ...]:
        words = self._blobs.indexes.get(language)
        if words is None:
            words = self._blobs.indexes[language] = _Words(language)
        return tuple(words.at(self.snapshot, self._blobs).get(word, ()))

    def subtree(self, path: str, parsed: ParsedSource, scope: Scope) -> SubtreeIndex:
        key = (id(parsed), scope.node_id)  # parsed files live in the cache: ids stay unique
        if key not in self._blobs.subtrees:
            self._blobs.subtrees[key] = super().subtree(path, parsed, scope)
        return self._blobs.subtrees[key]


class _MemoSimilarity:
    """A similarity that computes each (queries, candidates) matrix once (same name)."""

    def __init__(self, sim: Similarity) -> None:
        self.sim = sim
        self.name = sim.name
        self._memo: dict[tuple[tuple[str, ...], tuple[str, ...]], np.ndarray] = {}

    def matrix(self, queries: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        key = (tuple(queries), tuple(candidates))
        out = self._memo.get(key)
        if out is None:
            out = self._memo[key] = np.asarray(self.sim.matrix(queries, candidates))
        return out.copy()


@dataclass
class _Prepared:
    """One instance, cutoff-independent: base snapshot, blocks, post-patch files, and the block
    results and test outcomes that other commits may reuse."""

    base: Snapshot
    blocks: tuple[PatchBlock, ...]
    posts: dict[str, ParsedSource]
    parse_s: float
    base_source: dict[str, Any]
    reusable: dict[tuple[int, str, str], BlockResult] = field(default_factory=dict)
    judged: dict[tuple[int, Location | None], BlockResult] = field(default_factory=dict)
    tested: dict[str, VerifyOutcome] = field(default_factory=dict)


def cutoff_when(model: str, cutoff: Any) -> datetime:
    try:
        return parse_cutoff(cutoff)
    except InputError as exc:
        raise InputError(f"model {model!r}: {exc}") from None


def _lookup(block: PatchBlock, snapshot: Snapshot, base_commit: str) -> tuple[str, str] | None:
    """The file localisation looks ``block`` up in at ``snapshot`` and its blob id (as
    :func:`~.localize.localize` follows it); ``None`` when it is not a file there."""
    origin = block.source_path or block.path
    path = snapshot.path_since(base_commit, block.source_path) if block.source_path else origin
    blob = snapshot.blob(path) if path else None
    return (path, blob) if path and blob else None


class _RepoGrid:
    """The commits of one repository and its instances, computed commit by commit."""

    def __init__(self, path: Path, config: PresenceConfig, sim: Similarity) -> None:
        self.path = path
        self.config = config
        self.sim = _MemoSimilarity(sim)
        self.blobs = _BlobCache()
        self.prepared: dict[int, _Prepared | Exception] = {}
        self.bases: dict[str, Snapshot] = {}
        self.anchor: Snapshot | None = None
        self.others: dict[str, tuple[Snapshot, SnapshotIndex]] = {}  # release snapshots for the lag rule

    def prepare(self, i: int, inst: BugInstance) -> _Prepared:
        got = self.prepared.get(i)
        if got is None:
            t0 = time.perf_counter()
            try:
                assert self.anchor is not None
                anchor = self.anchor
                read = named(inst, lambda: read_base(
                    inst, anchor, preprocess=self.config.preprocess,
                    sibling=cached_sibling(anchor, self.bases)))
                got = _Prepared(read.base, read.blocks, dict(read.posts),
                                round(time.perf_counter() - t0, 4), read.evidence)
            except Exception as exc:  # the same failure at every cutoff; re-raised, never dropped
                got = exc
            self.prepared[i] = got
        if isinstance(got, Exception):
            raise got
        return got

    def dated(self, i: int, inst: BugInstance, res: ItemResult, snap: Snapshot, when: datetime) -> ItemResult:
        """``res`` (the verdict at ``snap``) with the date rules of the cutoff ``when`` applied
        (:func:`~.sources.adjust_for_dates`), on its own copy of the evidence."""
        if not res.ok or res.value is None:
            return res
        category, score, evidence = res.value

        def category_at(other: Snapshot) -> tuple[Category, float]:
            if other.commit not in self.others:
                self.others[other.commit] = (other, _SharedIndex(other, self.blobs, preprocess=self.config.preprocess,
                                                                 max_files=self.config.max_files))
            got = self.at(i, inst, *self.others[other.commit])
            return got[0], got[1]

        try:
            value = adjust_for_dates(inst, category, score, copy.deepcopy(evidence), snap, when,
                                     lag_margin_days=self.config.lag_margin_days,
                                     merge_dates=self.config.merge_dates, category_at=category_at)
        except (BenchcheckerError, OSError) as exc:
            return ItemResult(res.index, None, f"instance {inst.instance_id!r}: {exc}")
        return ItemResult(res.index, value)

    def at(self, i: int, inst: BugInstance, snap: Snapshot, index: SnapshotIndex
           ) -> tuple[Category, float, dict[str, Any]]:
        prep = self.prepare(i, inst)
        t0 = time.perf_counter()
        results, reused, realigned = [], 0, 0
        for b, block in enumerate(prep.blocks):
            key = _lookup(block, snap, prep.base.commit)
            hit = prep.reusable.get((b, *key)) if key else None
            if hit is not None:
                results.append(hit)
                reused += 1
                continue
            loc = localize(block, index, base_commit=prep.base.commit, post=prep.posts.get(block.path or ""))
            res = prep.judged.get((b, loc))
            if res is None:
                res = prep.judged[(b, loc)] = judge_block(block, loc, prep.posts, self.config, self.sim)
            else:
                realigned += 1
            if key and loc is not None and loc.how in _CONTENT_ONLY and loc.path == key[0]:
                prep.reusable[(b, *key)] = res
            results.append(res)
        t1 = time.perf_counter()

        def run_tests(inst: BugInstance, diff: str) -> VerifyOutcome:
            if diff not in prep.tested:
                assert self.config.runner is not None
                prep.tested[diff] = self.config.runner.run(inst, diff)
            return prep.tested[diff]

        category, score, evidence = verdict(inst, snap, prep.base, results, self.config, self.sim.name,
                                            run_tests)
        evidence["base_source"] = prep.base_source
        evidence["timings_s"] = {"parse": prep.parse_s, "match": round(t1 - t0, 4),
                                 "total": round(time.perf_counter() - t0, 4), "blocks_reused": reused,
                                 "alignments_reused": realigned}
        return category, score, evidence


def run_grid(instances: Sequence[BugInstance], repos_dir: str | os.PathLike[str],
             cutoffs: Mapping[str, str | date | datetime | CutoffPeriod], *,
             config: PresenceConfig | None = None, executor: Executor | None = None,
             pairs: Collection[tuple[str, str]] | None = None) -> GridRun:
    """Stage II flags for every (instance, model) of ``cutoffs`` (model -> cutoff), and what
    was shared; failures are flags with ``evidence.error``, as in ``patch_presence``. With
    ``pairs`` ((instance id, model) pairs) only those flags are computed and returned (a cache
    filled incrementally; each instance at its own fix snapshot), the same flags a full run gives."""
    if not cutoffs:
        raise InputError("no models: the cutoffs mapping is empty")
    whens = {m: cutoff_when(m, c) for m, c in cutoffs.items()}
    if pairs is not None:
        unknown = sorted({m for _, m in pairs} - set(whens))
        if unknown:
            raise InputError(f"pairs: model(s) {', '.join(unknown)} not in the cutoffs mapping")
    wanted = _wanted(instances, whens, pairs)
    distinct = sorted({w for ws in wanted for w in ws})
    config = config or PresenceConfig()
    sim = config.resolved_similarity()
    executor = executor or LocalExecutor()
    instances = list(instances)
    by_repo: dict[Path, list[int]] = {}
    unfound: list[int] = []
    for i, inst in enumerate(instances):
        try:
            by_repo.setdefault(locate(repos_dir, inst, source=config.snapshot_source,
                                      releases_dir=config.releases_dir), []).append(i)
        except RepositoryError:
            unfound.append(i)
    with one_bar(desc=f"patch presence ({len(instances)} instances x {len(distinct)} cutoffs)",
                 total=sum(map(len, wanted))) as bar:   # one bar, not one per snapshot (hundreds)
        return _grid(instances, repos_dir, config, sim, executor, whens, wanted, by_repo, unfound,
                     bar, pairs)


def _wanted(instances: Sequence[BugInstance], whens: Mapping[str, datetime],
            pairs: Collection[tuple[str, str]] | None) -> list[set[datetime]]:
    """The cutoffs each instance is computed at (all of them without ``pairs``)."""
    if pairs is None:
        return [set(whens.values()) for _ in instances]
    by_id: dict[str, set[datetime]] = {}
    for iid, model in pairs:
        by_id.setdefault(iid, set()).add(whens[model])
    return [by_id.get(inst.instance_id, set()) for inst in instances]


def _grid(instances: list[BugInstance], repos_dir: str | os.PathLike[str], config: PresenceConfig, sim: Any,
          executor: Executor, whens: dict[str, datetime], wanted: list[set[datetime]],
          by_repo: dict[Path, list[int]], unfound: list[int], bar: OneBar,
          pairs: Collection[tuple[str, str]] | None) -> GridRun:
    outcomes: dict[tuple[int, datetime], ItemResult] = {}
    unfound = [i for i in unfound if wanted[i]]
    if unfound:
        bar.weight = 1
        missing = executor.map(lambda i: locate(repos_dir, instances[i], source=config.snapshot_source,
                                                releases_dir=config.releases_dir), unfound, desc="patch presence")
        outcomes.update({(i, w): res for i, res in zip(unfound, missing) for w in wanted[i]})
    snapshots = computed = reused = realigned = 0
    for path, all_idxs in by_repo.items():
        idxs = [i for i in all_idxs if wanted[i]]
        distinct = sorted(set().union(*(wanted[i] for i in idxs)))
        grid = _RepoGrid(path, config, sim)
        commits: dict[str, tuple[Snapshot, list[datetime]]] = {}
        failed: dict[datetime, RepositoryError] = {}
        opened: list[Snapshot] = []
        try:
            for when in distinct:
                try:
                    snap = snapshot_at(path, when)
                except RepositoryError as exc:
                    failed[when] = exc
                    continue
                opened.append(snap)
                commits.setdefault(snap.commit, (snap, []))[1].append(when)
            for when, err in failed.items():
                def fail(i: int, exc: RepositoryError = err) -> Any:
                    raise RepositoryError(f"instance {instances[i].instance_id!r}: {exc}")
                bar.weight = 1
                here = [i for i in idxs if when in wanted[i]]
                for i, res in zip(here, executor.map(fail, here, desc="patch presence")):
                    outcomes[(i, when)] = res
            for sha, (snap, group) in sorted(commits.items(), key=lambda kv: kv[1][0].committed_at):
                grid.anchor = grid.anchor or snap
                at_sha = [i for i in idxs if wanted[i] & set(group)]
                index = _SharedIndex(snap, grid.blobs, preprocess=config.preprocess, max_files=config.max_files)
                snapshots += 1

                def one(i: int, snap: Snapshot = snap, index: SnapshotIndex = index,
                        grid: _RepoGrid = grid) -> Any:
                    return named(instances[i], lambda: grid.at(i, instances[i], snap, index))

                bar.weight = len(group) if pairs is None else 1
                runs = executor.map(one, at_sha, desc=f"patch presence {path.name}@{sha[:10]}")
                for i, res in zip(at_sha, runs):
                    if res.ok and res.value is not None:
                        timings = res.value[2]["timings_s"]
                        reused += timings["blocks_reused"]
                        realigned += timings["alignments_reused"]
                        computed += len(res.value[2]["blocks"]) - timings["blocks_reused"] - timings["alignments_reused"]
                    for when in group:
                        if when in wanted[i]:
                            outcomes[(i, when)] = grid.dated(i, instances[i], res, snap, when)
                del index
        finally:
            for snap in opened + [other for other, _ in grid.others.values()]:
                snap.close()
    flags = []
    chosen = None if pairs is None else set(pairs)
    for i, inst in enumerate(instances):
        given: set[int] = set()
        for model, when in whens.items():
            if chosen is not None and (inst.instance_id, model) not in chosen:
                continue
            res = outcomes[(i, when)]
            if res.ok and id(res) in given:  # models sharing a commit: one evidence dict per flag
                res = ItemResult(res.index, copy.deepcopy(res.value))
            given.add(id(res))
            flags.append(to_flag(inst, model, res, when))
    return GridRun(tuple(flags), len(whens), snapshots, computed, reused, realigned)


def patch_presence_grid(instances: Sequence[BugInstance], repos_dir: str | os.PathLike[str],
                        cutoffs: Mapping[str, str | date | datetime | CutoffPeriod], *,
                        config: PresenceConfig | None = None,
                        executor: Executor | None = None) -> list[ContaminationFlag]:
    """One stage-II flag per (instance, model), ordered by instance then by model in the order of
    ``cutoffs`` (model -> cutoff: a published period, a date or an ISO datetime)."""
    return list(run_grid(instances, repos_dir, cutoffs, config=config, executor=executor).flags)
