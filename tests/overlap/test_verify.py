"""The verification kernels against slow references: the tightest LCS alignment and the nearest
exact copy."""

from __future__ import annotations

import random

import numpy as np
import pytest

from benchchecker_plugin.overlap._verify import LCS_MAX, align, find_near

DP = np.zeros((LCS_MAX + 1, 2 * LCS_MAX + 2 * (LCS_MAX // 4) + 2), np.int32)


def lcs_ref(a: list[int], b: list[int]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


def tightest_ref(q: list[int], doc: list[int]) -> tuple[int, int, int]:
    """(LCS, first, last) over every window: the LCS of the whole region, reached by the window
    ending earliest, and of those the one starting latest."""
    best = lcs_ref(q, doc)
    if best == 0:
        return 0, -1, -1
    end = next(e for e in range(1, len(doc) + 1) if lcs_ref(q, doc[:e]) == best)
    start = next(s for s in range(end - 1, -1, -1) if lcs_ref(q, doc[s:end]) == best)
    return best, start, end - 1


@pytest.mark.parametrize("seed", range(60))
def test_align_is_the_tightest_longest_alignment(seed: int) -> None:
    rng = random.Random(seed)
    q = [rng.randint(1, 5) for _ in range(rng.randint(1, 12))]
    doc = [rng.randint(0, 6) for _ in range(rng.randint(0, 30))]
    th = np.array(doc, np.uint64)
    matched, own, first, last = align(np.array(q, np.uint64), th, 0, len(doc), 0, DP)
    want = tightest_ref(q, doc)
    assert (matched, first, last) == want
    if matched:   # the matched tokens lie in the span, and their count is the span's LCS
        assert lcs_ref(q, doc[first:last + 1]) == matched and own == matched
        assert doc[first] in q and doc[last] in q


def test_align_hand_cases() -> None:
    q = np.array([1, 2, 3, 4, 5], np.uint64)
    # an earlier stray 1 must not stretch the span; one word dropped; the own part counted
    th = np.array([1, 9, 9, 9, 9, 1, 2, 3, 5, 7], np.uint64)
    assert align(q, th, 0, th.size, 3, DP) == (4, 1, 5, 8)
    assert align(q, np.array([8, 8], np.uint64), 0, 2, 0, DP) == (0, 0, -1, -1)


@pytest.mark.parametrize("seed", range(40))
def test_find_near_is_the_first_after_else_the_nearest_before(seed: int) -> None:
    rng = random.Random(seed)
    doc = [rng.randint(0, 3) for _ in range(rng.randint(5, 60))]
    seq = [rng.randint(0, 3) for _ in range(rng.randint(1, 3))]
    a, b = 0, len(doc)
    span_a = rng.randint(0, len(doc) - 1)
    span_b = rng.randint(span_a, len(doc))
    window = rng.randint(1, 20)
    n = len(seq)
    after = [x for x in range(span_b, min(b, span_b + window) - n + 1) if doc[x:x + n] == seq]
    before = [x for x in range(max(a, span_a - window), span_a - n + 1) if doc[x:x + n] == seq]
    want = (after[0], after[0] + n) if after else (before[-1], before[-1] + n) if before else (-1, -1)
    got = find_near(np.array(seq, np.uint64), np.array(doc, np.uint64), a, b, span_a, span_b, window)
    assert got == want
