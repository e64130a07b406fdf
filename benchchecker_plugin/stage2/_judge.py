"""Judging one instance against one snapshot: each block of the gold patch, located there, has
its lines aligned and decided (:func:`judge_block`); the block results make the instance's
category, score and evidence (:func:`verdict`, which runs the tests of an undecided instance when
a runner is configured); :func:`to_flag` turns that outcome, or its failure, into a flag.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from ..errors import BenchcheckerError
from ..execution import ItemResult
from ..flags import STAGE2_METHOD, ContaminationFlag
from ..instances import BugInstance
from ..repos import Snapshot
from ..testrun import VerifyOutcome
from ._config import PresenceConfig
from ._decide import BlockResult, Category, PresenceVerdict, block_result, decide
from ._localize import Location, align
from ._normalize import ParsedSource
from ._patch import PatchBlock
from ._reorder import reorder_matches
from ._similarity import LexicalSimilarity, Similarity
from ._splice import SpliceError, splice_patch

T = TypeVar("T")


def _removed_found(block_removed, location, sim: Similarity,  # noqa: ANN001
                   taken: Counter | None = None) -> tuple[float, ...]:
    """How much each removed line is still in the snapshot (lexical, or exact for ``exact``).

    ``taken``: the texts (with counts) of the post-patch scope's unchanged lines. A snapshot line
    with one of those texts is that kept line, not the removed one, unless the snapshot holds more
    copies than the post-patch scope does (a deleted duplicate of a line that stays)."""
    if location is None or not block_removed or not location.lines:
        return ()
    spare = Counter(ln.text for ln in location.lines)
    spare.subtract(taken or {})
    cands = [t for t in dict.fromkeys(ln.text for ln in location.lines) if spare[t] > 0]
    if not cands:
        return tuple(0.0 for _ in block_removed)
    cheap = sim if sim.name == "exact" else LexicalSimilarity()
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
        "offset": res.block.offset,
    }


def judge_block(block: PatchBlock, loc: Location | None, posts: dict[str, ParsedSource],
                config: PresenceConfig, sim: Similarity) -> BlockResult:
    """A located block's lines aligned and decided (a function of the block and ``loc`` only); a
    block that only reorders lines is decided by the moved lines' neighbours (:mod:`._reorder`)."""
    taken = _context(block, posts)
    rivals = block.removed + tuple(r for r in block.rivals if r not in block.removed)
    moved = reorder_matches(block, loc, posts.get(block.path or "")) if loc is not None else None
    matches = () if loc is None else moved if moved is not None else align(block.added, rivals, loc, sim, taken)
    return block_result(block, loc, matches, _removed_found(block.removed, loc, sim, taken), config.threshold)


def verdict(inst: BugInstance, snapshot: Snapshot, base: Snapshot, results: Sequence[BlockResult],
            config: PresenceConfig, similarity: str,
            run_tests: Callable[[BugInstance, str], VerifyOutcome] | None = None
            ) -> PresenceVerdict:
    """The verdict (category, score and evidence, no timings) of an instance from its block results;
    ``run_tests`` (default ``config.runner.run``) verifies an undecided instance."""
    category, score = decide(list(results))  # decide() is typed for a list; it only reads it
    evidence: dict[str, Any] = {
        "category": category.value, "similarity": similarity, "threshold": config.threshold,
        "preprocess": config.preprocess, "snapshot_commit": snapshot.commit,
        "snapshot_date": snapshot.committed_at.isoformat(), "repo": inst.repo,
        "blocks": [_evidence_block(r) for r in results],
    }
    if config.runner is not None and category in (Category.INCONCLUSIVE, Category.GONE):
        try:
            diff, transplanted = splice_patch(inst, base, results, snapshot)
        except SpliceError as exc:   # stays undecided, with the reason
            diff, transplanted = None, False
            evidence["verification"] = VerifyOutcome(False, config.runner.name, f"not run: {exc}", 0.0).to_dict()
        if diff:
            outcome = (run_tests or config.runner.run)(inst, diff)
            evidence["verification"] = outcome.to_dict()
            # a failure settles "clean" only when it is the fix's absence, not the splice's doing
            doubt = "" if outcome.passed or not outcome.decisive else _doubt(inst, outcome, results, transplanted)
            if outcome.passed:
                category, score = Category.VERIFIED, 1.0
                evidence["category"] = category.value
            elif outcome.decisive and not doubt:
                category, score = Category.REFUTED, 0.0
                evidence["category"] = category.value
            elif doubt:
                evidence["verification"]["detail"] += f"; not settled clean: {doubt}"
            if transplanted:
                evidence["verification"]["transplanted"] = True
    return PresenceVerdict(category, score, evidence)


def _doubt(inst: BugInstance, outcome: VerifyOutcome, results: Sequence[BlockResult], transplanted: bool) -> str:
    """Why a failing run of the snapshot's code does not show the fix absent, or ``""``: the
    statements were transplanted whole, the lines came from elsewhere, or PASS_TO_PASS tests
    (which pass with the gold patch) failed too, so the splice broke more than the fix."""
    if transplanted:
        return ("the snapshot's statements were transplanted whole (the line-by-line splice did not "
                "parse), so a failure may be the transplant's")
    away = _spliced_from_elsewhere(results)
    if away:
        return f"the snapshot's lines came from {away}, so a failure there does not show the fix is absent"
    ran = dict(outcome.tests)
    broken = [t for t in inst.pass_to_pass if ran.get(t) not in ("PASSED", "XFAIL")]
    if broken:
        return (f"{len(broken)} PASS_TO_PASS test(s) failed too (e.g. {broken[0]}), so the snapshot's "
                "lines broke more than the fix")
    return ""


def _spliced_from_elsewhere(results: Sequence[BlockResult]) -> str:
    """Where the modified diff took snapshot lines from a place other than the patched one
    (``"FILE SCOPE, not FILE SCOPE"``), or ``""`` when every spliced line comes from the patched
    file and scope. Only then does a failing test run show the fix absent: lines found elsewhere
    may be other code entirely (another class's method of the same name)."""
    for res in results:
        loc = res.location
        spliced = any(m.snapshot_line is not None and m.kind != "exact" for m in res.matches)
        if spliced and loc is not None and (loc.path, loc.scope) != (res.block.path, res.block.scope):
            return f"{loc.path} {loc.scope or '(module)'}, not {res.block.path} {res.block.scope or '(module)'}"
    return ""


def named(inst: BugInstance, fn: Callable[[], T]) -> T:
    """``fn()``; a :class:`BenchcheckerError` it raises gets the instance (its ``instance``
    attribute, which its message then names), keeping its type and every other attribute."""
    try:
        return fn()
    except BenchcheckerError as exc:
        if exc.instance is None:
            exc.instance = inst.instance_id
        raise


def to_flag(inst: BugInstance, model: str, res: ItemResult, when: datetime) -> ContaminationFlag:
    """The flag of one (instance, model) from its outcome; a failure keeps its error and cutoff."""
    if res.ok and res.value is not None:
        got: PresenceVerdict = res.value
        return ContaminationFlag(inst.benchmark, inst.instance_id, model, STAGE2_METHOD, got.contaminated,
                                 float(got.score), evidence=got.evidence)
    return ContaminationFlag(inst.benchmark, inst.instance_id, model, STAGE2_METHOD, None, 0.0,
                             evidence={"category": Category.ERROR.value, "error": res.error,
                                       "cutoff": when.isoformat()})
