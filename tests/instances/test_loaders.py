"""Instance loaders on the real staged data (skipped when absent) and on small bad inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from unidiff import PatchSet

from benchchecker_plugin.errors import DataError, InputError
from benchchecker_plugin.instances import (
    BugInstance,
    load_bugsinpy,
    load_defects4j,
    load_instances,
    load_swebench,
    reverse_diff,
)
from tests.helpers import SHARED_DATA, needs_shared_data

DATA = SHARED_DATA
needs_data = needs_shared_data()


@needs_data
def test_swebench_verified_composite() -> None:
    insts = load_instances(DATA / "swebench_verified" / "swebench_verified_composite.jsonl")
    assert len(insts) == 500
    assert all(isinstance(i, BugInstance) and i.benchmark == "swe-bench-verified" for i in insts)
    full = [i for i in insts if i.fail_to_pass]
    assert len(full) == 130  # the rows with every official field (see SOURCE.txt)
    first = full[0]
    assert first.created_at and first.test_patch.startswith("diff --git")
    assert first.to_swebench()["FAIL_TO_PASS"] == list(first.fail_to_pass)
    assert insts[0].repo_dir_names == ("astropy__astropy", "astropy")


@needs_data
def test_bugsinpy_all_projects() -> None:
    insts = load_bugsinpy(DATA / "bugsinpy")
    assert len(insts) == 501
    black1 = next(i for i in insts if i.instance_id == "black-1")
    assert black1.repo == "psf/black"
    assert black1.base_commit == "26c9465a22c732ab1e17b0dec578fa3432e9b558"
    assert black1.fixed_commit == "c0a7582e3d4cc8bec3b7f5a6c52b36880dcb57d7"
    assert black1.test_cmd.startswith("python -m unittest")
    assert black1.language == "python"


@needs_data
def test_defects4j_patches_are_turned_buggy_to_fixed() -> None:
    insts = load_defects4j(DATA / "defects4j")
    assert len(insts) == 854
    lang1 = next(i for i in insts if i.instance_id == "Lang-1")
    assert lang1.repo == "apache/commons-lang" and lang1.language == "java"
    # LANG-747's fix adds the loop that skips leading zeroes of hex numbers
    added = [ln for ln in lang1.patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert any("firstSigDigit == '0'" in ln for ln in added)
    assert lang1.fail_to_pass == ("org.apache.commons.lang3.math.NumberUtilsTest::TestLang747",)


@needs_data
def test_reverse_diff_round_trips_on_every_defects4j_patch() -> None:
    for patch in sorted((DATA / "defects4j").glob("*/patches/*.src.patch")):
        text = patch.read_text(encoding="utf-8", errors="surrogateescape")
        assert reverse_diff(reverse_diff(text)) == text, patch
        rev = PatchSet(reverse_diff(text))
        fwd = PatchSet(text)
        assert [f.added for f in rev] == [f.removed for f in fwd], patch


def test_swebench_jsonl_errors_name_the_record(tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl"
    f.write_text(json.dumps({"instance_id": "a-1", "repo": "o/a", "base_commit": "abc"}) + "\n")
    with pytest.raises(DataError, match=r"x.jsonl:1: instance 'a-1' lacks field\(s\) patch"):
        load_swebench(f)
    f.write_text("{not json\n")
    with pytest.raises(DataError, match=r"x.jsonl:1: not valid JSON"):
        load_swebench(f)
    f.write_text(json.dumps({"instance_id": "a-1", "repo": "o/a", "base_commit": "abc", "patch": "p",
                             "FAIL_TO_PASS": "oops"}) + "\n")
    with pytest.raises(DataError, match=r"instance 'a-1'.*FAIL_TO_PASS"):
        load_swebench(f)
    with pytest.raises(InputError, match="not found"):
        load_instances(tmp_path / "missing.jsonl")


def test_swebench_accepts_lists_and_json_strings(tmp_path: Path) -> None:
    rows = [{"instance_id": "o__a-1", "repo": "o/a", "base_commit": "abc", "patch": "+++ b/x.java\n",
             "FAIL_TO_PASS": ["t1"], "PASS_TO_PASS": json.dumps(["t2", "t3"])}]
    f = tmp_path / "x.json"
    f.write_text(json.dumps(rows))
    (inst,) = load_instances(f)
    assert inst.fail_to_pass == ("t1",) and inst.pass_to_pass == ("t2", "t3")
    assert inst.language == "java"


def test_bugsinpy_and_defects4j_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a Defects4J folder"):
        load_defects4j(tmp_path)
    bug = tmp_path / "projects" / "p" / "bugs" / "1"
    bug.mkdir(parents=True)
    (bug / "bug.info").write_text('buggy_commit_id="abc"\n')
    with pytest.raises(DataError, match=r"instance 'p-1' lacks bug.info or bug_patch.txt"):
        load_bugsinpy(tmp_path)
