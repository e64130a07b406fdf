"""``benchchecker patch-presence --cutoffs FILE``: every model's cutoff in one run."""

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
    root = tmp_path_factory.mktemp("cli-cutoffs")
    repos = root / "repos"
    cases = build_history(Path(rich.__file__).parent, repos / "synthetic__history",
                          cutoff=datetime(2024, 1, 1, tzinfo=UTC),
                          scenarios=("persisted", "after-cutoff"), per_scenario=1)
    rows = [c.instance.to_swebench() for c in cases]
    rows.append({**rows[0], "instance_id": "broken-1", "patch": "not a diff"})
    instances = root / "instances.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return repos, instances, cases


def _run(history, tmp_path: Path, *args: str):  # noqa: ANN001, ANN202
    repos, instances, _ = history
    return CliRunner().invoke(main, ["patch-presence", "--instances", str(instances), "--repos-dir", str(repos),
                                     "--similarity", "difflib", *args])


def test_cutoffs_csv_gives_one_flag_per_instance_and_model(history, tmp_path: Path) -> None:  # noqa: ANN001
    _, _, cases = history
    table = tmp_path / "cutoffs.csv"
    table.write_text("model,vendor,cutoff\nold,x,2022-12-01\nnew,x,2025\nsecret,x,\nnew-twin,y,2025-06\n")
    out = tmp_path / "flags.jsonl"
    res = _run(history, tmp_path, "--cutoffs", str(table), "-o", str(out))
    assert res.exit_code == 0, res.output
    flags = read_flags(out)
    ids = [c.instance.instance_id for c in cases] + ["broken-1"]
    assert [(f.instance_id, f.model) for f in flags] == [(i, m) for i in ids for m in ("old", "new", "new-twin")]
    verdicts = {(f.instance_id, f.model): f.contaminated for f in flags}
    persisted, after = ids[:2]
    assert verdicts[(persisted, "old")] is False and verdicts[(persisted, "new")] is True
    assert verdicts[(after, "new")] is True and verdicts[(after, "new-twin")] is True
    assert "cutoffs.csv: skipped 1 row(s) with no known cutoff: secret" in res.stderr
    assert "3 instances x 3 models = 9 flags: " in res.stderr and "3 failed" in res.stderr
    assert "2 distinct snapshots" in res.stderr  # new and new-twin share the last commit
    assert "failed broken-1 (3 models): DataError: instance 'broken-1': malformed diff" in res.stderr


def test_cutoffs_json_and_model_map(history, tmp_path: Path) -> None:  # noqa: ANN001
    js = tmp_path / "c.json"
    js.write_text(json.dumps({"m1": "2023-10", "m2": None}))
    out = tmp_path / "a.jsonl"
    res = _run(history, tmp_path, "--cutoffs", str(js), "--limit", "1", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert [f.model for f in read_flags(out)] == ["m1"]
    mm = tmp_path / "submission_models.csv"
    mm.write_text("submission,models,model_cutoffs\n"
                  "s1,a;b,a=2023;b=unknown\n"
                  "s2,UNDISCLOSED,\n"
                  "s3,a,a=2023\n")
    res = _run(history, tmp_path, "--cutoffs", str(mm), "--limit", "1", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert [f.model for f in read_flags(out)] == ["a"]
    assert "skipped 1 row(s) with no known cutoff: s2" in res.stderr
    assert "no known cutoff for 1 more model(s): b" in res.stderr


def test_exactly_one_of_cutoff_and_cutoffs(history, tmp_path: Path) -> None:  # noqa: ANN001
    js = tmp_path / "c.json"
    js.write_text('{"m1": "2023-10"}')
    out = str(tmp_path / "f.jsonl")
    res = _run(history, tmp_path, "-o", out)
    assert res.exit_code == 2 and "give exactly one of --cutoff" in res.stderr
    res = _run(history, tmp_path, "--cutoff", "2024-01-01", "--cutoffs", str(js), "-o", out)
    assert res.exit_code == 2 and "give exactly one of --cutoff" in res.stderr
    res = _run(history, tmp_path, "--cutoffs", str(js), "--model", "m", "-o", out)
    assert res.exit_code == 2 and "--model names the model of --cutoff" in res.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"m1": "last spring"}')
    res = _run(history, tmp_path, "--cutoffs", str(bad), "-o", out)
    assert res.exit_code == 2 and "bad.json: key 'm1': model 'm1': cutoff 'last spring' is not" in res.stderr
    none = tmp_path / "none.csv"
    none.write_text("model,cutoff\nq,\n")
    res = _run(history, tmp_path, "--cutoffs", str(none), "-o", out)
    assert res.exit_code == 2 and "none.csv: no model with a known cutoff" in res.stderr
    assert not Path(out).exists()
