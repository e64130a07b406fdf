"""Decision rules on hand-made block results."""

from __future__ import annotations

from benchchecker_plugin.stage2 import Category, decide
from benchchecker_plugin.stage2.decide import block_result
from benchchecker_plugin.stage2.localize import LineMatch, Location
from benchchecker_plugin.stage2.normalize import LogicalLine
from benchchecker_plugin.stage2.patch import PatchBlock

LINE = LogicalLine(0, 0, "x = 1", "x = 1")
LOC = Location("a.py", "f", "same-name", (LINE,))


def block(removed: bool = True) -> PatchBlock:
    return PatchBlock("a.py", "a.py", "python", "f", "tree", (LINE,), (LINE,) if removed else ())


def match(sim: float, kind: str = "similar") -> LineMatch:
    return LineMatch("x = 1", "x = 2", (0, 0), sim, kind)


def test_block_categories() -> None:
    assert block_result(block(), LOC, (match(1.0, "exact"), match(0.8)), ()).category is Category.PRESENT
    r = block_result(block(), LOC, (match(1.0, "exact"), match(0.0, "pre-patch")), ())
    assert r.category is Category.PRE_PATCH_ONLY and r.score == 0.0
    assert block_result(block(), LOC, (match(0.5),), ()).category is Category.INCONCLUSIVE
    assert block_result(block(False), LOC, (match(0.5),), ()).category is Category.PRE_PATCH_ONLY
    assert block_result(block(), None, (), ()).category is Category.GONE
    assert block_result(block(), LOC, (match(0.69),), (), threshold=0.6).category is Category.PRESENT
    # a pure deletion: present when the removed lines are gone
    deletion = PatchBlock("a.py", "a.py", "python", "f", "tree", (), (LINE,))
    r = block_result(deletion, LOC, (), (0.2,))
    assert r.category is Category.PRESENT and r.score == 0.8
    assert block_result(deletion, LOC, (), (1.0,)).category is Category.PRE_PATCH_ONLY


def test_instance_decision_combines_blocks() -> None:
    present = block_result(block(), LOC, (match(0.9),), ())
    prepatch = block_result(block(), LOC, (match(0.0, "pre-patch"),), ())
    gone = block_result(block(), None, (), ())
    assert decide([present, present]) == (Category.PRESENT, 0.9)
    assert decide([prepatch, gone]) == (Category.PRE_PATCH_ONLY, 0.0)
    assert decide([gone])[0] is Category.GONE
    assert decide([present, prepatch])[0] is Category.INCONCLUSIVE
    assert decide([])[0] is Category.INCONCLUSIVE
    assert Category.PRESENT.contaminated is True and Category.GONE.contaminated is None
    assert Category.PRE_PATCH_ONLY.contaminated is False and Category.VERIFIED.contaminated is True
