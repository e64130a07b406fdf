"""From aligned lines to a verdict: present, pre-patch only, gone, or inconclusive."""

from __future__ import annotations

import copy
import enum
import re
from dataclasses import dataclass
from typing import Any

from ._localize import LineMatch, Location
from ._patch import PatchBlock

DEFAULT_THRESHOLD = 0.7


class Category(enum.Enum):
    """Why a verdict was reached (goes into the flag's evidence)."""

    PRESENT = "present"                      # every added line is in the snapshot (>= threshold)
    PRE_PATCH_ONLY = "pre-patch-only"        # the snapshot holds the buggy lines, not the fix
    INCONCLUSIVE = "refactored-inconclusive"  # some lines found, some not: maybe refactored
    GONE = "file-or-function-gone"           # the file or function is not in the snapshot
    VERIFIED = "verified-by-tests"           # the snapshot code passes the instance's tests
    REFUTED = "refuted-by-tests"             # in a trusted environment, the snapshot code fails them
    MERGED_AFTER = "merged-after-cutoff"     # lines not found, and the fix was merged after the cutoff
    ERROR = "error"                          # the instance could not be processed

    @property
    def contaminated(self) -> bool | None:
        return {Category.PRESENT: True, Category.VERIFIED: True,
                Category.PRE_PATCH_ONLY: False, Category.REFUTED: False,
                Category.MERGED_AFTER: False}.get(self)


@dataclass(frozen=True)
class BlockResult:
    """One block's outcome: where it was found, its line matches, its score and category."""

    block: PatchBlock
    location: Location | None
    matches: tuple[LineMatch, ...]
    removed_found: tuple[float, ...]
    score: float
    category: Category


@dataclass(frozen=True)
class PresenceVerdict:
    """One instance judged at one snapshot: its ``category``, ``score`` (the least matched-line
    similarity; 1.0 when verified by tests) and ``evidence`` (what the flag records)."""

    category: Category
    score: float
    evidence: dict[str, Any]

    @property
    def contaminated(self) -> bool | None:
        return self.category.contaminated

    def copy(self) -> PresenceVerdict:
        """The same verdict with its own copy of the evidence (to be changed apart)."""
        return PresenceVerdict(self.category, self.score, copy.deepcopy(self.evidence))


def block_result(block: PatchBlock, location: Location | None, matches: tuple[LineMatch, ...],
                 removed_found: tuple[float, ...], threshold: float = DEFAULT_THRESHOLD) -> BlockResult:
    """Decide one block.

    With added lines: the score is the least line similarity; present when it reaches
    ``threshold``; pre-patch only when some line aligned to the buggy code or, for a pure
    addition, the function is there without the added lines; inconclusive otherwise.
    A pure deletion: present when less than half of its removed lines (by content weight) are still
    there (score ``1 -`` that share, :func:`still_share`).
    """
    if location is None:
        return BlockResult(block, None, matches, removed_found, 0.0, Category.GONE)
    if matches:
        score = min(m.similarity for m in matches)
        if score >= threshold:
            cat = Category.PRESENT
        elif any(m.kind == "pre-patch" for m in matches) or (not block.removed and all(
                m.similarity < threshold for m in matches)):
            cat = Category.PRE_PATCH_ONLY
        else:
            cat = Category.INCONCLUSIVE
        return BlockResult(block, location, matches, removed_found, score, cat)
    score = 1.0 - still_share(block, removed_found, threshold)
    cat = Category.PRESENT if score > 1.0 - STILL_SHARE else Category.PRE_PATCH_ONLY
    return BlockResult(block, location, matches, removed_found, score, cat)


STILL_SHARE = 0.5


def still_share(block: PatchBlock, removed_found: tuple[float, ...], threshold: float = DEFAULT_THRESHOLD
                ) -> float:
    """The share of a pure deletion's removed lines still in the snapshot (found at ``threshold``
    or more), each weighed by its content tokens (:func:`line_weight`). A deletion is still there
    when the lines holding at least :data:`STILL_SHARE` of that weight are: one removed line that
    resembles another one of the function (a deleted ``def get_prep_value`` beside ``def
    get_db_prep_value``, a ``return value``) does not undo the deletion of the rest."""
    if not removed_found:
        return 0.0
    weights = [line_weight(ln.text) for ln in block.removed]
    still = sum(w for w, f in zip(weights, removed_found, strict=True) if f >= threshold)
    return still / sum(weights)


_TOKEN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*|\d[\w.]*|\"[^\"]*\"|'[^']*'")
_NOT_CONTENT = frozenset("""self cls this None True False null true false nil return if elif else for while
in is not and or def class pass break continue try except finally raise with as import from lambda
yield await async new throw throws catch public private protected static final void var let const
function fn func mut pub use""".split())
DOMINANT_SHARE = 0.75


def evidence_weight(block: PatchBlock) -> int:
    """How much a block's verdict tells: the content tokens (names and literals other than
    keywords, at most 8 a line) of its added lines, or of its removed lines for a pure deletion;
    at least 1. ``return None`` or ``else:`` weighs 1, a call with four arguments 5 or more."""
    lines = block.added or block.removed
    return max(sum(line_weight(ln.text, floor=0) for ln in lines), 1)


def line_weight(text: str, floor: int = 1) -> int:
    """The content tokens of one line (names and literals other than keywords), at most 8, at
    least ``floor``."""
    return max(floor, min(8, sum(1 for t in _TOKEN.findall(text) if t not in _NOT_CONTENT)))


def decide(blocks: list[BlockResult], share: float = DOMINANT_SHARE) -> tuple[Category, float]:
    """The instance's category and score from its blocks.

    All blocks present -> present; all pre-patch only (or gone beside pre-patch only) -> pre-patch
    only. Blocks that disagree are weighed (:func:`evidence_weight`): when the present blocks hold
    at least ``share`` of the whole weight the instance is present, when the pre-patch-only blocks
    do it is pre-patch only, else inconclusive. On real histories the minority is typically one
    trivial line (an import already there, a ``return`` found elsewhere in the function, a
    deleted line duplicated nearby), not the fix. The score is the least score of the blocks of
    the winning side (present), the greatest of the losing side's complement otherwise.
    """
    if not blocks:
        return Category.INCONCLUSIVE, 0.0
    cats = {b.category for b in blocks}
    score = min(b.score for b in blocks)
    if cats == {Category.PRESENT}:
        return Category.PRESENT, score
    if cats == {Category.PRE_PATCH_ONLY}:
        return Category.PRE_PATCH_ONLY, score
    if Category.GONE in cats and not cats & {Category.PRESENT, Category.PRE_PATCH_ONLY}:
        return Category.GONE, score
    if cats <= {Category.PRE_PATCH_ONLY, Category.GONE}:
        return Category.PRE_PATCH_ONLY, score
    weights = {c: 0 for c in Category}
    for b in blocks:
        weights[b.category] += evidence_weight(b.block)
    total = sum(weights.values())
    if weights[Category.PRESENT] >= share * total:
        return Category.PRESENT, min(b.score for b in blocks if b.category is Category.PRESENT)
    if weights[Category.PRE_PATCH_ONLY] >= share * total:
        return Category.PRE_PATCH_ONLY, score
    return Category.INCONCLUSIVE, score
