"""BugInstance.created: the PR creation time that release snapshots pick stand-in bases by."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from benchchecker_plugin.instances import BugInstance


@pytest.mark.parametrize(("text", "expected"), [
    ("2023-01-05T10:00:00Z", datetime(2023, 1, 5, 10, tzinfo=UTC)),
    ("2023-01-05T12:00:00+02:00", datetime(2023, 1, 5, 10, tzinfo=UTC)),
    (None, None),
    ("", None),
    ("last spring", None),
])
def test_created_is_utc_or_none(text: str | None, expected: datetime | None) -> None:
    inst = BugInstance("o__r-1", "swe-bench-verified", "o/r", "a" * 40, "", created_at=text)
    assert inst.created == expected
