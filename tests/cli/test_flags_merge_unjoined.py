"""`flags merge` says when the records it was asked to join do not meet, under every policy."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import ContaminationFlag, write_flags


@pytest.mark.parametrize("policy", ["any", "all", "majority", "benchchecker"])
def test_records_that_do_not_meet_are_counted_per_file(tmp_path: Path, policy: str) -> None:
    a = write_flags(tmp_path / "stage1.jsonl", [
        ContaminationFlag("repo", "psf/requests", "m", "benchchecker.stage1", False, 0.0)])
    b = write_flags(tmp_path / "stage2.jsonl", [
        ContaminationFlag("swe-bench-verified", "psf__requests-1", "m", "benchchecker.stage2", True, 1.0),
        ContaminationFlag("swe-bench-verified", "psf__requests-2", "m", "benchchecker.stage2", False, 0.0)])
    res = CliRunner().invoke(main, ["flags", "merge", str(a), str(b), "-o", str(tmp_path / "m.jsonl"),
                                    "--policy", policy])
    assert res.exit_code == 0, res.output
    assert (f"warning: 1 of 1 instances in {a} meet no record of the other files (benchmark repo here, "
            "swe-bench-verified there): their verdicts hear this file only") in res.stderr
    assert f"warning: 2 of 2 instances in {b} meet no record" in res.stderr


def test_records_that_meet_draw_no_warning(tmp_path: Path) -> None:
    a = write_flags(tmp_path / "a.jsonl", [ContaminationFlag("mmlu", "q1", "m", "ts_guessing.multichoice", True, 1.0)])
    b = write_flags(tmp_path / "b.jsonl", [ContaminationFlag("mmlu", "q1", "m", "benchchecker.overlap", False, 0.0)])
    res = CliRunner().invoke(main, ["flags", "merge", str(a), str(b), "-o", str(tmp_path / "m.jsonl")])
    assert res.exit_code == 0, res.output
    assert "meet no record" not in res.stderr
