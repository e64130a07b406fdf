"""Every staged Multi-SWE-bench fix parses without its repository (fragment mode), each changed
code file gets a registered language, and some blocks of every language find their scope in the
syntax tree: every fix in the slow tier, a seeded sample of each language in the fast tier.
Skipped when ../shared/data is not staged."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from benchchecker_plugin.instances import load_instances
from benchchecker_plugin.repos import detect_language
from benchchecker_plugin.stage2 import get_language, parse_patch
from tests.helpers import SHARED_DATA, SWEEP, needs_shared_data, sweep

MSB = SHARED_DATA / "multi_swe_bench" / "instances"
_FILE = re.compile(r"^diff --git a/\S+ b/(\S+)", re.M)
_CODE = {".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
         ".go": "go", ".java": "java", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
         ".jsx": "javascript", ".ts": "typescript", ".tsx": "tsx", ".rs": "rust", ".py": "python"}


@needs_shared_data("multi_swe_bench", "instances")
@pytest.mark.parametrize("folder", ["c", "cpp", "go", "java", "js", "rust", "ts"])
@SWEEP
def test_every_fix_patch_parses_with_its_languages(folder: str, whole: bool) -> None:
    insts = load_instances(MSB / folder)
    assert insts
    scopes: Counter[str] = Counter()
    for inst in sweep(insts, whole):
        blocks = parse_patch(inst.patch, instance_id=inst.instance_id)  # raises DataError on failure
        assert blocks, inst.instance_id
        for path in _FILE.findall(inst.patch):
            suffix = Path(path).suffix.lower()
            if suffix in _CODE:
                assert detect_language(path) == _CODE[suffix], path
                assert get_language(detect_language(path)) is not None, path
        for block in blocks:
            if get_language(block.language) is not None:
                assert block.scope_from in ("tree", "hunk-header", "none")
                scopes[block.scope_from] += 1
    assert scopes["tree"] > 0, scopes
