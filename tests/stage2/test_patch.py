"""Gold patches -> blocks: scopes, logical lines, refusals; every staged gold patch parses."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.instances import load_instances
from benchchecker_plugin.stage2 import parse_patch
from benchchecker_plugin.stage2._patch import apply_patch_to_text
from tests.helpers import SWEEP, sweep

PRE = """import os


class Box:
    def area(self, w, h):
        if w < 0:
            raise ValueError(w)
        total = compute(w,
                        h)
        return total


def other():
    return 1
"""

DIFF = """diff --git a/pkg/box.py b/pkg/box.py
--- a/pkg/box.py
+++ b/pkg/box.py
@@ -5,7 +5,7 @@ class Box:
     def area(self, w, h):
         if w < 0:
             raise ValueError(w)
-        total = compute(w,
+        total = compute(abs(w),
                         h)
         return total
 
"""


def test_whole_file_mode_gives_logical_lines_and_the_enclosing_function() -> None:
    posts: dict = {}
    (block,) = parse_patch(DIFF, instance_id="i-1", read_pre=lambda p: PRE, posts=posts)
    assert block.path == block.source_path == "pkg/box.py"
    assert block.scope == "Box.area" and block.scope_from == "tree"
    assert [ln.text for ln in block.added] == ["total = compute ( abs ( w ) , h )"]
    assert [ln.text for ln in block.removed] == ["total = compute ( w , h )"]
    assert (block.added[0].start, block.added[0].end) == (7, 8)  # the statement's two rows
    assert "compute(abs(w)," in posts["pkg/box.py"].text


def test_fragment_mode_without_the_files() -> None:
    (block,) = parse_patch(DIFF, instance_id="i-1")
    assert block.scope == "area" and block.scope_from == "tree"  # the def is inside the hunk
    assert [ln.text for ln in block.added] == ["total = compute ( abs ( w ) , h )"]
    short = DIFF.replace("@@ -5,7 +5,7 @@ class Box:\n     def area(self, w, h):\n",
                         "@@ -6,6 +6,6 @@ def area(self, w, h):\n")
    (block,) = parse_patch(short, instance_id="i-1")
    assert block.scope == "area" and block.scope_from == "hunk-header"


def test_apply_patch_checks_context() -> None:
    from unidiff import PatchSet

    pfile = PatchSet(DIFF)[0]
    assert "abs(w)" in apply_patch_to_text(PRE, pfile)
    with pytest.raises(DataError, match=r"instance 'i-9': pkg/box.py line 8 differs"):
        apply_patch_to_text(PRE.replace("compute(w,", "compute(q,"), pfile, "i-9")


@pytest.mark.parametrize("diff, message", [
    ("", r"instance 'bad': empty patch"),
    ("this is not a diff\n", r"instance 'bad': malformed diff: no file headers"),
    ("--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a\n", r"instance 'bad': malformed diff"),
    ("diff --git a/x.png b/x.png\nindex 1..2 100644\nBinary files a/x.png and b/x.png differ\n",
     r"instance 'bad': binary diff for 'x.png'"),
    ("--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
     r"instance 'bad': diff path '../etc/passwd' is absolute or leaves the repository \(refused\)"),
    ("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
     r"instance 'bad': diff path '/etc/passwd' is absolute"),
])
def test_bad_diffs_are_refused_naming_the_instance(diff: str, message: str) -> None:
    with pytest.raises(DataError, match=message):
        parse_patch(diff, instance_id="bad")


def test_java_block_scope() -> None:
    pre = "class A {\n  int f(int x) {\n    return x + 1;\n  }\n}\n"
    diff = ("--- a/A.java\n+++ b/A.java\n@@ -1,5 +1,5 @@\n class A {\n   int f(int x) {\n"
            "-    return x + 1;\n+    return x + 2;\n   }\n }\n")
    (block,) = parse_patch(diff, instance_id="j", read_pre=lambda p: pre)
    assert block.scope == "A.f" and block.language == "java"
    assert [ln.text for ln in block.added] == ["return x + 2 ;"]


@SWEEP
def test_every_staged_gold_patch_parses_into_blocks(shared_data: Path, whole: bool) -> None:
    """Acceptance: every gold patch of the three staged benchmarks parses; counts pinned (the fast
    tier parses a seeded sample of each)."""
    sources = {
        "swebench": (shared_data / "swebench_verified" / "swebench_verified_composite.jsonl", 500),
        "bugsinpy": (shared_data / "bugsinpy", 501),
        "defects4j": (shared_data / "defects4j", 854),
    }
    failures: dict[str, list[str]] = {}
    counts: dict[str, tuple[int, int]] = {}
    for name, (src, expected) in sources.items():
        insts = load_instances(src)
        assert len(insts) == expected
        nblocks = 0
        for inst in sweep(insts, whole, k=40):
            try:
                blocks = parse_patch(inst.patch, instance_id=inst.instance_id)
            except DataError as exc:
                failures.setdefault(name, []).append(str(exc))
                continue
            assert blocks, inst.instance_id
            nblocks += len(blocks)
        counts[name] = (len(insts), nblocks)
    # the one failure: BugsInPy keras-12's bug_patch.txt is an empty file upstream
    known = {"bugsinpy": ["instance 'keras-12': empty patch"]}
    if not whole:   # the sample holds keras-12 or not
        assert all(failures[name] == known.get(name) for name in failures), failures
        return
    assert failures == known
    assert counts["swebench"][1] >= 1400 and counts["bugsinpy"][1] >= 1900 and counts["defects4j"][1] >= 2700


# --- hunks found at an offset, as `git apply` finds them (issue 19) ---------------------------

BASE = "\n".join([
    '"""Module."""', "import os", "", "", "def f1(x):", "    y = x + 1", "    return y", "", "",
    *[f"# note {i}" for i in range(10)], "", "",
    "def f2(x):", "    if x:", "        return 2", "    return 0", "", "",
    *[f"# more {i}" for i in range(10)], "", "",
    "class K:", "    def m(self, v):", "        total = v * 2", "        return total", "",
])
EDITS = [("y = x + 1", "y = x + 10"), ("return 2", "return 20"),
         ("total = v * 2", "total = compute(v,\n                        2)")]


def _edit(text: str) -> str:
    for old, new in EDITS:
        text = text.replace(old, new)
    return text


def _shifted(text: str) -> str:
    """``text`` with 3 rows added before hunk 1, 5 removed before hunk 2, 4 added before hunk 3."""
    rows = text.split("\n")
    top = rows.index("import os") + 1
    rows[top:top] = ["import re", "import sys", "import json"]
    cut = rows.index("# note 3")
    del rows[cut:cut + 5]
    mid = rows.index("# more 5")
    rows[mid:mid] = [f"# extra {i}" for i in range(4)]
    return "\n".join(rows)


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


def _git_diff(tmp_path: Path, before: str, after: str) -> str:
    """A real ``git diff`` of ``pkg/mod.py`` from ``before`` to ``after``."""
    repo = tmp_path / "diffrepo"
    shutil.rmtree(repo, ignore_errors=True)
    (repo / "pkg").mkdir(parents=True)
    _run(repo, "init", "-q")
    (repo / "pkg" / "mod.py").write_text(before)
    _run(repo, "add", "-A")
    (repo / "pkg" / "mod.py").write_text(after)
    return _run(repo, "diff").stdout


def _git_apply(tmp_path: Path, base: str, diff: str, *flags: str, name: str = "pkg/mod.py") -> str | None:
    """The file ``git apply`` writes from ``base`` and ``diff``; ``None`` when ``--check`` refuses."""
    repo = tmp_path / "applyrepo"
    shutil.rmtree(repo, ignore_errors=True)
    (repo / name).parent.mkdir(parents=True)
    _run(repo, "init", "-q")
    (repo / name).write_text(base)
    (tmp_path / "p.diff").write_text(diff)
    if _run(repo, "apply", "--check", *flags, str(tmp_path / "p.diff")).returncode != 0:
        return None
    assert _run(repo, "apply", *flags, str(tmp_path / "p.diff")).returncode == 0
    return (repo / name).read_text()


def _shape(blocks) -> list:  # noqa: ANN001
    return [(b.path, b.scope, [(ln.start, ln.end, ln.text) for ln in b.added],
             [(ln.start, ln.end, ln.text) for ln in b.removed]) for b in blocks]


def test_hunks_at_an_offset_give_the_blocks_of_the_exact_diff(tmp_path: Path) -> None:
    """Regression (issue 19): a gold patch whose hunks sit +3, -2 and +2 rows from their stated
    lines (as sphinx-7462, sympy-12489, sympy-13877 do at their base commits) parses like the same
    change diffed at the exact lines, rows taken where the hunks were found."""
    base = _shifted(BASE)
    offset_diff = _git_diff(tmp_path, BASE, _edit(BASE))
    exact_diff = _git_diff(tmp_path, base, _edit(base))
    assert offset_diff != exact_diff
    assert _git_apply(tmp_path, base, offset_diff) == _edit(base)  # git applies it, offsets and all
    posts_off: dict = {}
    posts_exact: dict = {}
    off = parse_patch(offset_diff, instance_id="i-19", read_pre=lambda p: base, posts=posts_off)
    exact = parse_patch(exact_diff, instance_id="i-19", read_pre=lambda p: base, posts=posts_exact)
    assert _shape(off) == _shape(exact) and len(off) == 3
    assert [b.scope for b in off] == ["f1", "f2", "K.m"]
    assert [b.offset for b in off] == [3, -2, 2] and [b.offset for b in exact] == [0, 0, 0]
    assert posts_off["pkg/mod.py"].text == posts_exact["pkg/mod.py"].text
    rows = _edit(base).split("\n")
    (multi,) = off[2].added  # the two-row statement, at its rows in the post-patch file
    assert rows[multi.start].strip() == "total = compute(v," and multi.end == multi.start + 1


def test_context_found_nowhere_is_refused_like_git(tmp_path: Path) -> None:
    """A context row changed in the base file: found at no offset, refused as git refuses it,
    with the message naming the first row that differs at the stated line."""
    from unidiff import PatchSet

    diff = _git_diff(tmp_path, BASE, _edit(BASE))
    (ctx,) = [ln for ln in PatchSet(diff)[0][1] if ln.value == "    if x:\n"]
    for base, line in ((BASE, str(ctx.source_line_no)), (_shifted(BASE), r"\d+")):
        base = base.replace("    if x:", "    if x is not None:")
        assert _git_apply(tmp_path, base, diff) is None
        with pytest.raises(DataError, match=rf"instance 'i-19': pkg/mod.py line {line} differs "
                                            r"from the patch context \(wrong base file\?\)"):
            parse_patch(diff, instance_id="i-19", read_pre=lambda p, b=base: b)


def _rows(n: int, block_at: tuple[int, ...] = ()) -> str:
    rows = [f"row {i}" for i in range(n)]
    for s in block_at:
        rows[s:s + 7] = ["c1", "c2", "c3", "OLD", "c4", "c5", "c6"]
    return "\n".join(rows) + "\n"


def _hunks(*hunks: str) -> str:
    return "--- a/f.txt\n+++ b/f.txt\n" + "".join(hunks)


DUP = " c1\n c2\n c3\n-OLD\n+NEW\n c4\n c5\n c6\n"


@pytest.mark.parametrize("base, diff, flags", [
    (_rows(30, (4, 20)), _hunks("@@ -16,7 +16,7 @@\n" + DUP), ()),  # the nearer copy, after
    (_rows(30, (4, 20)), _hunks("@@ -10,7 +10,7 @@\n" + DUP), ()),  # the nearer copy, before
    (_rows(30, (4, 14)), _hunks("@@ -10,7 +10,7 @@\n" + DUP), ()),  # a tie: git looks ahead first
    (_rows(30), _hunks("@@ -8,3 +8,3 @@\n row 5\n-row 6\n+VI\n row 7\n",
                       "@@ -18,3 +18,3 @@\n row 20\n-row 21\n+XXI\n row 22\n"), ()),  # -2 then +3
    (_rows(30), _hunks("@@ -20,3 +20,3 @@\n row 19\n-row 20\n+XX\n row 21\n",
                       "@@ -5,3 +5,3 @@\n row 4\n-row 5\n+V\n row 6\n"), ()),  # out of order
    (_rows(10), _hunks("@@ -1,4 +1,4 @@\n row 0\n-row 1\n+I\n row 2\n row 3\n",
                       "@@ -3,4 +3,4 @@\n row 2\n row 3\n-row 4\n+IV\n row 5\n"), ()),  # overlap
    ("z\n" + _rows(6), _hunks("@@ -1,3 +1,3 @@\n row 0\n-row 1\n+I\n row 2\n"), ()),  # must start
    (_rows(6), _hunks("@@ -3,3 +3,3 @@\n row 3\n row 4\n-row 5\n+V\n"), ()),  # must end (+1)
    (_rows(7), _hunks("@@ -3,3 +3,3 @@\n row 3\n row 4\n-row 5\n+V\n"), ()),  # must end, is not
    ("a\nb\nc\nrow 4\nrow 5", _hunks("@@ -2,2 +2,2 @@\n row 4\n-row 5\n\\ No newline at end of file\n"
                                       "+V\n\\ No newline at end of file\n"), ()),  # no newline, +2
    (_rows(8), _hunks("@@ -3,0 +4 @@\n+NEW\n"), ("--unidiff-zero",)),  # no context at all
    (_rows(8), _hunks("@@ -3 +3 @@\n-row 4\n+IV\n"), ("--unidiff-zero",)),  # ... found at +2
    (_rows(8), _hunks("@@ -3 +3 @@\n-absent\n+IV\n"), ("--unidiff-zero",)),  # ... found nowhere
])
def test_hunks_are_located_as_git_apply_locates_them(tmp_path: Path, base: str, diff: str,
                                                     flags: tuple[str, ...]) -> None:
    """Same verdict and same text as real ``git apply`` (context-free hunks: ``--unidiff-zero``)."""
    from unidiff import PatchSet

    expected = _git_apply(tmp_path, base, diff, *flags, name="f.txt")
    try:
        ours = apply_patch_to_text(base, PatchSet(diff)[0], "g")
    except DataError as exc:
        assert "instance 'g'" in str(exc) and "f.txt" in str(exc)
        ours = None
    assert ours == expected


def test_a_run_is_split_by_the_function_of_each_line(tmp_path: Path) -> None:
    """Regression (real histories): a run that adds a new function after another one's end, and
    a nested helper beside the line that calls it, were one block scoped by the first row, so
    the new function was looked for inside the old one."""
    before = ("def old(x):\n    return x + 1\n\n\ndef user(v):\n    total = v * 2\n    return total\n")
    after = ("def old(x):\n    return x + 1\n\n\ndef helper_new(values, scale):\n"
             "    return [value * scale for value in values]\n\n\n"
             "def user(v):\n    def inner_check(item):\n        return item is not None\n"
             "    total = v * 2\n    return total\n")
    diff = _git_diff(tmp_path, before, after)
    blocks = parse_patch(diff, instance_id="i", read_pre=lambda p: before if p == "pkg/mod.py" else None)
    scopes = {b.scope: [ln.text for ln in b.added] for b in blocks}
    assert scopes["helper_new"] == ["def helper_new ( values , scale ) :",
                                    "return [ value * scale for value in values ]"]
    assert scopes["user.inner_check"] == ["def inner_check ( item ) :", "return item is not None"]
    assert "old" not in scopes


def test_blocks_of_one_function_share_their_removed_lines_as_rivals() -> None:
    pre = ("def f(symbols):\n    if symbols and len(symbols) != n:\n        raise ValueError('x')\n"
           "    a = 1\n    b = 2\n    c = 3\n    return g(symbols)\n")
    diff = ("--- a/m.py\n+++ b/m.py\n@@ -1,7 +1,9 @@\n def f(symbols):\n"
            "-    if symbols and len(symbols) != n:\n+    if not symbols:\n+        symbols = default\n"
            "+    elif len(symbols) != n:\n         raise ValueError('x')\n     a = 1\n     b = 2\n"
            "     c = 3\n-    return g(symbols)\n+    return g(list(symbols))\n")
    blocks = parse_patch(diff, instance_id="i", read_pre=lambda p: pre)
    assert len(blocks) == 2 and {b.scope for b in blocks} == {"f"}
    first, second = blocks
    assert [r.text for r in second.rivals] == [r.text for r in first.removed]
    assert [r.text for r in first.rivals] == [r.text for r in second.removed]
