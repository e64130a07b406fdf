"""Line alignment rules: exact, similar, pre-patch, context lines and duplicates."""

from __future__ import annotations

from collections import Counter

from benchchecker_plugin.stage2 import ExactSimilarity, LexicalSimilarity, align
from benchchecker_plugin.stage2.localize import Location
from benchchecker_plugin.stage2.normalize import LogicalLine


def lines(*texts: str) -> tuple[LogicalLine, ...]:
    return tuple(LogicalLine(i, i, t, t) for i, t in enumerate(texts))


def loc(*texts: str) -> Location:
    return Location("a.py", "f", "same-name", lines(*texts))


def test_exact_similar_and_pre_patch() -> None:
    sim = LexicalSimilarity()
    (m,) = align(lines("if x != 1 :"), (), loc("y = 2", "if x != 1 :"), sim)
    assert (m.kind, m.similarity, m.snapshot_rows) == ("exact", 1.0, (1, 1))
    # the snapshot holds the removed (buggy) line: pre-patch, counts 0
    (m,) = align(lines("if x != 1 :"), lines("if x == 1 :"), loc("y = 2", "if x == 1 :"), sim)
    assert (m.kind, m.similarity) == ("pre-patch", 0.0)
    # a rewritten fix, closer to the added line than to the removed one
    (m,) = align(lines("if x != 1 :"), lines("if y == 7 :"), loc("if x != 1 and True :"), sim)
    assert m.kind == "similar" and 0.7 < m.similarity < 1.0


def test_context_lines_do_not_stand_in_for_added_ones() -> None:
    sim = LexicalSimilarity()
    snapshot = loc("a = foo ( x )", "b = foo ( y )")
    added = lines("c = foo ( x )")
    (m,) = align(added, (), snapshot, sim)
    assert m.kind == "similar" and m.similarity > 0.7  # without context: a look-alike line
    (m,) = align(added, (), snapshot, sim, taken=Counter(["a = foo ( x )", "b = foo ( y )"]))
    assert m.similarity == 0.0  # both look-alikes are the function's unchanged lines


def test_an_added_duplicate_needs_its_own_copy() -> None:
    """Regression: a fix that adds a second copy of an existing line was called present when
    the snapshot held only the first copy (9 false positives in 500 synthetic instances)."""
    dup = "assert result . name == expected . name"
    context = Counter([dup, "result = f ( )"])
    (m,) = align(lines(dup), (), loc("result = f ( )", dup), ExactSimilarity(), taken=context)
    assert m.kind == "pre-patch" and m.similarity == 0.0
    (m,) = align(lines(dup), (), loc("result = f ( )", dup, dup), ExactSimilarity(), taken=context)
    assert m.kind == "exact" and m.similarity == 1.0


def test_no_candidates() -> None:
    (m,) = align(lines("x = 1"), (), loc(), LexicalSimilarity())
    assert m.kind == "unmatched" and m.snapshot_line is None


def test_one_name_with_several_bodies_is_searched_whole(tmp_path) -> None:  # noqa: ANN001
    """Regression (real histories): a property's setter shares its getter's qualified name; the
    block must be looked for in both bodies, not only in the first one."""
    import subprocess

    from benchchecker_plugin.repos import Snapshot
    from benchchecker_plugin.stage2 import SnapshotIndex, localize
    from benchchecker_plugin.stage2.patch import PatchBlock

    src = ("class A:\n    @property\n    def name(self):\n        return self._name\n\n"
           "    @name.setter\n    def name(self, value):\n        self._name = validate(value)\n")
    (tmp_path / "a.py").write_text(src)
    env = {"GIT_AUTHOR_DATE": "2023-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2023-01-01T00:00:00Z",
           "PATH": "/usr/bin:/bin"}
    for cmd in (["init", "-q"], ["add", "-A"],
                ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x"]):
        subprocess.run(["git", "-C", str(tmp_path), *cmd], check=True, env=env)
    snap = Snapshot.at(tmp_path, "2024-01-01")
    added = lines("self . _name = validate ( value )")
    block = PatchBlock("a.py", None, "python", "A.name", "tree", added, ())
    found = localize(block, SnapshotIndex(snap), base_commit=None)
    snap.close()
    assert found is not None and found.how == "same-name"
    texts = [ln.text for ln in found.lines]
    assert "return self . _name" in texts and "self . _name = validate ( value )" in texts


def test_a_deleted_method_is_looked_for_in_its_class_not_in_a_namesake(tmp_path) -> None:  # noqa: ANN001
    """Regression (pytest-dev__pytest-6197, the own fix snapshot check): a patch deleting
    Module.__init__ was localised to Package.__init__ of the same file, whose lines look alike,
    and read pre-patch only at the very commit holding the fix. A deleted method is looked for
    in its own class: gone from there, the deletion is present."""
    import subprocess

    from benchchecker_plugin.repos import Snapshot
    from benchchecker_plugin.stage2 import SnapshotIndex, localize
    from benchchecker_plugin.stage2.decide import Category, block_result
    from benchchecker_plugin.stage2.patch import PatchBlock

    init = ("    def __init__(self, fspath, parent=None):\n"
            "        if fspath.basename == '__init__.py':\n"
            "            self._ALLOW_MARKERS = False\n"
            "        FSCollector.__init__(self, fspath, parent=parent)\n")
    fixed = ("class Module(File):\n    def _getobj(self):\n        return self._importtestmodule()\n\n"
             "class Package(Module):\n" + init + "        self.name = fspath.dirname\n")
    (tmp_path / "python.py").write_text(fixed)
    env = {"GIT_AUTHOR_DATE": "2023-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2023-01-01T00:00:00Z",
           "PATH": "/usr/bin:/bin"}
    for cmd in (["init", "-q"], ["add", "-A"],
                ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x"]):
        subprocess.run(["git", "-C", str(tmp_path), *cmd], check=True, env=env)
    snap = Snapshot.at(tmp_path, "2024-01-01")
    removed = lines("def __init__ ( self , fspath , parent = None ) :",
                    "if fspath . basename == '__init__.py' :", "self . _ALLOW_MARKERS = False",
                    "FSCollector . __init__ ( self , fspath , parent = parent )")
    block = PatchBlock("python.py", "python.py", "python", "Module.__init__", "tree", (), removed)
    found = localize(block, SnapshotIndex(snap), base_commit=None)
    snap.close()
    assert found is not None and (found.scope, found.how) == ("Module", "same-name")
    texts = {ln.text for ln in found.lines}
    assert not texts & {ln.text for ln in removed}     # Package.__init__'s look-alikes are not there
    result = block_result(block, found, (), tuple(0.0 for _ in removed))
    assert result.category is Category.PRESENT
