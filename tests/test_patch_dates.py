"""Patch-date flags: bracketing fix dates by PR number, and the decision against a cutoff period."""

from __future__ import annotations

import pytest

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.patch_dates import CutoffPeriod, fix_dates, patch_date_flags, read_model_cutoffs
from tests.helpers import SHARED_DATA, needs_shared_data

DATA = SHARED_DATA

ROWS = [
    {"instance_id": "o__r-100", "repo": "o/r", "created_at": "2021-03-01T00:00:00Z"},
    {"instance_id": "o__r-150", "repo": "o/r", "created_at": None},            # between 100 and 200
    {"instance_id": "o__r-200", "repo": "o/r", "created_at": "2023-06-15T00:00:00Z"},
    {"instance_id": "o__r-50", "repo": "o/r"},                                  # before every dated PR
    {"instance_id": "o__r-300", "repo": "o/r"},                                 # after every dated PR
    {"instance_id": "x__y-7", "repo": "x/y"},                                   # repo with no dates
]


def test_brackets_come_from_neighbouring_numbers() -> None:
    d = {x.instance_id: x for x in fix_dates(ROWS)}
    assert d["o__r-150"].earliest.isoformat() == "2021-03-01T00:00:00+00:00"
    assert d["o__r-150"].latest.isoformat() == "2023-06-15T00:00:00+00:00"
    assert d["o__r-100"].exact and not d["o__r-150"].exact
    assert d["o__r-50"].earliest is None and d["o__r-50"].latest.year == 2021
    assert d["o__r-300"].earliest.year == 2023 and d["o__r-300"].latest is None
    assert d["x__y-7"].earliest is None and d["x__y-7"].latest is None


@pytest.mark.parametrize(("cutoff", "expected"), [
    # 150's bracket is [2021-03-01, 2023-06-15]
    ("2023-07", {"o__r-50": True, "o__r-100": True, "o__r-150": True, "o__r-200": True,
                 "o__r-300": None, "x__y-7": None}),
    ("2023-06", {"o__r-50": True, "o__r-100": True, "o__r-150": None, "o__r-200": None,
                 "o__r-300": None, "x__y-7": None}),
    ("2020", {"o__r-50": None, "o__r-100": False, "o__r-150": False, "o__r-200": False,
              "o__r-300": False, "x__y-7": None}),
])
def test_decision_against_a_cutoff_period(cutoff, expected) -> None:
    flags = patch_date_flags(fix_dates(ROWS), {"m": CutoffPeriod.parse(cutoff)})
    assert {f.instance_id: f.contaminated for f in flags} == expected
    by_id = {f.instance_id: f for f in flags}
    # score = days from the latest possible creation to the cutoff's start
    if cutoff == "2023-07":
        assert by_id["o__r-200"].score == pytest.approx(16.0)


def test_cutoff_periods() -> None:
    p = CutoffPeriod.parse("2023-12")
    assert (p.start.isoformat(), p.end.isoformat()) == ("2023-12-01T00:00:00+00:00",
                                                        "2024-01-01T00:00:00+00:00")
    assert CutoffPeriod.parse("2024").end.year == 2025
    with pytest.raises(DataError, match="cutoff 'early 2023' is not YYYY, YYYY-MM, YYYY-MM-DD or an ISO datetime"):
        CutoffPeriod.parse("early 2023")


def test_dates_that_contradict_numbers_are_an_error() -> None:
    rows = [{"instance_id": "o__r-1", "repo": "o/r", "created_at": "2022-01-01T00:00:00Z"},
            {"instance_id": "o__r-2", "repo": "o/r", "created_at": "2021-01-01T00:00:00Z"}]
    with pytest.raises(DataError, match=r"o/r: o__r-2 \(#2\) is dated before o__r-1 \(#1\)"):
        fix_dates(rows)


def test_id_without_number_is_named() -> None:
    with pytest.raises(DataError, match="instance 'weird': no PR number at the end of its id"):
        fix_dates([{"instance_id": "weird", "repo": "o/r"}])


@needs_shared_data("model_cutoffs")
def test_real_cutoffs_and_verified_dates_are_consistent() -> None:
    import json

    cutoffs = read_model_cutoffs(DATA / "model_cutoffs" / "model_cutoffs.csv")
    assert cutoffs["gpt-4o-2024-05-13"].text == "2023-10"
    assert "Qwen2.5-72B" not in cutoffs  # unpublished cutoff: left out, never guessed
    rows = [json.loads(line) for line in
            open(DATA / "swebench_verified" / "swebench_verified_fullfields_subset.jsonl")]
    dates = fix_dates(rows)  # raises if any PR number / date pair disagrees
    assert all(d.exact for d in dates)


def test_dated_rows_fill_missing_dates_from_a_fuller_copy() -> None:
    from benchchecker_plugin.instances import BugInstance
    from benchchecker_plugin.patch_dates import dated_rows

    instances = [BugInstance("o__r-1", "b", "o/r", "c", "p", created_at="2020-01-01T00:00:00Z"),
                 BugInstance("o__r-2", "b", "o/r", "c", "p")]
    dates = [{"instance_id": "o__r-1", "created_at": "1999-01-01T00:00:00Z"},   # own date wins
             {"instance_id": "o__r-2", "created_at": "2021-01-01T00:00:00Z"},
             {"instance_id": "x__y-9", "created_at": "2021-01-01T00:00:00Z"}]  # not an instance
    assert dated_rows(instances, dates) == [
        {"instance_id": "o__r-1", "repo": "o/r", "created_at": "2020-01-01T00:00:00Z"},
        {"instance_id": "o__r-2", "repo": "o/r", "created_at": "2021-01-01T00:00:00Z"}]
    assert dated_rows([{"instance_id": "o__r-3", "repo": "o/r"}]) == [
        {"instance_id": "o__r-3", "repo": "o/r", "created_at": None}]
    with pytest.raises(DataError, match="instance 'o__r-2' is listed twice"):
        dated_rows(instances + instances[1:])
