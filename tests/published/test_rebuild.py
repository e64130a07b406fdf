"""The published folder rebuilds from its own bundle alone through the command: every table and
page that ``benchchecker republish --rebuild`` writes equals the committed file, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.cli import main
from benchchecker_plugin.republish import BUNDLE_FILES, PAGE_FILES

REPO = Path(__file__).resolve().parents[2]
PUBLISHED = REPO / "published" / "swebench-verified"


@pytest.mark.slow   # the MDE simulation of every cell (~1 min on 2 cores)
@pytest.mark.skipif(not (PUBLISHED / "build.json").is_file(), reason="no bundle published")
def test_the_page_rebuilt_from_the_folder_alone_equals_the_committed_one(tmp_path: Path) -> None:
    folder = tmp_path / "bundle"
    folder.mkdir()
    for name in BUNDLE_FILES:          # the bundle only: no shared data, no clones, no cache
        if (PUBLISHED / name).exists():
            (folder / name).write_bytes((PUBLISHED / name).read_bytes())
    out = tmp_path / "out"
    main(["republish", "--rebuild", str(folder), "--out", str(out)], standalone_mode=False)
    for name in PAGE_FILES + BUNDLE_FILES:
        if (PUBLISHED / name).exists():
            assert (out / name).read_bytes() == (PUBLISHED / name).read_bytes(), name
