"""Gold patches -> blocks: scopes, logical lines, refusals; every staged gold patch parses."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.instances import load_instances
from benchchecker_plugin.stage2 import parse_patch
from benchchecker_plugin.stage2.patch import apply_patch_to_text

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"

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


@pytest.mark.slow
@pytest.mark.skipif(not DATA.is_dir(), reason="shared data not staged")
def test_every_staged_gold_patch_parses_into_blocks() -> None:
    """Acceptance: every gold patch of the three staged benchmarks parses; counts pinned."""
    sources = {
        "swebench": (DATA / "swebench_verified" / "swebench_verified_composite.jsonl", 500),
        "bugsinpy": (DATA / "bugsinpy", 501),
        "defects4j": (DATA / "defects4j", 854),
    }
    failures: dict[str, list[str]] = {}
    counts: dict[str, tuple[int, int]] = {}
    for name, (src, expected) in sources.items():
        insts = load_instances(src)
        assert len(insts) == expected
        nblocks = 0
        for inst in insts:
            try:
                blocks = parse_patch(inst.patch, instance_id=inst.instance_id)
            except DataError as exc:
                failures.setdefault(name, []).append(str(exc))
                continue
            assert blocks, inst.instance_id
            nblocks += len(blocks)
        counts[name] = (len(insts), nblocks)
    # the one failure: BugsInPy keras-12's bug_patch.txt is an empty file upstream
    assert failures == {"bugsinpy": ["instance 'keras-12': empty patch"]}
    assert counts["swebench"][1] >= 1400 and counts["bugsinpy"][1] >= 1900 and counts["defects4j"][1] >= 2700
