"""Stage II end to end: for each instance, was its gold patch in the repository at the cutoff?

>>> flags = patch_presence(load_instances("verified.jsonl"), "repos/", "2023-04-30",
...                        model="gpt-4-0613")                                   # doctest: +SKIP

One :class:`~benchchecker_plugin.flags.ContaminationFlag` per instance, ``method =
"benchchecker.stage2"``, ``score`` = the least matched-line similarity (1.0 when verified by
tests). An instance that fails (bad diff, missing commit, missing repository, non-UTF-8 file)
gets a flag with ``contaminated = None`` and ``evidence.error``; the run goes on.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..errors import BenchcheckerError, RepositoryError
from ..flags import ANY_MODEL, ContaminationFlag
from ..instances.bug import BugInstance
from ..models.executor import Executor, LocalExecutor
from ..repos.snapshot import Snapshot, parse_cutoff
from .decide import DEFAULT_THRESHOLD, BlockResult, Category, block_result, decide
from .localize import SnapshotIndex, align, localize
from .normalize import ParsedSource
from .patch import parse_patch
from .similarity import LexicalSimilarity, Similarity, get_similarity
from .verify import TestRunner, find_repo, modified_patch

__all__ = ["METHOD", "PresenceConfig", "find_repo", "instance_presence", "patch_presence", "summary_line"]

METHOD = "benchchecker.stage2"


@dataclass(frozen=True)
class PresenceConfig:
    """Knobs of stage II. ``similarity``: a :class:`Similarity` or a name for ``get_similarity``."""

    threshold: float = DEFAULT_THRESHOLD
    preprocess: bool = True
    similarity: Any = "difflib+minilm"
    runner: TestRunner | None = None
    max_files: int = 10

    def resolved_similarity(self) -> Similarity:
        return get_similarity(self.similarity) if isinstance(self.similarity, str) else self.similarity


@dataclass
class _RepoState:
    snapshot: Snapshot
    index: SnapshotIndex
    base: dict[str, Snapshot] = field(default_factory=dict)


def _removed_found(block_removed, location, sim: Similarity) -> tuple[float, ...]:  # noqa: ANN001
    """How much each removed line is still in the snapshot (lexical, or exact for ``exact``)."""
    if location is None or not block_removed or not location.lines:
        return ()
    cheap = sim if sim.name == "exact" else LexicalSimilarity()
    cands = [ln.text for ln in location.lines]
    return tuple(round(float(row.max()), 6) for row in cheap.matrix([r.text for r in block_removed], cands))


def _context(block, posts: dict[str, ParsedSource]) -> Counter:  # noqa: ANN001
    """Texts (with counts) of the post-patch lines of the block's scope the patch did not add."""
    post = posts.get(block.path or "")
    if post is None:
        return Counter()
    scopes = post.find(block.scope) if block.scope else [None]
    if not scopes:
        return Counter()
    added = {(ln.start, ln.end) for ln in block.added}
    return Counter(ln.text for ln in post.lines_in(scopes[0]) if (ln.start, ln.end) not in added)


def _evidence_block(res: BlockResult) -> dict[str, Any]:
    loc = res.location
    return {
        "file": res.block.file, "scope": res.block.scope, "category": res.category.value,
        "found_in": loc.path if loc else None, "found_scope": loc.scope if loc else None,
        "how": loc.how if loc else None, "score": round(res.score, 6),
        "lines": [{"patch": m.patch_line, "snapshot": m.snapshot_line, "similarity": m.similarity,
                   "kind": m.kind} for m in res.matches],
        "removed_still_present": list(res.removed_found),
    }


def instance_presence(inst: BugInstance, state: _RepoState, config: PresenceConfig,
                      sim: Similarity) -> tuple[Category, float, dict[str, Any]]:
    """Category, score and evidence of one instance against one repository snapshot."""
    t0 = time.perf_counter()
    try:
        base = state.base.get(inst.base_commit) or state.snapshot.sibling(inst.base_commit)
    except RepositoryError as exc:
        raise RepositoryError(f"instance {inst.instance_id!r}: {exc}") from exc
    state.base[inst.base_commit] = base

    def read_pre(path: str) -> str | None:
        return base.read_if_exists(path)

    posts: dict[str, ParsedSource] = {}
    blocks = parse_patch(inst.patch, instance_id=inst.instance_id, read_pre=read_pre, posts=posts,
                         preprocess=config.preprocess)
    t1 = time.perf_counter()
    results = []
    for block in blocks:
        loc = localize(block, state.index, base_commit=base.commit,
                       post=posts.get(block.path or ""))
        matches = () if loc is None else align(block.added, block.removed, loc, sim, _context(block, posts))
        results.append(block_result(block, loc, matches, _removed_found(block.removed, loc, sim),
                                    config.threshold))
    category, score = decide(results)
    t2 = time.perf_counter()
    evidence: dict[str, Any] = {
        "category": category.value, "similarity": sim.name, "threshold": config.threshold,
        "preprocess": config.preprocess, "snapshot_commit": state.snapshot.commit,
        "snapshot_date": state.snapshot.committed_at.isoformat(), "repo": inst.repo,
        "blocks": [_evidence_block(r) for r in results],
    }
    if config.runner is not None and category in (Category.INCONCLUSIVE, Category.GONE):
        diff = modified_patch(inst, base, results)
        if diff:
            outcome = config.runner.run(inst, diff)
            evidence["verification"] = outcome.to_dict()
            if outcome.passed:
                category, score = Category.VERIFIED, 1.0
                evidence["category"] = category.value
    evidence["timings_s"] = {"parse": round(t1 - t0, 4), "match": round(t2 - t1, 4),
                             "total": round(time.perf_counter() - t0, 4)}
    return category, score, evidence


def patch_presence(instances: Sequence[BugInstance], repos_dir: str | os.PathLike[str],
                   cutoff: str | date | datetime, *, model: str = ANY_MODEL,
                   config: PresenceConfig | None = None,
                   executor: Executor | None = None) -> list[ContaminationFlag]:
    """One stage-II flag per instance (in order); failures are flags with ``evidence.error``."""
    config = config or PresenceConfig()
    when = parse_cutoff(cutoff)
    sim = config.resolved_similarity()
    states: dict[Path, _RepoState | RepositoryError] = {}

    def state_for(inst: BugInstance) -> _RepoState:
        path = find_repo(repos_dir, inst)
        if path not in states:
            try:
                snap = Snapshot.at(path, when)
                states[path] = _RepoState(snap, SnapshotIndex(snap, preprocess=config.preprocess,
                                                              max_files=config.max_files))
            except RepositoryError as exc:
                states[path] = exc
        st = states[path]
        if isinstance(st, RepositoryError):
            raise RepositoryError(f"instance {inst.instance_id!r}: {st}")
        return st

    def one(inst: BugInstance) -> tuple[Category, float, dict[str, Any]]:
        try:
            return instance_presence(inst, state_for(inst), config, sim)
        except BenchcheckerError as exc:
            if f"instance {inst.instance_id!r}" in str(exc):
                raise
            raise type(exc)(f"instance {inst.instance_id!r}: {exc}") from exc

    runs = (executor or LocalExecutor()).map(one, list(instances), desc="patch presence")
    flags = []
    for inst, res in zip(instances, runs):
        if res.ok and res.value is not None:
            category, score, evidence = res.value
            flags.append(ContaminationFlag(inst.benchmark, inst.instance_id, model, METHOD,
                                           category.contaminated, float(score), evidence=evidence))
        else:
            flags.append(ContaminationFlag(inst.benchmark, inst.instance_id, model, METHOD, None, 0.0,
                                           evidence={"category": Category.ERROR.value, "error": res.error,
                                                     "cutoff": when.isoformat()}))
    for st in states.values():
        if isinstance(st, _RepoState):
            st.snapshot.close()  # the base-commit snapshots share its reader
    return flags


def summary_line(flags: Iterable[ContaminationFlag]) -> str:
    """``N instances: a contaminated, b clean, c undecided, e failed`` for the CLI and logs."""
    flags = list(flags)
    failed = sum(1 for f in flags if "error" in f.evidence)
    yes = sum(1 for f in flags if f.contaminated is True)
    no = sum(1 for f in flags if f.contaminated is False)
    und = len(flags) - yes - no - failed
    return f"{len(flags)} instances: {yes} contaminated, {no} clean, {und} undecided, {failed} failed"
