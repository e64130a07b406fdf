"""Issue 27: bad inputs that gave a traceback, a silently wrong answer, a changed input or a hang.
Each case runs the command as a user would: one ``Error:`` line naming the input, a non-zero exit,
and every input byte-identical afterwards."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import ContaminationFlag, write_flags


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "-"


def _refused(argv: list[str], *inputs: Path, expect: str, code: int = 2, stdin: str | None = None) -> str:
    before = {p: _sha(p) for p in inputs}
    res = CliRunner().invoke(main, argv, input=stdin)
    assert res.exit_code == code, (res.output, res.exception)
    assert "Traceback" not in res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and expect in errors[0], res.output
    assert {p: _sha(p) for p in inputs} == before
    return errors[0]


@pytest.fixture
def instances(tmp_path: Path) -> Path:
    path = tmp_path / "instances.jsonl"
    path.write_text(json.dumps({"instance_id": "a__b-1", "repo": "a/b", "base_commit": "0" * 40,
                                "patch": "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
                                "created_at": "2023-01-01T00:00:00Z"}) + "\n")
    return path


def _patch_dates(instances: Path, cutoffs: Path, tmp_path: Path) -> list[str]:
    return ["flags", "patch-dates", str(instances), "--cutoffs", str(cutoffs), "-o", str(tmp_path / "o.jsonl")]


@pytest.mark.parametrize(("text", "expect"), [
    ('{"m": "2024-01-01", "m": "2023-01-01"}', "model 'm' is given twice"),           # last won silently
    ("[" * 300_000 + "]" * 300_000, "nested too deeply"),                               # RecursionError
    ('{"*": "2024-01-01"}', "model '*' is not a model"),                                # flags for every model
    ('{"m\\u0000x": "2024-01-01"}', "has a control character"),
    ('{"m": "0202-06"}', "cutoff '0202-06' is implausible"),                             # said "1 clean"
])
def test_bad_cutoffs_files(tmp_path: Path, instances: Path, text: str, expect: str) -> None:
    cutoffs = tmp_path / "cutoffs.json"
    cutoffs.write_text(text)
    _refused(_patch_dates(instances, cutoffs, tmp_path), cutoffs, instances, expect=expect)


def test_a_nul_in_a_model_name_is_not_a_valid_flag(tmp_path: Path) -> None:
    path = write_flags(tmp_path / "f.jsonl", [ContaminationFlag("b", "i1", "m", "t", True, 1.0)])
    path.write_text(path.read_text().replace('"model": "m"', '"model": "m\\u0000x"'))
    _refused(["flags", "validate", str(path)], path, expect="field 'model': 'm\\x00x' has a control character")


def test_an_output_on_a_full_device_is_one_line(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    flags = write_flags(tmp_path / "f.jsonl", [ContaminationFlag("b", f"i{k}", "m", "t", True, 1.0)
                                               for k in range(2000)])
    _refused(["flags", "merge", str(flags), "-o", "/dev/full"], flags, expect="/dev/full: cannot write")


@pytest.mark.parametrize("where", ["/proc/benchchecker-repos", "loop/repos"])
def test_repos_fetch_into_an_impossible_folder(tmp_path: Path, instances: Path, where: str) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    into = where if where.startswith("/") else str(tmp_path / where)
    _refused(["repos", "fetch", "--instances", str(instances), "--into", into], instances, expect=into)


def test_cache_commands_on_what_is_not_a_cache(tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    _refused(["cache", "stats", "--cache-dir", str(a_file)], a_file, expect="is a file")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    with sqlite3.connect(foreign / "responses.sqlite3") as conn:
        conn.execute("CREATE TABLE mine (x)")
    db = foreign / "responses.sqlite3"
    for argv in (["cache", "stats"], ["cache", "clear", "--yes"]):
        _refused([*argv, "--cache-dir", str(foreign)], db, expect="a SQLite database of another program")
    with sqlite3.connect(db) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["mine"]


def test_cache_clear_models_deletes_only_exports(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (cache / "models" / "mine").mkdir(parents=True)
    (cache / "models" / "mine" / "weights.bin").write_text("not an export")
    _refused(["cache", "clear", "--yes", "--models", "--cache-dir", str(cache)],
             expect="which benchchecker did not export; nothing deleted")
    assert (cache / "models" / "mine" / "weights.bin").read_text() == "not an export"
    linked = tmp_path / "linked"
    (linked / "models").parent.mkdir(parents=True, exist_ok=True)
    (linked / "models").symlink_to(cache / "models")
    _refused(["cache", "clear", "--yes", "--models", "--cache-dir", str(linked)], expect="a link or a file")
    assert (cache / "models" / "mine" / "weights.bin").exists()


def test_cache_clear_without_yes_and_nobody_to_answer(tmp_path: Path) -> None:
    _refused(["cache", "clear", "--cache-dir", str(tmp_path)], expect="give --yes", stdin="")


@pytest.mark.parametrize(("address", "expect"), [
    ("not a host", "'not a host': expected HOST:PORT"),
    ("127.0.0.1:1", "nothing answers at 127.0.0.1:1"),   # Ray retried for ever
])
def test_ray_address_that_cannot_be_a_cluster(tmp_path: Path, address: str, expect: str) -> None:
    pytest.importorskip("ray")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    t0 = time.monotonic()
    _refused(["repo-presence", "calibrate", "--repo", str(repo), "--dry-run", "--executor", "ray",
              "--ray-address", address, "-o", str(tmp_path / "p0.json")], expect=expect)
    assert time.monotonic() - t0 < 20


def test_test_cmd_with_verify_venv_is_refused_not_ignored(tmp_path: Path, instances: Path) -> None:
    specs = tmp_path / "specs.json"
    specs.write_text("{}")
    _refused(["patch-presence", "--instances", str(instances), "--repos-dir", str(tmp_path), "--cutoff",
              "2024-01-01", "--verify", "venv", "--env-specs", str(specs), "--allow-unsandboxed",
              "--test-cmd", "pytest -x", "-o", str(tmp_path / "o.jsonl")], instances,
             expect="--test-cmd applies to --verify local only")
    assert not os.path.exists(tmp_path / "o.jsonl")


@pytest.mark.parametrize(("model", "run_id"), [("org/m\x00x", "run1"), ("org/m", "r\x00")])
def test_a_nul_in_the_swebench_model_or_run_id(tmp_path: Path, model: str, run_id: str) -> None:
    pytest.importorskip("swebench")
    import argparse

    from benchchecker_plugin.errors import InputError
    from harness_adapters.swebench._cli import read_run

    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"instance_id": "a__b-1", "model_name_or_path": model, "model_patch": "d"}) + "\n")
    ns = argparse.Namespace(predictions_path=str(preds), run_id=run_id, dataset_name="x.jsonl", split="test",
                            instance_ids=None)
    with pytest.raises(InputError, match="is empty or has a control character"):
        read_run(ns)


def test_cache_stats_on_a_folder_without_a_cache_does_not_call_it_empty(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["cache", "stats", "--cache-dir", str(tmp_path)])
    assert res.exit_code == 0 and "(no cache there)" in res.output and "empty" not in res.output
    assert list(tmp_path.iterdir()) == []   # nothing created by looking
