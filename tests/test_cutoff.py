"""cutoff.period_in_words: a source's own words name part of a period (issue 34: claude-2's
"Early 2023" is January-April 2023, not the year)."""

from __future__ import annotations

from datetime import UTC, datetime

from benchchecker_plugin.cutoff import period_in_words


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
