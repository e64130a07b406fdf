"""The folding table equals its reference (NFKD, case folding, marks dropped) on code points, and
is cached in the user's cache folder."""

from __future__ import annotations

import random

import numpy as np

from benchchecker_plugin.overlap import _fold
from benchchecker_plugin.overlap._fold import DROP, MAPPED, SAME, SEP, fold_char, fold_table


def test_fold_table_is_the_reference_on_code_points() -> None:
    table = fold_table()
    rng = random.Random(0)
    sample = list(range(0, 0x3000)) + list(range(0xD7F0, 0xE010)) + list(range(0xFB00, 0xFFFF)) + \
        rng.sample(range(0x10000, 0x110000), 4000)
    for c in sample:
        want = fold_char(chr(c))
        k = int(table.kind[c])
        if k == SEP:
            got = " "
        elif k == SAME:
            got = chr(c)
        elif k == DROP:
            got = ""
        else:
            assert k == MAPPED
            o, n = int(table.offset[c]), int(table.length[c])
            got = "".join(" " if x == 0 else chr(x) for x in table.data[o:o + n])
        assert got == (" " if want.isspace() and want else want), hex(c)


def test_no_character_folds_into_more_tokens_than_twice_its_bytes() -> None:
    """The kernel's output is sized one token per byte, and retried four times roomier (one
    character, U+FDFA, folds into four words from three bytes)."""
    table = fold_table()
    for c in np.flatnonzero(table.kind == MAPPED):
        o, n = int(table.offset[c]), int(table.length[c])
        out = "".join(" " if x == 0 else chr(x) for x in table.data[o:o + n])
        assert len(out.split()) <= 2 * len(chr(int(c)).encode("utf-8")), hex(int(c))


def test_hand_cases() -> None:
    assert [fold_char(c) for c in "Aé\u0301ﬁß３½\u00ad-_"] == ["a", "e", "", "fi", "ss", "3", "1 2", "", " ", " "]


def test_table_is_kept_in_the_cache_folder(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("BENCHCHECKER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_fold, "_TABLE", [])
    built = fold_table()
    (kept,) = tmp_path.glob("fold-*.npz")
    monkeypatch.setattr(_fold, "_TABLE", [])
    monkeypatch.setattr(_fold, "_build", lambda: (_ for _ in ()).throw(AssertionError("rebuilt")))
    again = fold_table()
    assert kept.stat().st_size > 0 and all((a == b).all() for a, b in zip(built, again))
