"""Issue 39 item 4, run as a user runs it: the README's Stage I-per-instance, Stage II and
``flags merge`` lines, as written, on the 8 psf/requests instances of SWE-bench Verified with the
default model. Before, the README's ``repo-presence ... -o stage1.jsonl`` wrote one repository
record (benchmark ``repo``) and ``flags merge stage1.jsonl stage2.jsonl`` joined nothing (29
records -> 29 verdicts). Needs full clones: ``$BENCHCHECKER_CLONES`` (``repos fetch``'s folder)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers import SHARED_DATA, require_shared_data
from tests.helpers.docs import docs_text

REPO = Path(__file__).resolve().parents[2]
VERIFIED = SHARED_DATA / "swebench_verified" / "swebench_verified_composite.jsonl"
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "BENCHCHECKER_PROGRESS": "0"}


def readme_lines() -> dict[str, str]:
    """The README's Stage I per-instance command, its Stage II command for the same model, and
    its merge line, joined across their backslash continuations."""
    text = docs_text().replace("\\\n", " ")
    lines = [" ".join(ln.split()) for ln in text.splitlines()]
    stage1 = next(ln for ln in lines if ln.startswith("benchchecker repo-presence") and "--instances" in ln)
    stage2 = next(ln for ln in lines if ln.startswith("benchchecker patch-presence")
                  and "--model hf/smollm2-135m" in ln)
    merge = next(ln for ln in lines if ln.startswith("benchchecker flags merge stage1.jsonl stage2.jsonl"))
    return {"stage1": stage1, "stage2": stage2, "merge": merge}


def test_the_readme_merges_per_instance_stage1_with_stage2() -> None:
    got = readme_lines()
    assert "-o stage1.jsonl" in got["stage1"] and "-o stage2.jsonl" in got["stage2"]
    assert "--instances verified.jsonl" in got["stage1"] and "--instances verified.jsonl" in got["stage2"]
    cutoff = re.compile(r"--cutoff (\S+)")
    assert cutoff.search(got["stage1"]).group(1) == cutoff.search(got["stage2"]).group(1)


@pytest.mark.slow
@pytest.mark.model
def test_the_readme_lines_join(tmp_path: Path) -> None:
    clones = os.environ.get("BENCHCHECKER_CLONES")
    if not clones or not (Path(clones) / "psf__requests").is_dir():
        pytest.skip("set BENCHCHECKER_CLONES to a folder of full clones holding psf__requests/")
    require_shared_data("swebench_verified")
    rows = [json.loads(x) for x in VERIFIED.read_text().splitlines()]
    mine = [r for r in rows if r["repo"] == "psf/requests"]
    (tmp_path / "verified.jsonl").write_text("".join(json.dumps(r) + "\n" for r in mine))
    (tmp_path / "clones").symlink_to(Path(clones).resolve())
    for key, line in readme_lines().items():
        proc = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True,
                              timeout=1800, env=dict(os.environ, **OFFLINE))
        assert proc.returncode == 0, (key, proc.stderr[-2000:])
    said = proc.stdout + proc.stderr
    summary = said.strip().splitlines()[-1]
    n = len(mine)
    assert summary.startswith(f"{2 * n} records from 2 file(s) -> {n} merged verdicts"), summary
    assert "meet no record" not in said, said
    merged = [json.loads(x) for x in (tmp_path / "merged.jsonl").read_text().splitlines()]
    assert all(set(m["evidence"]["methods"]) == {"benchchecker.stage1", "benchchecker.stage2"} for m in merged)
