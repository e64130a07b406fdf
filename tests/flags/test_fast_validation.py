"""The fast check of flags records never accepts what the JSON Schema rejects (issue 14, item 14):
random valid records and random mutations of them, each checked against jsonschema itself."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from benchchecker_plugin.flags.io import _fast_valid, _validator

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


@settings(max_examples=200, deadline=None)
@given(contaminated=st.sampled_from([True, False, None]), score=st.floats(-1e9, 1e9),
       p=st.one_of(st.none(), st.floats(0, 1)), iid=st.text(min_size=1, max_size=20),
       model=st.text(min_size=1, max_size=10))
def test_valid_records_agree(contaminated: Any, score: float, p: Any, iid: str, model: str) -> None:
    record = {**VALID, "contaminated": contaminated, "score": score, "p_value": p,
              "instance_id": iid, "model": model}
    assert _fast_valid(record) == _schema_ok(record) or not _fast_valid(record)
    assert _schema_ok(record)
    assert _fast_valid(record)
