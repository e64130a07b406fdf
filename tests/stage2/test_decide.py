"""Decision rules on hand-made block results."""

from __future__ import annotations

from benchchecker_plugin.stage2 import Category, LineMatch, Location, LogicalLine, PatchBlock, decide
from benchchecker_plugin.stage2._decide import block_result

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
    assert r.category is Category.PRESENT and r.score == 1.0     # no removed line still there
    r = block_result(deletion, LOC, (), (1.0,))
    assert r.category is Category.PRE_PATCH_ONLY and r.score == 0.0


def test_a_pure_deletion_is_still_there_only_when_most_of_its_weight_is() -> None:
    """Regression (django__django-12155 and kin at their own fix snapshot): a deleted method was
    read pre-patch only because one removed line (its ``def`` beside a look-alike ``def``, a
    ``return value``) resembled a line still there. Now the removed lines still found must hold
    half of the content weight (hand-computed below)."""
    from benchchecker_plugin.stage2._decide import line_weight, still_share

    texts = ["def get_prep_value ( self , value ) :",          # get_prep_value value: 2
             "value = super ( ) . get_prep_value ( value )",   # value super get_prep_value value: 4
             "return self . to_python ( value )"]              # to_python value: 2
    removed = tuple(LogicalLine(i, i, t, t) for i, t in enumerate(texts))
    assert [line_weight(t) for t in texts] == [2, 4, 2]
    deletion = PatchBlock("a.py", "a.py", "python", "F.get_prep_value", "tree", (), removed)
    # only the signature resembles a line still there (0.8 >= 0.7): 2 of 8 still there
    assert still_share(deletion, (0.8, 0.1, 0.3)) == 0.25
    r = block_result(deletion, LOC, (), (0.8, 0.1, 0.3))
    assert r.category is Category.PRESENT and r.score == 0.75
    # signature and body line found: 6 of 8
    r = block_result(deletion, LOC, (), (0.8, 0.9, 0.3))
    assert r.category is Category.PRE_PATCH_ONLY and r.score == 0.25
    # exactly half (4 of 8) is still there: pre-patch only
    assert block_result(deletion, LOC, (), (0.1, 0.9, 0.0)).category is Category.PRE_PATCH_ONLY
    assert line_weight("return None") == 1 and line_weight("return None", floor=0) == 0


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


def _weighted_block(*texts: str) -> PatchBlock:
    added = tuple(LogicalLine(i, i, t, t) for i, t in enumerate(texts))
    return PatchBlock("a.py", "a.py", "python", "f", "tree", added, ())


def test_evidence_weight_counts_content_tokens() -> None:
    from benchchecker_plugin.stage2._decide import evidence_weight

    assert evidence_weight(_weighted_block("return None")) == 1          # no content token: at least 1
    assert evidence_weight(_weighted_block("else :")) == 1
    # names and literals, keywords and self left out: total , parse , text , "utf-8" , strict
    assert evidence_weight(_weighted_block('total = self . parse ( text , "utf-8" , strict = True )')) == 5
    assert evidence_weight(_weighted_block(" ".join(f"a{i}" for i in range(20)))) == 8   # capped per line
    deletion = PatchBlock("a.py", "a.py", "python", "f", "tree", (), (LogicalLine(0, 0, "x = y", "x = y"),))
    assert evidence_weight(deletion) == 2


def test_disagreeing_blocks_are_weighed() -> None:
    """Regression (real histories): one trivial block against the fix's substance no longer makes
    the instance inconclusive; evenly split evidence still does."""
    heavy = _weighted_block("result = compute_total ( items , weights , normalise = True )")   # 5
    trivial = _weighted_block("return None")                                                 # 1
    present = block_result(heavy, LOC, (match(0.95),), ())
    lone_prepatch = block_result(trivial, LOC, (match(0.0, "pre-patch"),), ())
    assert decide([present, present, lone_prepatch]) == (Category.PRESENT, 0.95)
    heavy_prepatch = block_result(heavy, LOC, (match(0.0, "pre-patch"),), ())
    lone_present = block_result(trivial, LOC, (match(1.0, "exact"),), ())
    assert decide([heavy_prepatch, lone_present]) == (Category.PRE_PATCH_ONLY, 0.0)
    # 5 against 5: neither side holds 3/4 of the weight
    assert decide([present, heavy_prepatch])[0] is Category.INCONCLUSIVE
    # share is a parameter: at 0.9 the 5:1 split (83%) is not enough
    assert decide([present, lone_prepatch], share=0.9)[0] is Category.INCONCLUSIVE


def test_a_deleted_duplicate_of_a_kept_line_is_not_still_present() -> None:
    """Regression (real histories): a pure deletion of one of two equal lines was "still present"
    because the copy the patch keeps is in the snapshot; only surplus copies count."""
    from collections import Counter

    from benchchecker_plugin.stage2 import ExactSimilarity
    from benchchecker_plugin.stage2._judge import _removed_found

    dup = LogicalLine(3, 3, "self . reset ( )", "self.reset()")
    snap = Location("a.py", "f", "same-name", (LogicalLine(0, 0, "a = 1", "a = 1"), dup))
    kept = Counter({"self . reset ( )": 1, "a = 1": 1})    # the post-patch function keeps one copy
    assert _removed_found((dup,), snap, ExactSimilarity(), kept) == (0.0,)    # fixed: one copy left
    twice = Location("a.py", "f", "same-name", (*snap.lines, dup))
    assert _removed_found((dup,), twice, ExactSimilarity(), kept) == (1.0,)   # buggy: both copies
    assert _removed_found((dup,), snap, ExactSimilarity()) == (1.0,)          # no context known


def test_a_presence_verdict_is_a_frozen_record_whose_copy_owns_its_evidence() -> None:
    import dataclasses

    import pytest

    from benchchecker_plugin.stage2 import PresenceVerdict

    got = PresenceVerdict(Category.PRESENT, 0.93, {"category": "present", "blocks": [{"score": 0.93}]})
    assert got.contaminated is True
    assert PresenceVerdict(Category.GONE, 0.0, {}).contaminated is None
    assert PresenceVerdict(Category.MERGED_AFTER, 0.0, {}).contaminated is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.score = 1.0  # type: ignore[misc]
    twin = got.copy()
    twin.evidence["blocks"][0]["score"] = 0.1
    assert got.evidence["blocks"][0]["score"] == 0.93 and twin == dataclasses.replace(
        got, evidence={"category": "present", "blocks": [{"score": 0.1}]})
