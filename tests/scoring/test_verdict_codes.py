"""Verdicts as the scorer's codes: a ``CodedVerdicts`` is the mapping it stands for, and gives the
scorer the rows the plain mapping gives."""

from __future__ import annotations

import numpy as np
import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import Verdict
from benchchecker_plugin.scoring._verdict_codes import NO_VERDICT, CodedVerdicts, verdict_code_rows

IDS = tuple(f"i-{k}" for k in range(12))


def test_coded_verdicts_are_the_mapping_they_stand_for() -> None:
    codes = np.array([0, 1, 2, NO_VERDICT] * 3, np.int8)
    coded = CodedVerdicts(IDS, codes)
    plain = {i: [Verdict.CLEAN, Verdict.CONTAMINATED, Verdict.UNDECIDED][c]
             for i, c in zip(IDS, codes.tolist()) if c != NO_VERDICT}
    assert dict(coded) == plain and len(coded) == 9 and list(coded) == list(plain)
    assert "i-3" not in coded and coded["i-1"] is Verdict.CONTAMINATED
    with pytest.raises(KeyError):
        coded["i-3"]
    rows = verdict_code_rows({"a": coded, "b": plain, "c": coded}, ["a", "b", "c"], IDS)
    assert np.array_equal(rows[0], rows[1]) and np.array_equal(rows[0], rows[2])
    assert np.array_equal(rows[0], np.where(codes == NO_VERDICT, 2, codes))
    other = IDS[::-1]   # another instance list: read as a mapping
    assert np.array_equal(verdict_code_rows({"a": coded}, ["a"], other)[0],
                          verdict_code_rows({"a": plain}, ["a"], other)[0])
    for bad in (np.zeros(3, np.int8), np.full(len(IDS), 4)):
        with pytest.raises(InputError, match="one code from 0 to 3"):
            CodedVerdicts(IDS, bad)
