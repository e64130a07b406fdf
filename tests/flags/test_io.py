"""Flags files: round trip, validation errors naming file/line/field, atomic writes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchchecker_plugin.errors import FlagsFormatError
from benchchecker_plugin.flags import ContaminationFlag, read_flags, validate_record, write_flags


def _flag(i: int, **kw) -> ContaminationFlag:
    base = dict(benchmark="swe-bench-verified", instance_id=f"django__django-{1000 + i}", model="gpt-4o",
                method="benchchecker.stage2", contaminated=[True, False, None][i % 3], score=i / 7,
                p_value=None if i % 2 else 0.01 * i, evidence={"lines": [0.9, 0.71], "commit": "abc"},
                created_at="2026-11-29T12:00:00Z")
    base.update(kw)
    return ContaminationFlag(**base)


def test_round_trip_preserves_every_field(tmp_path: Path) -> None:
    flags = [_flag(i) for i in range(9)]
    path = write_flags(tmp_path / "f.jsonl", flags)
    back = read_flags(path)
    assert back == flags
    assert [b.to_dict() for b in back] == [f.to_dict() for f in flags]


def test_reading_a_folder_reads_every_jsonl(tmp_path: Path) -> None:
    write_flags(tmp_path / "a.jsonl", [_flag(1)])
    write_flags(tmp_path / "b.jsonl", [_flag(2, method="ts_guessing.multichoice")])
    (tmp_path / "notes.txt").write_text("not flags")
    assert len(read_flags(tmp_path)) == 2


def _write_lines(path: Path, records: list) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.pop("score"), "f.jsonl:2: field 'score': 'score' is a required property"),
        (lambda r: r.update(score="high"), "f.jsonl:2: field 'score': 'high' is not of type 'number'"),
        (lambda r: r.update(contaminated="yes"),
         "f.jsonl:2: field 'contaminated': 'yes' is not of type 'boolean', 'null'"),
        (lambda r: r.update(p_value=1.5), "f.jsonl:2: field 'p_value': 1.5 is greater than the maximum of 1"),
        (lambda r: r.update(schema_version=2),
         "f.jsonl:2: field 'schema_version': schema_version 2 is not supported by this benchchecker "
         "(reads version 1)"),
        (lambda r: r.update(method="Stage 1"),
         "f.jsonl:2: field 'method': 'Stage 1' does not match '^[a-z0-9_]+(\\\\.[a-z0-9_]+)*$'"),
        (lambda r: r.update(extra=1),
         "f.jsonl:2: Additional properties are not allowed ('extra' was unexpected)"),
    ],
)
def test_validation_errors_name_file_line_and_field(tmp_path: Path, mutate, message: str) -> None:
    good = _flag(0).to_dict()
    bad = _flag(1).to_dict()
    mutate(bad)
    path = _write_lines(tmp_path / "f.jsonl", [good, bad])
    with pytest.raises(FlagsFormatError) as err:
        read_flags(path)
    assert str(err.value) == f"{tmp_path}/{message}"
    assert err.value.line == 2


def test_invalid_json_and_nan_are_refused(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "f.jsonl", ['{"score": '])
    with pytest.raises(FlagsFormatError, match=r"f.jsonl:1: invalid JSON"):
        read_flags(path)
    rec = json.dumps(_flag(0).to_dict()).replace('"score": 0.0', '"score": NaN')
    path = _write_lines(tmp_path / "g.jsonl", [rec])
    with pytest.raises(FlagsFormatError, match=r"g.jsonl:1: invalid JSON \(NaN is not allowed\)"):
        read_flags(path)


def test_duplicate_records_are_an_error(tmp_path: Path) -> None:
    path = write_flags(tmp_path / "f.jsonl", [_flag(1), _flag(1)])
    expected = "duplicate record for benchmark=swe-bench-verified instance_id=django__django-1001"
    with pytest.raises(FlagsFormatError, match=expected):
        read_flags(path)


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FlagsFormatError, match=f"{tmp_path}/nope.jsonl: no such flags file or folder"):
        read_flags(tmp_path / "nope.jsonl")


def test_validate_record_rejects_non_objects() -> None:
    with pytest.raises(FlagsFormatError, match="expected a JSON object, got list"):
        validate_record([1, 2])


def test_record_refuses_non_finite_score() -> None:
    with pytest.raises(FlagsFormatError, match="field 'score': must be finite"):
        _flag(0, score=float("inf"))


def test_crash_during_write_keeps_the_old_file(tmp_path: Path) -> None:
    """Regression guard for atomic writes: a process killed mid-write leaves the previous complete
    file, and no half-written target."""
    target = tmp_path / "flags.jsonl"
    old = [_flag(i) for i in range(3)]
    write_flags(target, old)
    script = textwrap.dedent(f"""
        import os
        from benchchecker_plugin.flags import ContaminationFlag, write_flags
        def records():
            for i in range(10_000):
                if i == 500:
                    os._exit(9)   # simulated crash: no cleanup, no exception handlers
                yield ContaminationFlag(benchmark="mmlu", instance_id=f"astronomy/{{i}}", model="m",
                                        method="ts_guessing.multichoice", contaminated=False, score=0.0)
        write_flags({str(target)!r}, records())
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert proc.returncode == 9
    assert read_flags(target) == old
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "flags.jsonl"]
    # The temp file of the killed writer may remain (it never replaced the target), but it is hidden
    # and not a *.jsonl, so folder reads ignore it.
    assert all(name.startswith(".flags.jsonl.") and name.endswith(".tmp") for name in leftovers)
    assert len(read_flags(tmp_path)) == 3


def test_invalid_record_aborts_write_without_touching_target(tmp_path: Path) -> None:
    target = tmp_path / "flags.jsonl"
    write_flags(target, [_flag(0)])
    bad = _flag(1, method="Not Valid")
    with pytest.raises(FlagsFormatError):
        write_flags(target, [_flag(2), bad])
    assert read_flags(target) == [_flag(0)]
    assert sorted(os.listdir(tmp_path)) == ["flags.jsonl"]


def test_shared_evidence_and_strings_change_nothing_written(tmp_path: Path) -> None:
    """Regression (issue 38): flags of several models about one instance share equal flat
    evidence and strings when read (memory), but never evidence that only compares equal:
    ``1`` vs ``true``, ``-0.0`` vs ``0.0``, other key order, nested values. Written back, the
    file is the same."""
    evidences = [{"category": "present", "commit": "ab"}, {"category": "present", "commit": "ab"},
                 {"commit": "ab", "category": "present"}, {"x": 1}, {"x": True}, {"x": 1.0},
                 {"x": 0.0}, {"x": -0.0}, {"x": {"y": 1}}, {"x": {"y": 1}}]
    lines = [json.dumps({"schema_version": 1, "benchmark": "b", "instance_id": "i",
                         "model": f"m{k}", "method": "x", "contaminated": None, "score": 0.5,
                         "p_value": None, "evidence": ev, "created_at": "2026-12-01T00:00:00Z",
                         "tool_version": "0.1.0"}) for k, ev in enumerate(evidences)]
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n")
    flags = read_flags(src)
    assert flags[0].evidence is flags[1].evidence   # equal, flat: one mapping
    assert flags[2].evidence is not flags[0].evidence   # another key order
    assert flags[1].instance_id is flags[0].instance_id
    assert [type(f.evidence["x"]) for f in flags[3:6]] == [int, bool, float]
    assert str(flags[7].evidence["x"]) == "-0.0"
    write_flags(tmp_path / "out.jsonl", flags)
    assert [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()] == \
        [json.loads(x) for x in lines]
    assert (tmp_path / "out.jsonl").read_text().splitlines() == [
        json.dumps(json.loads(x), ensure_ascii=False) for x in lines]


def test_a_record_nested_too_deeply_names_the_file_and_line(tmp_path: Path) -> None:
    """msgspec's fast path stops at its nesting limit with a RecursionError that named no file."""
    good = ContaminationFlag("b", "i0", "*", "test", True, 1.0).to_dict()
    deep = {**good, "instance_id": "i1", "evidence": {}}
    line = json.dumps(deep).replace('"evidence": {}', '"evidence": ' + '{"a": ' * 3000 + "1" + "}" * 3000)
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(good) + "\n" + line + "\n")
    with pytest.raises(FlagsFormatError, match=rf"^{re.escape(str(path))}:2: invalid JSON \(nested too deeply\)$"):
        read_flags(path)
