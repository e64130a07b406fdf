"""cutoff: parse_cutoff, the one reader of a ``--cutoff`` value (a period means its last second; a
typo before 1990 refused), and period_in_words (claude-2's "Early 2023" is January-April 2023, not
the year)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from benchchecker_plugin.cutoff import parse_cutoff, period_in_words
from benchchecker_plugin.errors import InputError


def test_words_name_part_of_the_year() -> None:
    early = period_in_words("id: 'claude-2.0' ... trainingDataCutoff: 'Early 2023'")
    assert early is not None and early.text == "2023-01..2023-04"
    assert early.start == datetime(2023, 1, 1, tzinfo=UTC)
    assert early.last_moment == datetime(2023, 4, 30, 23, 59, 59, tzinfo=UTC)
    mid = period_in_words("mid-2024")
    assert mid is not None and (mid.start.month, mid.last_moment.month) == (5, 8)
    late = period_in_words("Late 2022")
    assert late is not None and late.end == datetime(2023, 1, 1, tzinfo=UTC)
    half = period_in_words("the second half of 2021")
    assert half is not None and half.text == "2021-07..2021-12"


def test_no_words_no_period() -> None:
    assert period_in_words("Up to Sep 2021") is None
    assert period_in_words("") is None


def test_parse_cutoff() -> None:
    assert parse_cutoff("2023-04-30") == datetime(2023, 4, 30, 23, 59, 59, tzinfo=UTC)
    assert parse_cutoff("2023-04-30T10:00:00Z") == datetime(2023, 4, 30, 10, tzinfo=UTC)
    with pytest.raises(InputError,
                       match=r"'April 2023' is not a date \(YYYY, YYYY-MM, YYYY-MM-DD\) or an ISO datetime"):
        parse_cutoff("April 2023")


@pytest.mark.parametrize(("text", "expected"), [
    ("2023", "2023-12-31T23:59:59+00:00"), ("2023-02", "2023-02-28T23:59:59+00:00"),
    ("2024-02", "2024-02-29T23:59:59+00:00"), ("2023-04-30", "2023-04-30T23:59:59+00:00"),
    ("2023-04-30T10:00:00Z", "2023-04-30T10:00:00+00:00")])
def test_published_cutoff_periods_mean_their_last_second(text: str, expected: str) -> None:
    """Model cutoffs are published as a year or a month; the snapshot includes that whole period."""
    assert parse_cutoff(text).isoformat() == expected


@pytest.mark.parametrize("cutoff", ["0202-06-01", "1900", "1969-12-31", "1989-12"])
def test_implausible_cutoffs_are_refused(cutoff: str) -> None:
    """Issue 14, item 2: ``--cutoff 0202-06-01`` (a typo for 2022) silently used today's HEAD
    and gave ``contaminated: true``."""
    with pytest.raises(InputError, match=f"cutoff '{cutoff}' is implausible"):
        parse_cutoff(cutoff)


def test_plausible_cutoffs_parse() -> None:
    assert parse_cutoff("2022-06-01").isoformat() == "2022-06-01T23:59:59+00:00"
    assert parse_cutoff("1990").year == 1990
    assert parse_cutoff("2999").year == 2999   # the future reads the latest commit: harmless
