"""The lm-eval 13-gram baseline: its normalisation, and items under 13 words invisible."""

from __future__ import annotations

from benchchecker_plugin.overlap._janitor import Janitor

LONG = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen"


def test_any_13gram_after_lowering_and_deleting_punctuation() -> None:
    j = Janitor([LONG, "don't " + LONG[4:], "a short item of six words"])
    assert j.visible == [True, True, False]
    j.scan(["Intro. ONE two, three four five six seven eight nine ten eleven twelve thirteen!"])
    assert j.hit == [True, False, False]
    j.scan(["dont two three four five six seven eight nine ten eleven twelve thirteen"])
    assert j.hit == [True, True, False]
    j.scan(["a short item of six words"])
    assert j.hit[2] is False                 # no 13-gram: never flagged


def test_punctuation_is_deleted_not_a_space() -> None:
    j = Janitor(["don't " + LONG[4:]])
    j.scan(["don t two three four five six seven eight nine ten eleven twelve thirteen"])
    assert j.hit == [False]
