"""Line alignment rules: exact, similar, pre-patch, context lines and duplicates."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

from benchchecker_plugin.repos import Snapshot
from benchchecker_plugin.stage2 import ExactSimilarity, LexicalSimilarity, Location, LogicalLine, align


def lines(*texts: str) -> tuple[LogicalLine, ...]:
    return tuple(LogicalLine(i, i, t, t) for i, t in enumerate(texts))


def loc(*texts: str) -> Location:
    return Location("a.py", "f", "same-name", lines(*texts))


def snapshot_of(repo: Path, files: dict[str, str]) -> Snapshot:
    """A one-commit git repository at ``repo`` holding ``files``, read as a snapshot."""
    repo.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (repo / name).write_text(text)
    env = {"GIT_AUTHOR_DATE": "2023-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2023-01-01T00:00:00Z",
           "PATH": "/usr/bin:/bin"}
    for cmd in (["init", "-q"], ["add", "-A"],
                ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x"]):
        subprocess.run(["git", "-C", str(repo), *cmd], check=True, env=env)
    return Snapshot.at(repo, "2024-01-01")


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
    from benchchecker_plugin.stage2 import PatchBlock, SnapshotIndex, localize

    src = ("class A:\n    @property\n    def name(self):\n        return self._name\n\n"
           "    @name.setter\n    def name(self, value):\n        self._name = validate(value)\n")
    snap = snapshot_of(tmp_path, {"a.py": src})
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
    from benchchecker_plugin.stage2 import PatchBlock, SnapshotIndex, localize
    from benchchecker_plugin.stage2._decide import Category, block_result

    init = ("    def __init__(self, fspath, parent=None):\n"
            "        if fspath.basename == '__init__.py':\n"
            "            self._ALLOW_MARKERS = False\n"
            "        FSCollector.__init__(self, fspath, parent=parent)\n")
    fixed = ("class Module(File):\n    def _getobj(self):\n        return self._importtestmodule()\n\n"
             "class Package(Module):\n" + init + "        self.name = fspath.dirname\n")
    snap = snapshot_of(tmp_path, {"python.py": fixed})
    removed = lines("def __init__ ( self , fspath , parent = None ) :",
                    "if fspath . basename == '__init__.py' :", "self . _ALLOW_MARKERS = False",
                    "FSCollector . __init__ ( self , fspath , parent = parent )")
    block = PatchBlock("python.py", "python.py", "python", "Module.__init__", "tree", (), removed)
    found = localize(block, SnapshotIndex(snap), base_commit=None)
    # with the post-patch file known to lack Module.__init__: gone from its class, no lines
    from benchchecker_plugin.stage2 import parse_source
    gone = localize(block, SnapshotIndex(snap), base_commit=None, post=parse_source(fixed, "python"))
    snap.close()
    assert gone is not None and (gone.scope, gone.how, gone.lines) == ("Module", "scope-gone", ())
    assert block_result(block, gone, (), ()).category is Category.PRESENT
    assert found is not None and (found.scope, found.how) == ("Module", "same-name")
    texts = {ln.text for ln in found.lines}
    assert not texts & {ln.text for ln in removed}     # Package.__init__'s look-alikes are not there
    result = block_result(block, found, (), tuple(0.0 for _ in removed))
    assert result.category is Category.PRESENT


def test_a_deleted_module_function_is_looked_for_in_its_module(tmp_path) -> None:  # noqa: ANN001
    """Regression (pure-deletion misses at the own fix snapshot): a patch deleting a whole
    module-level function was 'file-or-function-gone' wherever the function was gone, or matched a
    namesake in another file. When the post-patch file no longer has the function, it is looked
    for in its own module: gone from there, the deletion is present (no lines compared: a
    look-alike line elsewhere is not the function); still there, pre-patch."""
    from benchchecker_plugin.stage2 import PatchBlock, SnapshotIndex, localize, parse_source
    from benchchecker_plugin.stage2._decide import Category, block_result
    from benchchecker_plugin.stage2._judge import _removed_found

    helper = "def legacy_quote(value):\n    escaped = value.replace('\"', '\\\\\"')\n    return escaped\n"
    kept = "def quote(value):\n    return repr(value)\n"

    def snapshot(text: str, where: str) -> Snapshot:   # a namesake elsewhere is not the deleted function
        return snapshot_of(tmp_path / where, {"util.py": text, "other.py": helper})

    removed = lines("def legacy_quote ( value ) :", "escaped = value . replace ( '\"' , '\\\\\"' )",
                    "return escaped")
    block = PatchBlock("util.py", "util.py", "python", "legacy_quote", "tree", (), removed)
    post = parse_source(kept, "python")
    for text, want in ((kept, Category.PRESENT), (kept + "\n\n" + helper, Category.PRE_PATCH_ONLY)):
        snap = snapshot(text, want.value)
        found = localize(block, SnapshotIndex(snap), base_commit=None, post=post)
        assert found is not None and found.path == "util.py"
        assert (found.scope, found.how) == ((None, "scope-gone") if want is Category.PRESENT
                                            else ("legacy_quote", "same-name"))
        still = _removed_found(block.removed, found, ExactSimilarity())
        snap.close()
        assert block_result(block, found, (), still).category is want
    # without the post-patch file (not known to delete the whole function): the old search
    snap = snapshot(kept, "unknown")
    found = localize(block, SnapshotIndex(snap), base_commit=None)
    snap.close()
    assert found is None or found.how != "module"


def test_a_deleted_method_gone_from_its_class_is_present_despite_look_alike_lines(tmp_path) -> None:  # noqa: ANN001
    """Regression (matplotlib__matplotlib-26342 at its own fix snapshot): the fix moves
    ``set_paths`` from PathCollection up to Collection. The deleted PathCollection.set_paths was
    compared line by line with the class, whose ``self.stale = True`` and ``def get_paths`` look
    like its lines, and read pre-patch only. Gone from its class, it is present."""
    from benchchecker_plugin.stage2 import PatchBlock, SnapshotIndex, localize, parse_source
    from benchchecker_plugin.stage2._decide import Category, block_result
    from benchchecker_plugin.stage2._judge import _removed_found

    fixed = ("class Collection:\n    def set_paths(self, paths):\n        self._paths = paths\n"
             "        self.stale = True\n\n\nclass PathCollection(Collection):\n"
             "    def __init__(self, paths):\n        self._paths = None\n        self.stale = True\n\n"
             "    def get_paths(self):\n        return self._paths\n")
    snap = snapshot_of(tmp_path, {"collections.py": fixed})
    removed = lines("def set_paths ( self , paths ) :", "self . _paths = paths", "self . stale = True")
    block = PatchBlock("collections.py", "collections.py", "python", "PathCollection.set_paths", "tree", (),
                       removed)
    index = SnapshotIndex(snap)
    old = localize(block, index, base_commit=None)                       # without the post-patch file
    assert old is not None and old.how == "same-name"
    assert block_result(block, old, (), _removed_found(removed, old, LexicalSimilarity())).category \
        is Category.PRE_PATCH_ONLY                                          # the look-alikes: the old miss
    found = localize(block, index, base_commit=None, post=parse_source(fixed, "python"))
    snap.close()
    assert found is not None and (found.scope, found.how, found.lines) == ("PathCollection", "scope-gone", ())
    assert block_result(block, found, (), _removed_found(removed, found, LexicalSimilarity())).category \
        is Category.PRESENT
