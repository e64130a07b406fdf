"""Issue 39 item 8 (``--dry-run`` gaps), run as a user runs it: the installed ``benchchecker``
command, offline, on the real SWE-bench Verified instances (and a package index made on disk).

Before: ``repos fetch --from-releases --dry-run`` was refused, ``patch-presence`` had no
``--dry-run``, and ``check --dry-run`` without ``--repos-dir`` announced Stage I/II and then ran
Stage II in full. Each now prints what it would do and writes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import SHARED_DATA, require_shared_data
from tests.helpers.git_history import BUGGY, FIXED, PATCH
from tests.helpers.local_index import LocalIndex

VERIFIED = SHARED_DATA / "swebench_verified" / "swebench_verified_composite.jsonl"
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "BENCHCHECKER_PROGRESS": "0"}


def _benchchecker(args: list[object], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["benchchecker", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, **OFFLINE))


def _files(folder: Path) -> list[Path]:
    return sorted(p.relative_to(folder) for p in folder.rglob("*"))


def test_repos_fetch_from_releases_dry_run_lists_and_writes_nothing(tmp_path: Path) -> None:
    index = LocalIndex(tmp_path / "index")
    index.add("calc", "1.0", "2022-01-10T10:00:00Z", {"calc.py": BUGGY})
    index.add("calc", "2.0", "2023-02-10T10:00:00Z", {"calc.py": FIXED})
    (tmp_path / "insts.jsonl").write_text(json.dumps({
        "instance_id": "o__calc-7", "repo": "o/calc", "base_commit": "0" * 40, "patch": PATCH,
        "created_at": "2021-12-01T00:00:00Z"}) + "\n")
    (tmp_path / "cutoffs.json").write_text(json.dumps({"m": "2022-03"}))
    before = _files(tmp_path)
    proc = _benchchecker(["repos", "fetch", "--instances", "insts.jsonl", "--into", "releases",
                          "--from-releases", "calc", "--index-url", index.file_url, "--cutoffs",
                          "cutoffs.json", "--dry-run"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "would fetch  o/calc <- calc: " in proc.stdout
    assert proc.stderr.strip().splitlines()[-1].startswith("dry run: ")
    assert "nothing was downloaded or written" in proc.stderr
    assert _files(tmp_path) == before


def test_patch_presence_dry_run_counts_pairs_and_writes_nothing(tmp_path: Path) -> None:
    require_shared_data("swebench_verified")
    (tmp_path / "clones").mkdir()
    proc = _benchchecker(["patch-presence", "--instances", VERIFIED, "--repos-dir", "clones",
                          "--cutoff", "2024-01", "--dry-run", "-o", "s2.jsonl"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "dry run: 500 instance(s) x 1 model cutoff(s) = 500 pair(s) over 12 repositor(y/ies)"
    assert lines[-1] == ("nothing was read or written; 12 repositor(y/ies) missing: their instances "
                         "would be errors (undecided)")
    assert "  django/django: 231 instance(s); MISSING under clones (benchchecker repos fetch)" in lines
    assert _files(tmp_path) == [Path("clones")]


@pytest.mark.slow   # check reads and samples the 500 instances (~11 s)
def test_check_dry_run_without_clones_skips_stage_ii_and_writes_nothing(tmp_path: Path) -> None:
    require_shared_data("swebench_verified")
    proc = _benchchecker(["check", "--cutoff", "2024-06", "--benchmarks", "swe-bench-verified",
                          "--data", f"swe-bench-verified={VERIFIED}", "--dry-run", "-o", "report"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "-> swe-bench-verified: Stage I and II skipped (no --repos-dir)" in proc.stderr
    assert "Stage II (patch presence)" not in proc.stderr
    assert proc.stdout.startswith("dry run:")
    assert _files(tmp_path) == []
