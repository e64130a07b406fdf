"""``benchchecker patch-presence`` through click's CliRunner."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import rich
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import read_flags
from benchchecker_plugin.stage2 import build_history


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list]:
    root = tmp_path_factory.mktemp("cli")
    repos = root / "repos"
    cases = build_history(Path(rich.__file__).parent, repos / "synthetic__history",
                          cutoff=datetime(2024, 1, 1, tzinfo=UTC),
                          scenarios=("persisted", "after-cutoff", "deleted"), per_scenario=1)
    rows = [c.instance.to_swebench() for c in cases]
    rows.append({**rows[0], "instance_id": "broken-1", "patch": "not a diff"})
    instances = root / "instances.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return repos, instances, cases


def test_help_teaches() -> None:
    out = CliRunner().invoke(main, ["patch-presence", "--help"])
    assert out.exit_code == 0
    for word in ("--instances", "--repos-dir", "--cutoff", "--verify", "owner__name", "Example"):
        assert word in out.output


def test_run_writes_one_flag_per_instance_and_a_summary(history, tmp_path: Path) -> None:  # noqa: ANN001
    repos, instances, cases = history
    out = tmp_path / "flags.jsonl"
    res = CliRunner().invoke(main, ["patch-presence", "--instances", str(instances), "--repos-dir", str(repos),
                                    "--cutoff", "2024-01-01", "--model", "m", "--similarity", "difflib",
                                    "-o", str(out)])
    assert res.exit_code == 0, res.output
    flags = read_flags(out)
    assert [f.instance_id for f in flags] == [c.instance.instance_id for c in cases] + ["broken-1"]
    assert [f.contaminated for f in flags] == [True, False, None, None]
    assert flags[-1].evidence["error"].startswith("DataError: instance 'broken-1': malformed diff")
    assert "4 instances: 1 contaminated, 1 clean, 1 undecided, 1 failed" in res.stderr
    assert "failed broken-1" in res.stderr


def test_bad_options_exit_non_zero(history, tmp_path: Path) -> None:  # noqa: ANN001
    repos, instances, _ = history
    res = CliRunner().invoke(main, ["patch-presence", "--instances", str(instances), "--repos-dir", str(repos),
                                    "--cutoff", "last year", "-o", str(tmp_path / "f.jsonl")])
    assert res.exit_code == 2 and "'last year' is not a date (YYYY, YYYY-MM, YYYY-MM-DD) or an ISO datetime" in res.stderr
    res = CliRunner().invoke(main, ["patch-presence", "--instances", str(tmp_path / "none.jsonl"),
                                    "--repos-dir", str(repos), "--cutoff", "2024-01-01", "-o", str(tmp_path / "f.jsonl")])
    assert res.exit_code == 2 and "none.jsonl: instances file not found" in res.stderr


def test_dry_run_says_what_would_be_read_and_writes_nothing(history, tmp_path: Path) -> None:  # noqa: ANN001
    """patch-presence had no --dry-run: now it counts the pairs, finds each repository's clone by
    the run's own rule (a missing one named with the command that fetches it) and stops."""
    repos, instances, cases = history
    rows = [json.loads(line) for line in instances.read_text().splitlines()]
    rows.append({**rows[0], "instance_id": "other__repo-1", "repo": "other/repo"})
    more = tmp_path / "instances.jsonl"
    more.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "flags.jsonl"
    res = CliRunner().invoke(main, ["patch-presence", "--instances", str(more), "--repos-dir", str(repos),
                                    "--cutoff", "2024-01-01", "--dry-run", "-o", str(out)])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    n = len(cases) + 2
    assert lines[0] == f"dry run: {n} instance(s) x 1 model cutoff(s) = {n} pair(s) over 2 repositor(y/ies)"
    assert lines[1] == f"  other/repo: 1 instance(s); MISSING under {repos} (benchchecker repos fetch)"
    assert lines[2] == f"  synthetic/history: {n - 1} instance(s); clone {repos / 'synthetic__history'}"
    assert lines[3] == ("nothing was read or written; 1 repositor(y/ies) missing: their instances "
                        "would be errors (undecided)")
    assert not out.exists()
