"""The fast check of flags records never accepts what the JSON Schema rejects (issue 14, item 14):
random valid records and random mutations of them, each checked against jsonschema itself."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchchecker_plugin.flags._io import _fast_valid, _validator

VALID = {"schema_version": 1, "benchmark": "swe-bench-verified", "instance_id": "a__b-1",
         "model": "*", "method": "benchchecker.stage2", "contaminated": True, "score": 0.5,
         "p_value": None, "evidence": {}, "created_at": "2026-12-01T00:00:00Z",
         "tool_version": "0.1.0"}

ODD = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False),
                st.text(max_size=6), st.lists(st.integers(), max_size=2),
                st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
                st.sampled_from(["", " ", "a b", "a\n", "x.y", "A", "2026-12-01T00:00:00+01:00",
                                 "2026-12-01 00:00:00", "1.0", "ts_guessing.multichoice"]))


def _schema_ok(record: dict[str, Any]) -> bool:
    return not any(True for _ in _validator().iter_errors(record))


def test_the_reference_record_takes_the_fast_path() -> None:
    assert _fast_valid(dict(VALID)) and _schema_ok(VALID)


@settings(max_examples=400, deadline=None)
@given(key=st.sampled_from(sorted(VALID) + ["extra"]), value=ODD, drop=st.booleans())
def test_a_mutated_record_is_fast_valid_only_if_the_schema_accepts_it(
        key: str, value: Any, drop: bool) -> None:
    record = copy.deepcopy(VALID)
    if drop and key in record:
        del record[key]
    else:
        record[key] = value
    if _fast_valid(record):
        assert _schema_ok(record), record


#: what an instance id or model name may hold: any character but a control character or a lone
#: surrogate (refused at validation, tests/robustness/test_flags_strict.py)
_NAME_CHARS = st.characters(blacklist_categories=("Cc", "Cs"))


@settings(max_examples=200, deadline=None)
@given(contaminated=st.sampled_from([True, False, None]), score=st.floats(-1e9, 1e9),
       p=st.one_of(st.none(), st.floats(0, 1)), iid=st.text(_NAME_CHARS, min_size=1, max_size=20),
       model=st.text(_NAME_CHARS, min_size=1, max_size=10))
def test_valid_records_agree(contaminated: Any, score: float, p: Any, iid: str, model: str) -> None:
    record = {**VALID, "contaminated": contaminated, "score": score, "p_value": p,
              "instance_id": iid, "model": model}
    assert _fast_valid(record) == _schema_ok(record) or not _fast_valid(record)
    assert _schema_ok(record)
    assert _fast_valid(record)


# The file reader's fast path: a chunk is decoded and checked by msgspec against the schema's
# record type; whatever it accepts the schema accepts, and it builds the same flags as the slow path.

def _fast_read(lines: list[str]) -> list[Any] | None:
    import operator

    from benchchecker_plugin.flags._io import _patterns_hold, _typed_decoder

    decoder, failures = _typed_decoder()
    try:
        records = decoder.decode_lines("\n".join(lines).encode("utf-8", "surrogatepass"))
    except failures:
        return None
    if not _patterns_hold(records, {}):
        return None
    assert all(math.isfinite(r.score) for r in records)   # the reader relies on it
    return [operator.attrgetter(*VALID)(r) for r in records]


@settings(max_examples=400, deadline=None)
@given(key=st.sampled_from(sorted(VALID) + ["extra"]), value=ODD, drop=st.booleans())
def test_the_typed_decoder_accepts_only_what_the_schema_accepts(key: str, value: Any, drop: bool) -> None:
    record = copy.deepcopy(VALID)
    if drop and key in record:
        del record[key]
    else:
        record[key] = value
    got = _fast_read([json.dumps(record)])
    if got is not None:
        assert _schema_ok(record), record
        assert got == [tuple(record[k] for k in VALID)]


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.fixed_dictionaries({
    "contaminated": st.sampled_from([True, False, None]), "score": st.floats(-1e300, 1e300),
    "p_value": st.one_of(st.none(), st.floats(0, 1)), "instance_id": st.text(_NAME_CHARS, min_size=1, max_size=12),
    "evidence": st.dictionaries(st.text(max_size=4), st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(-2**60, 2**60), st.floats(allow_nan=False,
                  allow_infinity=False), st.text(max_size=5)),
        lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
        max_leaves=4), max_size=3)}), min_size=1, max_size=5, unique_by=lambda r: r["instance_id"]))
def test_fast_and_slow_paths_read_the_same_flags(rows: list[dict[str, Any]], tmp_path_factory) -> None:  # noqa: ANN001
    from benchchecker_plugin.flags import ContaminationFlag, read_flags

    path = tmp_path_factory.mktemp("f") / "flags.jsonl"
    path.write_text("".join(json.dumps({**VALID, **r}) + "\n" for r in rows), encoding="utf-8")
    fast = read_flags(path)
    slow = [ContaminationFlag.from_dict(json.loads(line)) for line in path.read_text().splitlines()]
    assert fast == slow
    assert [f.evidence for f in fast] == [s.evidence for s in slow]
    assert [f.to_dict() for f in fast] == [s.to_dict() for s in slow]


def test_a_bad_line_deep_in_a_big_file_is_named_with_its_line(tmp_path) -> None:  # noqa: ANN001
    import pytest

    from benchchecker_plugin.errors import FlagsFormatError
    from benchchecker_plugin.flags import _io as io
    from benchchecker_plugin.flags import read_flags

    lines = [json.dumps({**VALID, "instance_id": f"i-{n}"}) for n in range(3000)]
    lines[2500] = json.dumps({**VALID, "instance_id": "bad", "method": "Bad Method"})
    path = tmp_path / "flags.jsonl"
    path.write_text("\n".join(lines) + "\n")
    small = io._CHUNK
    try:
        io._CHUNK = 4096   # many chunks: the line count carries across them
        with pytest.raises(FlagsFormatError, match=r"flags.jsonl:2501: field .method.: .Bad Method. does not match"):
            read_flags(path)
        lines[2500] = lines[10]
        path.write_text("\n".join(lines) + "\n")
        with pytest.raises(FlagsFormatError, match="duplicate record .* instance_id=i-10"):
            read_flags(path)
        lines[2500] = json.dumps({**VALID, "instance_id": "big"}).replace('"score": 0.5', '"score": 1e400')
        path.write_text("\n".join(lines) + "\n")
        with pytest.raises(FlagsFormatError, match="flags.jsonl:2501: field 'score': score must be finite"):
            read_flags(path)
        lines[2500] = json.dumps({**VALID, "instance_id": "ok"})
        path.write_text("\n".join(lines))   # no newline at the end
        assert [f.instance_id for f in read_flags(path)][-501:-499] == ["i-2499", "ok"]
        assert len(read_flags(path)) == 3000
    finally:
        io._CHUNK = small


@pytest.mark.parametrize("field", ["instance_id", "model"])
@pytest.mark.parametrize("bad", ["m\x00x", "tab\there", "end\n", "\x7f"])
def test_control_characters_in_names_are_refused_by_both(field: str, bad: str) -> None:
    record = {**VALID, field: bad}
    assert not _fast_valid(record) and not _schema_ok(record)


def test_values_matched_in_earlier_chunks_are_not_matched_again_and_a_bad_one_still_fails() -> None:
    """The reader keeps, per patterned field, the values already matched (an instance id recurs
    once per model): a chunk checks only its new values, and a bad new value still fails it."""
    from benchchecker_plugin.flags._io import _patterns_hold, _typed_decoder

    decoder, _ = _typed_decoder()

    def chunk(*methods: str) -> list[Any]:
        return decoder.decode_lines("\n".join(json.dumps({**VALID, "method": m}) for m in methods).encode())

    passed: dict[str, set[str]] = {}
    assert _patterns_hold(chunk("benchchecker.stage2", "ts_guess"), passed)
    assert passed["method"] == {"benchchecker.stage2", "ts_guess"}
    assert _patterns_hold(chunk("ts_guess"), passed)
    assert not _patterns_hold(chunk("ts_guess", "Not A Method"), passed)
    assert "Not A Method" not in passed["method"]
