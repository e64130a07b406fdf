"""One repository's part of a Stage II run: its commits read in date order, its instances
judged at each (:mod:`._judge`), with what the commits share kept once (module doc of
:mod:`._engine`): the caches of :mod:`._caches`, each instance's reading of its base, the base
snapshots and the lag rule's release snapshots, each made once whichever worker thread asks first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..errors import BenchcheckerError
from ..execution import ItemResult
from ..instances import BugInstance
from ..repos import Snapshot
from ..testrun import VerifyOutcome
from ._base_read import read_base
from ._caches import BlobCache, MemoSimilarity, OnceMap, SharedIndex
from ._config import PresenceConfig
from ._decide import BlockResult, PresenceVerdict
from ._judge import judge_block, named, verdict
from ._localize import Location, localize
from ._normalize import ParsedSource
from ._patch import PatchBlock
from ._similarity import Similarity
from ._sources import adjust_for_dates

_CONTENT_ONLY = frozenset({"same-name", "module"})  # locations that depend on one file's content


@dataclass
class _Prepared:
    """One instance, cutoff-independent: base snapshot, blocks, post-patch files, and the block
    results and test outcomes that other commits may reuse (one worker thread at a time)."""

    base: Snapshot
    blocks: tuple[PatchBlock, ...]
    posts: dict[str, ParsedSource]
    parse_s: float
    base_source: dict[str, Any]
    reusable: dict[tuple[int, str, str], BlockResult] = field(default_factory=dict)
    judged: dict[tuple[int, Location | None], BlockResult] = field(default_factory=dict)
    tested: dict[str, VerifyOutcome] = field(default_factory=dict)


def _lookup(block: PatchBlock, snapshot: Snapshot, base_commit: str) -> tuple[str, str] | None:
    """The file localisation looks ``block`` up in at ``snapshot`` and its blob id (as
    :func:`~.localize.localize` follows it); ``None`` when it is not a file there."""
    origin = block.source_path or block.path
    path = snapshot.path_since(base_commit, block.source_path) if block.source_path else origin
    blob = snapshot.blob(path) if path else None
    return (path, blob) if path and blob else None


class Repository:
    """One repository's commits and instances: its caches, each instance's reading of its base,
    the base snapshots and the lag rule's release snapshots, each made once (:class:`OnceMap`)."""

    def __init__(self, config: PresenceConfig, sim: Similarity) -> None:
        self.config = config
        self.sim = MemoSimilarity(sim)
        self.blobs = BlobCache()
        self.prepared: OnceMap[int, _Prepared | Exception] = OnceMap()
        self.bases: OnceMap[str, Snapshot] = OnceMap()
        self.others: OnceMap[str, tuple[Snapshot, SharedIndex]] = OnceMap()
        self.anchor: Snapshot | None = None

    def index(self, snapshot: Snapshot) -> SharedIndex:
        return SharedIndex(snapshot, self.blobs, preprocess=self.config.preprocess,
                           max_files=self.config.max_files)

    def prepare(self, i: int, inst: BugInstance) -> _Prepared:
        got = self.prepared.get(i, lambda: self._read(inst))
        if isinstance(got, Exception):  # the same failure at every cutoff; re-raised, never dropped
            raise got
        return got

    def _read(self, inst: BugInstance) -> _Prepared | Exception:
        t0 = time.perf_counter()
        try:
            assert self.anchor is not None
            anchor = self.anchor

            def sibling(commit: str) -> Snapshot:
                return self.bases.get(commit, lambda: anchor.sibling(commit))

            read = named(inst, lambda: read_base(inst, anchor, preprocess=self.config.preprocess,
                                                 sibling=sibling))
        except Exception as exc:
            return exc
        return _Prepared(read.base, read.blocks, dict(read.posts), round(time.perf_counter() - t0, 4),
                         read.evidence)

    def dated(self, i: int, inst: BugInstance, res: ItemResult, snap: Snapshot, when: datetime) -> ItemResult:
        """``res`` (the verdict at ``snap``) with the date rules of the cutoff ``when`` applied
        (:func:`~.sources.adjust_for_dates`), on its own copy of the evidence."""
        if not res.ok or res.value is None:
            return res

        def verdict_at(other: Snapshot) -> PresenceVerdict:
            known, index = self.others.get(other.commit, lambda: (other, self.index(other)))
            if known is not other:
                other.close()
            return self.at(i, inst, known, index)

        try:
            value = adjust_for_dates(inst, res.value.copy(), snap, when,
                                     lag_margin_days=self.config.lag_margin_days,
                                     merge_dates=self.config.merge_dates, verdict_at=verdict_at)
        except (BenchcheckerError, OSError) as exc:
            return ItemResult(res.index, None, f"instance {inst.instance_id!r}: {exc}")
        return ItemResult(res.index, value)

    def at(self, i: int, inst: BugInstance, snap: Snapshot, index: SharedIndex) -> PresenceVerdict:
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

        got = verdict(inst, snap, prep.base, results, self.config, self.sim.name, run_tests)
        evidence = got.evidence
        evidence["base_source"] = prep.base_source
        evidence["timings_s"] = {"parse": prep.parse_s, "match": round(t1 - t0, 4),
                                 "total": round(time.perf_counter() - t0, 4), "blocks_reused": reused,
                                 "alignments_reused": realigned}
        return got
