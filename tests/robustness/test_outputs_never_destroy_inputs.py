"""Issue 14, item 3: an output path equal to an input path destroyed the input with exit 0.

Each case runs the command as a user would, with the output pointed at one of its inputs (by the
same path or through a symlink); it must end in one line naming both, exit 2, and leave every
input byte-identical (hashes before and after)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import ContaminationFlag, write_flags


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag("swe-bench-verified", "a__b-1", "*", "test", True, 1.0),
        ContaminationFlag("swe-bench-verified", "a__b-2", "*", "test", False, 0.0)])
    report = tmp_path / "m.run1.json"
    report.write_text(json.dumps({"resolved_ids": ["a__b-1"], "submitted_ids": ["a__b-1", "a__b-2"]}))
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(["a__b-1", "a__b-2"]))
    instances = tmp_path / "instances.jsonl"
    instances.write_text(json.dumps({"instance_id": "a__b-1", "repo": "a/b", "base_commit": "0" * 40,
                                     "patch": "", "created_at": "2023-01-01T00:00:00Z"}) + "\n")
    (tmp_path / "repos").mkdir()
    link = tmp_path / "link.jsonl"
    link.symlink_to(flags)
    return {"flags": flags, "report": report, "ids": ids, "instances": instances,
            "repos": tmp_path / "repos", "link": link}


CASES = {
    "flags merge F -o F": (["flags", "merge", "{flags}", "-o", "{flags}"], "flags"),
    "flags merge F -o link-to-F": (["flags", "merge", "{flags}", "-o", "{link}"], "flags"),
    "rescore --out over the flags": (["rescore", "--results", "{report}", "--flags", "{flags}",
                                      "--instances", "{ids}", "--out", "{flags}"], "flags"),
    "rescore --out over the results": (["rescore", "--results", "{report}", "--flags", "{flags}",
                                        "--instances", "{ids}", "--out", "{report}"], "report"),
    "patch-presence -o over the instances": (["patch-presence", "--instances", "{instances}",
                                              "--repos-dir", "{repos}", "--cutoff", "2024-01-01",
                                              "-o", "{instances}"], "instances"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_output_over_an_input_is_refused(case: str, files: dict[str, Path]) -> None:
    argv, victim = CASES[case]
    before = {k: _sha(p) for k, p in files.items() if p.is_file()}
    res = CliRunner().invoke(main, [a.format(**files) for a in argv])
    assert res.exit_code == 2, res.output
    [line] = [ln for ln in res.stderr.splitlines() if ln.startswith("Error:")]
    assert f"is the input {files[victim]}" in line and "would destroy it" in line
    assert {k: _sha(p) for k, p in files.items() if p.is_file()} == before
