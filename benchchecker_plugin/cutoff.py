"""Training cutoffs as published: a year, a month or a day, each meaning the whole period; or an
ISO datetime (``2024-04-30T12:00:00Z``), the moment itself (as ``--cutoff`` reads it).

:class:`CutoffPeriod` is a cutoff as the period it names; :func:`parse_cutoff` is the one reader of
a ``--cutoff`` value (a period means its last second), called once at each public boundary (a
command's option, :func:`~benchchecker_plugin.stage2.run_stage2`, ``Snapshot.at``) and passing
a datetime on."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from .errors import DataError, InputError

__all__ = ["EARLIEST_CUTOFF", "EARLIEST_CUTOFF_YEAR", "CutoffPeriod", "parse_cutoff", "period_in_words"]

#: no model's training cutoff lies before this year (git itself misreads dates before 1970 and
#: returns HEAD)
EARLIEST_CUTOFF_YEAR = 1990
EARLIEST_CUTOFF = datetime(EARLIEST_CUTOFF_YEAR, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class CutoffPeriod:
    """A published cutoff as the period it names: ``2023`` is all of 2023."""

    text: str
    start: datetime
    end: datetime

    @classmethod
    def parse(cls, text: str) -> CutoffPeriod:
        t = text.strip()
        try:
            if re.fullmatch(r"\d{4}", t):
                start = datetime(int(t), 1, 1, tzinfo=UTC)
                end = datetime(int(t) + 1, 1, 1, tzinfo=UTC)
            elif re.fullmatch(r"\d{4}-\d{2}", t):
                y, m = map(int, t.split("-"))
                start = datetime(y, m, 1, tzinfo=UTC)
                end = datetime(y + (m == 12), m % 12 + 1, 1, tzinfo=UTC)
            elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", t):
                start = datetime.fromisoformat(t).replace(tzinfo=UTC)
                end = start + timedelta(days=1)
            elif re.fullmatch(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}.*", t):   # a moment: its second
                moment = datetime.fromisoformat(t.replace("Z", "+00:00"))
                start = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)
                end = start + timedelta(seconds=1)
            else:
                raise ValueError(t)
        except ValueError:
            raise DataError(f"cutoff {text!r} is not YYYY, YYYY-MM, YYYY-MM-DD or an ISO datetime "
                            "(YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM])") from None
        if start.year < EARLIEST_CUTOFF_YEAR:   # 0202-06, a typo for 2022, flagged every fix clean
            raise DataError(f"cutoff {text!r} is implausible: no training cutoff lies before "
                            f"{EARLIEST_CUTOFF_YEAR}; a typo?")
        return cls(t, start, end)

    @property
    def last_moment(self) -> datetime:
        """The last second of the period: a snapshot "at the cutoff" includes the whole period."""
        return self.end - timedelta(seconds=1)

    @classmethod
    def matches(cls, text: str) -> bool:
        return bool(re.fullmatch(r"\d{4}(-\d{2}){0,2}", text.strip()))


# "Early 2023" and its kin: the part of the year the words name (thirds of a year for early / mid
# / late, halves for first / second half), read from a source's own words (claude-2's
# source says "Early 2023", which is not the whole of 2023)
_WORDS = {"early": (1, 4), "mid": (5, 8), "middle": (5, 8), "late": (9, 12), "end of": (9, 12),
          "first half of": (1, 6), "h1": (1, 6), "second half of": (7, 12), "h2": (7, 12)}


def period_in_words(text: str) -> CutoffPeriod | None:
    """The period a phrase like ``Early 2023``, ``mid-2024`` or ``second half of 2022`` names
    (``None`` when the text holds no such phrase): early = January-April, mid = May-August,
    late = September-December; ``text`` of the period is ``2023-01..2023-04``."""
    m = re.search(r"\b(early|mid(?:dle)?|late|end of|first half of|second half of|h1|h2)"
                  r"[\s-]*(?:of\s+)?(\d{4})\b", text, re.I)
    if not m:
        return None
    first, last = _WORDS[m.group(1).lower()]
    year = int(m.group(2))
    start = datetime(year, first, 1, tzinfo=UTC)
    end = datetime(year + (last == 12), last % 12 + 1, 1, tzinfo=UTC)
    return CutoffPeriod(f"{year}-{first:02d}..{year}-{last:02d}", start, end)


def parse_cutoff(cutoff: str | date | datetime | CutoffPeriod) -> datetime:
    """A timezone-aware UTC datetime. A cutoff published as a period means its last second:
    ``"2023-04-30"`` is 2023-04-30T23:59:59Z, ``"2023-04"`` 2023-04-30T23:59:59Z, ``"2023"``
    2023-12-31T23:59:59Z (as is a :class:`CutoffPeriod`); a datetime is itself (UTC when naive).
    A value that is none of these, or lies before :data:`EARLIEST_CUTOFF` (a typo), is an
    :class:`~benchchecker_plugin.errors.InputError` naming it."""
    if isinstance(cutoff, CutoffPeriod):
        return _plausible(cutoff.last_moment, cutoff.text)
    if isinstance(cutoff, datetime):
        return cutoff if cutoff.tzinfo else cutoff.replace(tzinfo=UTC)
    if isinstance(cutoff, date):
        return datetime.combine(cutoff, time(23, 59, 59), tzinfo=UTC)
    text = str(cutoff).strip()
    if CutoffPeriod.matches(text) and int(text[:4]) < EARLIEST_CUTOFF.year:
        return _plausible(datetime(max(int(text[:4]), 1), 1, 1, tzinfo=UTC), cutoff)
    try:   # (the plausibility check stays outside: its InputError is a ValueError too)
        if CutoffPeriod.matches(text):  # 2023, 2023-10, 2023-10-31: the end of that period
            parsed = CutoffPeriod.parse(text).last_moment
        else:
            parsed = parse_cutoff(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except (ValueError, DataError) as exc:
        raise InputError(f"cutoff {cutoff!r} is not a date (YYYY, YYYY-MM, YYYY-MM-DD) or an ISO "
                         "datetime") from exc
    return _plausible(parsed, cutoff)


def _plausible(when: datetime, given: object) -> datetime:
    """``when``, or an :class:`InputError` for a cutoff no model can have (``0202-06-01``, a typo
    for 2022, silently gave today's HEAD and ``contaminated: true``)."""
    if when < EARLIEST_CUTOFF:   # a future cutoff is harmless: it reads the latest commit
        raise InputError(f"cutoff {given!r} is implausible ({when.date().isoformat()}): no "
                         f"training cutoff lies before {EARLIEST_CUTOFF.year}; a typo?")
    return when
