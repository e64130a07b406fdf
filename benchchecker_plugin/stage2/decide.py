"""From aligned lines to a verdict: present, pre-patch only, gone, or inconclusive."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .localize import LineMatch, Location
from .patch import PatchBlock

__all__ = ["BlockResult", "Category", "block_result", "decide"]

DEFAULT_THRESHOLD = 0.7


class Category(enum.Enum):
    """Why a verdict was reached (goes into the flag's evidence)."""

    PRESENT = "present"                      # every added line is in the snapshot (>= threshold)
    PRE_PATCH_ONLY = "pre-patch-only"        # the snapshot holds the buggy lines, not the fix
    INCONCLUSIVE = "refactored-inconclusive"  # some lines found, some not: maybe refactored
    GONE = "file-or-function-gone"           # the file or function is not in the snapshot
    VERIFIED = "verified-by-tests"           # the snapshot code passes the instance's tests
    ERROR = "error"                          # the instance could not be processed

    @property
    def contaminated(self) -> bool | None:
        return {Category.PRESENT: True, Category.VERIFIED: True,
                Category.PRE_PATCH_ONLY: False}.get(self)


@dataclass(frozen=True)
class BlockResult:
    """One block's outcome: where it was found, its line matches, its score and category."""

    block: PatchBlock
    location: Location | None
    matches: tuple[LineMatch, ...]
    removed_found: tuple[float, ...]
    score: float
    category: Category


def block_result(block: PatchBlock, location: Location | None, matches: tuple[LineMatch, ...],
                 removed_found: tuple[float, ...], threshold: float = DEFAULT_THRESHOLD) -> BlockResult:
    """Decide one block.

    With added lines: the score is the least line similarity; present when it reaches
    ``threshold``; pre-patch only when some line aligned to the buggy code or, for a pure
    addition, the function is there without the added lines; inconclusive otherwise.
    A pure deletion: present when no removed line is still there (score ``1 - max``).
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
    still = max(removed_found, default=0.0)
    score = 1.0 - still
    cat = Category.PRESENT if still < threshold else Category.PRE_PATCH_ONLY
    return BlockResult(block, location, matches, removed_found, score, cat)


def decide(blocks: list[BlockResult]) -> tuple[Category, float]:
    """The instance's category and score (the least block score) from its blocks."""
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
    return Category.INCONCLUSIVE, score
