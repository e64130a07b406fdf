"""Issue 39 item 1, run as a user runs it: ``leaderboard`` and ``rescore`` on a 28-instance subset
of SWE-bench Verified (the requests, flask and pytest instances) with the real submissions and
the official ``leaderboards.json``.

Before the fix the leaderboard stopped with "no submission left to score: ... they differ by more
than 2% of the 28 instances" (the board's 500-instance percentage scaled to the subset) and
``rescore --instances`` with "157 resolved instance ids are not in the benchmark's instance list".
Expected (as swebench's ``-i``): the subset is the denominator, the screening compares the full
per-instance list with the board, and ids outside the subset are not in it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import SHARED_DATA, require_shared_data

VERIFIED = SHARED_DATA / "swebench_verified" / "swebench_verified_composite.jsonl"
EXPERIMENTS = SHARED_DATA / "swebench_experiments"
BOARD = SHARED_DATA / "swebench_leaderboard" / "leaderboards.json"
MODEL_MAP = SHARED_DATA / "model_cutoffs" / "submission_models.csv"
SONNET = EXPERIMENTS / "20240620_sweagent_claude3.5sonnet"
REPOS = ("psf/requests", "pallets/flask", "pytest-dev/pytest")


def _subset(tmp_path: Path) -> tuple[Path, set[str]]:
    rows = [json.loads(x) for x in VERIFIED.read_text(encoding="utf-8").splitlines() if x.strip()]
    keep = [r for r in rows if r["repo"] in REPOS]
    path = tmp_path / "verified_28.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in keep), encoding="utf-8")
    return path, {r["instance_id"] for r in keep}


def _flags(tmp_path: Path) -> Path:
    """A clean / contaminated verdict for every Verified instance and every model, written the
    way a user writes them (``flags`` records, one model-independent ``*`` record each)."""
    from benchchecker_plugin.flags import ANY_MODEL, ContaminationFlag, write_flags

    ids = [json.loads(x)["instance_id"] for x in VERIFIED.read_text(encoding="utf-8").splitlines()
           if x.strip()]
    return write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag(benchmark="swe-bench-verified", instance_id=i, model=ANY_MODEL,
                          method="benchchecker.stage2", contaminated=k % 2 == 0, score=1.0)
        for k, i in enumerate(ids)])


def _benchchecker(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["benchchecker", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, BENCHCHECKER_PROGRESS="0"))


@pytest.mark.slow
def test_leaderboard_on_a_subset_is_rated_over_the_subset(tmp_path: Path) -> None:
    require_shared_data("swebench_verified")
    require_shared_data("swebench_experiments")
    require_shared_data("swebench_leaderboard")
    subset, ids = _subset(tmp_path)
    assert len(ids) == 28
    flags = _flags(tmp_path)
    common = ["leaderboard", "--submissions", EXPERIMENTS, "--flags", flags, "--tiers", VERIFIED,
              "--model-map", MODEL_MAP, "--official", BOARD, "--n-boot", "0", "--json"]
    full = _benchchecker([*common, "--out", tmp_path / "full"], tmp_path)
    assert full.returncode == 0, full.stderr[-2000:]
    proc = _benchchecker([*common, "--instances", subset, "--out", tmp_path / "sub"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    board = json.loads(proc.stdout)
    # the screening is that of the full lists against the board: the same submissions left out
    assert board["excluded"] == json.loads(full.stdout)["excluded"]
    assert all("of the 500 instances" in e["reason"] for e in board["excluded"])
    from benchchecker_plugin.leaderboard import load_submissions

    subs = {s.name: s for s in load_submissions(EXPERIMENTS)}
    rows = [r for r in board["rows"] if r["tier"] == "all"]
    assert len(rows) == len(subs) - len(board["excluded"]) > 70
    for row in rows:   # the subset is the denominator; resolved ids outside it are not in it
        assert row["n_instances"] == 28
        assert row["original_rate"] * 28 == pytest.approx(len(subs[row["submission"]].resolved & ids))
    assert any(n.startswith("Rated on the subset ") for n in board["notes"])


def test_rescore_on_a_subset_counts_only_the_subset(tmp_path: Path) -> None:
    require_shared_data("swebench_verified")
    require_shared_data("swebench_experiments")
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main
    from benchchecker_plugin.leaderboard import load_submissions

    subset, ids = _subset(tmp_path)
    flags = _flags(tmp_path)
    result = CliRunner().invoke(main, [
        "rescore", "--results", str(SONNET), "--flags", str(flags), "--tiers", str(VERIFIED),
        "--instances", str(subset), "--n-boot", "0", "--json"])
    assert result.exit_code == 0, result.output[-2000:]
    [run] = load_submissions(SONNET)
    [row] = [r for r in json.loads(result.stdout)["rows"] if r["tier"] == "all"]
    assert row["n_instances"] == 28
    assert row["original_rate"] * 28 == pytest.approx(len(run.resolved & ids)) == 11
    assert row["n_clean"] + row["n_contaminated"] == 28


def test_a_subset_id_the_benchmark_lacks_is_still_an_error(tmp_path: Path) -> None:
    """A resolved id outside the benchmark's full list (``--tiers``) stays an error with a subset."""
    require_shared_data("swebench_verified")
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main

    subset, ids = _subset(tmp_path)
    report = tmp_path / "org__model.run1.json"
    report.write_text(json.dumps({"submitted_ids": sorted(ids) + ["nope__nope-1"],
                                  "resolved_ids": ["nope__nope-1"], "error_ids": []}))
    result = CliRunner().invoke(main, [
        "rescore", "--results", str(report), "--flags", str(_flags(tmp_path)), "--tiers",
        str(VERIFIED), "--instances", str(subset), "--n-boot", "0"])
    assert result.exit_code != 0
    assert "1 resolved instance ids are not in the benchmark's instance list: nope__nope-1" in (
        result.output)
