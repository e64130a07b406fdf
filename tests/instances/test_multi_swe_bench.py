"""The Multi-SWE-bench instance format: records written here, and the staged data when present."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError, InputError
from benchchecker_plugin.instances import (
    INSTANCE_FORMATS,
    is_multi_swe_bench,
    load_instances,
    load_multi_swe_bench_instances,
)
from tests.helpers import SHARED_DATA, needs_shared_data

DATA = SHARED_DATA
MSB = DATA / "multi_swe_bench" / "instances"
needs_data = needs_shared_data("multi_swe_bench", "instances")

FIX = """diff --git a/src/main/java/com/google/gson/Gson.java b/src/main/java/com/google/gson/Gson.java
--- a/src/main/java/com/google/gson/Gson.java
+++ b/src/main/java/com/google/gson/Gson.java
@@ -1,3 +1,3 @@
 class Gson {
-  int x = 1;
+  int x = 2;
 }
"""


def _record(number: int = 1787, **over: object) -> dict:
    row = {
        "org": "google", "repo": "gson", "number": number, "state": "closed", "title": "Fix adapter",
        "body": "Fixes #543", "base": {"label": "google:master", "ref": "master", "sha": "e614e71ee43c"},
        "resolved_issues": [{"number": 543, "title": "Wrong adapter", "body": "It picks the base type."}],
        "fix_patch": FIX, "test_patch": "diff --git a/T.java b/T.java\n",
        "fixed_tests": {},
        "p2p_tests": {"com.google.gson.OldTest": {"run": "PASS", "test": "PASS", "fix": "PASS"}},
        "f2p_tests": {"com.google.gson.NewTest": {"run": "FAIL", "test": "FAIL", "fix": "PASS"}},
        "s2p_tests": {},
        "n2p_tests": {"com.google.gson.AddedTest": {"run": "NONE", "test": "NONE", "fix": "PASS"}},
        "instance_id": f"google__gson-{number}",
    }
    row.update(over)
    return row


def _write(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_record_becomes_a_bug_instance(tmp_path: Path) -> None:
    file = _write(tmp_path / "google__gson_dataset.jsonl", [_record()])
    assert "multi-swe-bench" in INSTANCE_FORMATS and is_multi_swe_bench(file)
    (inst,) = load_instances(file)  # auto-detected from the first record's fields
    assert inst.benchmark == "multi-swe-bench"
    assert (inst.instance_id, inst.repo) == ("google__gson-1787", "google/gson")
    assert inst.base_commit == "e614e71ee43c"
    assert inst.patch == FIX and inst.language == "java"
    # fail_to_pass: the tests the fix must make pass (f2p, s2p, n2p); pass_to_pass: p2p
    assert inst.fail_to_pass == ("com.google.gson.NewTest", "com.google.gson.AddedTest")
    assert inst.pass_to_pass == ("com.google.gson.OldTest",)
    assert inst.extra["number"] == 1787 and "It picks the base type." in inst.extra["problem_statement"]
    assert inst.repo_dir_names == ("google__gson", "gson")


def test_folder_of_language_folders_and_language_by_folder(tmp_path: Path) -> None:
    _write(tmp_path / "java" / "google__gson_dataset.jsonl", [_record(1), _record(2)])
    go_fix = FIX.replace("src/main/java/com/google/gson/Gson.java", "server.go")
    _write(tmp_path / "go" / "grpc__grpc-go_dataset.jsonl",
           [_record(3, org="grpc", repo="grpc-go", instance_id="grpc__grpc-go-3", fix_patch=go_fix)])
    _write(tmp_path / "misc" / "x.jsonl", [_record(4, instance_id="google__gson-4", fix_patch=go_fix)])
    insts = load_instances(tmp_path)
    assert [i.instance_id for i in insts] == [
        "grpc__grpc-go-3", "google__gson-1", "google__gson-2", "google__gson-4"]
    assert [i.language for i in insts] == ["go", "java", "java", "go"]  # unknown folder: from the patch


def test_id_built_when_absent_and_repeated_ids_refused(tmp_path: Path) -> None:
    row = _record(9)
    del row["instance_id"]
    file = _write(tmp_path / "a.jsonl", [row])
    assert load_multi_swe_bench_instances(file)[0].instance_id == "google__gson-9"
    _write(tmp_path / "b.jsonl", [_record(9)])
    with pytest.raises(DataError, match=r"b\.jsonl:1: instance 'google__gson-9' repeats .*a\.jsonl:1"):
        load_multi_swe_bench_instances(tmp_path)


@pytest.mark.parametrize(("change", "missing"), [
    ({"base": {"ref": "master"}}, "base.sha"), ({"fix_patch": ""}, "fix_patch"), ({"org": None}, "org"),
    ({"number": "pr-1"}, "number"),
])
def test_missing_fields_are_named(tmp_path: Path, change: dict, missing: str) -> None:
    file = _write(tmp_path / "x.jsonl", [_record(**change)])
    with pytest.raises(DataError, match=rf"x\.jsonl:1: instance .* lacks field\(s\) {missing}"):
        load_instances(file, "multi-swe-bench")


def test_bad_inputs(tmp_path: Path) -> None:
    (tmp_path / "bad.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.jsonl:1: not valid JSON"):
        load_multi_swe_bench_instances(tmp_path / "bad.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no .jsonl files"):
        load_multi_swe_bench_instances(tmp_path / "empty")
    with pytest.raises(InputError, match="not found"):
        load_multi_swe_bench_instances(tmp_path / "nope.jsonl")
    bad_tests = _write(tmp_path / "t" / "t.jsonl", [_record(f2p_tests="NewTest")])
    with pytest.raises(DataError, match="f2p_tests"):
        load_multi_swe_bench_instances(bad_tests)
    swebench = _write(tmp_path / "s" / "swe.jsonl",
                      [{"instance_id": "a__b-1", "repo": "a/b", "base_commit": "c", "patch": FIX}])
    assert not is_multi_swe_bench(swebench) and load_instances(swebench)[0].benchmark == "swe-bench-verified"


@needs_data
def test_staged_multi_swe_bench_instances() -> None:
    """Every staged record loads; counts as SOURCE.txt states (433 in 7 languages)."""
    insts = load_instances(MSB)
    assert len(insts) == 433 and len({i.instance_id for i in insts}) == 433
    assert Counter(i.language for i in insts) == {
        "c": 46, "cpp": 129, "go": 31, "java": 48, "javascript": 84, "rust": 93, "typescript": 2}
    assert all(i.base_commit and i.patch.startswith("diff --git") for i in insts)
    assert sum(bool(i.fail_to_pass) for i in insts) == 433
