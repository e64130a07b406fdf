"""Issue 27: the leaderboard's inputs and outputs. ``--out`` into a submission folder overwrote
its README.md; one results file was named "results"; a run killed mid-write left files of two
runs side by side."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from benchchecker_plugin.flags import ContaminationFlag, write_flags
from benchchecker_plugin.leaderboard import load_submissions

IDS = [f"a__b-{i}" for i in range(30)]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def board(tmp_path: Path) -> dict[str, Path]:
    """An experiments folder with one submission (results, metadata, its own README.md) and flags."""
    sub = tmp_path / "verified" / "20240101_agent"
    (sub / "results").mkdir(parents=True)
    (sub / "results" / "results.json").write_text(json.dumps({"resolved": IDS[:12]}))
    (sub / "metadata.yaml").write_text("info:\n  name: Agent\ntags:\n  model: m\n")
    (sub / "README.md").write_text("# Agent: how the submission was made\n")
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag("swe-bench-verified", iid, "m", "test", i % 3 == 0, 1.0)
        for i, iid in enumerate(IDS)])
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(IDS))
    return {"root": tmp_path / "verified", "sub": sub, "flags": flags, "ids": ids}


def _argv(board: dict[str, Path], submissions: Path, out: Path) -> list[str]:
    return ["leaderboard", "--submissions", str(submissions), "--flags", str(board["flags"]),
            "--instances", str(board["ids"]), "--n-boot", "20", "--out", str(out)]


@pytest.mark.parametrize("which", ["results/results.json", "results", "."])
def test_one_submission_is_named_after_its_folder(board: dict[str, Path], which: str) -> None:
    subs = load_submissions(board["sub"] / which)
    assert [(s.name, s.model, s.display_name) for s in subs] == [("20240101_agent", "m", "Agent")]


def test_a_lone_results_json_run_report_is_named_after_its_folder(tmp_path: Path) -> None:
    run = tmp_path / "my_run"
    run.mkdir()
    (run / "results.json").write_text(json.dumps({"resolved_ids": IDS[:3]}))
    (tmp_path / "gpt-4.run1.json").write_text(json.dumps({"resolved_ids": IDS[:3]}))
    assert [(s.name, s.model) for s in load_submissions(run / "results.json")] == [("my_run", "")]
    assert [(s.name, s.model) for s in load_submissions(tmp_path / "gpt-4.run1.json")] == [
        ("gpt-4.run1", "gpt-4")]
