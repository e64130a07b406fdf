"""Every metric against a slow, obviously-correct reference on hand-made and random cases, the
scan's document counts against brute force over token lists, and the parts rule's decisions."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.overlap import OverlapItem, Parts, get_metric, tokens
from benchchecker_plugin.overlap._metrics import (
    AnyNgram,
    Coverage,
    ItemWindows,
    LongestMatch,
    PartsEvidence,
    Retrieval,
    TokenLevel,
)
from benchchecker_plugin.overlap._result import dense_counts, item_results, item_windows
from benchchecker_plugin.overlap._scan import scan_texts
from benchchecker_plugin.overlap._table import build_table


def windows(n_tokens: int, n: int, counts: list[int]) -> ItemWindows:
    return ItemWindows(n_tokens, n, np.arange(len(counts)), np.array(counts, np.int64))


# ------------------------------------------------------------------- slow references
def covered_ref(n_tokens: int, n: int, matched: list[bool]) -> list[bool]:
    length = min(n, n_tokens)
    return [any(m and s <= t < s + length for s, m in enumerate(matched)) for t in range(n_tokens)]


def token_level_ref(n_tokens: int, n: int, matched: list[bool], min_span: int, budget: int) -> int:
    cov = covered_ref(n_tokens, n, matched)
    if n_tokens < n:
        return sum(cov)
    bad = 0
    for t in range(n_tokens):
        ok = cov[t] and any(cov[a] and cov[b] and b - a + 1 >= min_span
                            and sum(not c for c in cov[a:b + 1]) <= budget
                            for a in range(t + 1) for b in range(t, n_tokens))
        bad += ok
    return bad


def longest_ref(n_tokens: int, n: int, matched: list[bool]) -> int:
    length = min(n, n_tokens)
    best = 0
    for i in range(len(matched)):
        for j in range(i, len(matched)):
            if all(matched[i:j + 1]):
                best = max(best, j - i + length)
    return best


# ------------------------------------------------------------------- hand-made cases
def test_any_ngram_cap_and_min_count() -> None:
    m = AnyNgram(n=3, max_docs=10)
    assert m.measure(windows(5, 3, [0, 11, 0])).contaminated is False   # only a too-common 3-gram
    r = m.measure(windows(5, 3, [0, 2, -1]))
    assert r.contaminated is True and r.score == 0.5 and r.values == {"matched": 1, "ngrams": 2}


def test_coverage_threshold_excludes_masked() -> None:
    m = Coverage(n=2, threshold=0.7)
    assert m.measure(windows(5, 2, [1, 1, 0, -1])).score == pytest.approx(2 / 3)
    assert m.measure(windows(5, 2, [1, 1, 0, -1])).contaminated is False
    assert m.measure(windows(5, 2, [1, 1, 1, 0])).contaminated is True


def test_all_masked_is_nan_with_warning() -> None:
    with pytest.warns(RuntimeWarning, match="benchmark template"):
        r = Coverage(n=2).measure(windows(3, 2, [-1, -1]))
    assert math.isnan(r.score) and r.contaminated is None


def test_llama2_buckets_and_skip_budget() -> None:
    m = TokenLevel(n=2, min_span=11, skip_budget=4)
    # 20 tokens; matched bigrams cover tokens 0-5 and 8-13 (gap of 2 uncovered): one span of 14
    matched = [s in (0, 1, 2, 3, 4, 8, 9, 10, 11, 12) for s in range(19)]
    r = m.measure(windows(20, 2, [int(x) for x in matched]))
    assert r.values["tokens"] == 12 and r.values["bucket"] == "mixed" and r.contaminated is None
    # the same with a gap of 5 exceeds the budget: two spans of 6, both <= 10 tokens
    matched = [s in (0, 1, 2, 3, 4, 11, 12, 13, 14, 15) for s in range(19)]
    r = m.measure(windows(20, 2, [int(x) for x in matched]))
    assert r.values["tokens"] == 0 and r.values["bucket"] == "clean" and r.contaminated is False
    r = m.measure(windows(12, 2, [1] * 11))
    assert r.values["bucket"] == "dirty" and r.contaminated is True


def test_short_item_whole_item_rule() -> None:
    for metric in (AnyNgram(), Coverage(), TokenLevel(), LongestMatch()):
        assert metric.measure(windows(5, metric.n, [1])).contaminated is True
        assert metric.measure(windows(5, metric.n, [0])).contaminated is False


def test_longest_match_hand_case() -> None:
    r = LongestMatch(n=3, threshold=0.5).measure(windows(10, 3, [1, 1, 0, 1, 1, 1, 0, 0]))
    assert r.values["tokens"] == 5 and r.score == 0.5 and r.contaminated is True


def test_unknown_metric_is_one_line() -> None:
    with pytest.raises(InputError, match="unknown overlap metric 'bleu'; choose from any_ngram, "
                                         "coverage, longest, parts, retrieval, token_level"):
        get_metric("bleu")


@pytest.mark.parametrize("seed", range(40))
def test_metrics_equal_references_random(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([2, 3, 8])
    n_tokens = rng.randint(1, 30)
    k = max(1, n_tokens - n + 1) if n_tokens >= n else 1
    matched = [rng.random() < 0.6 for _ in range(k)]
    w = windows(n_tokens, n, [int(x) for x in matched])
    budget = rng.randint(0, 4)
    span = rng.randint(3, 12)
    got = TokenLevel(n=n, min_span=span, skip_budget=budget).measure(w).values["tokens"]
    assert got == token_level_ref(n_tokens, n, matched, span, budget)
    assert LongestMatch(n=n).measure(w).values["tokens"] == longest_ref(n_tokens, n, matched)
    assert Coverage(n=n).measure(w).values["matched"] == sum(matched)


# ------------------------------------------------------------------- the scan against brute force
def doc_count_ref(item: list[str], s: int, k: int, docs: list[list[str]]) -> int:
    """Documents holding the window: found from the item's 4-word seeds, so a window (a whole
    item) of fewer than 4 words is never found."""
    gram = item[s:s + k]
    if k < 4:
        return 0
    return sum(any(d[i:i + k] == gram for i in range(len(d) - k + 1)) for d in docs)


@pytest.mark.parametrize("seed", range(15))
def test_scan_counts_equal_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    words = ["a", "b", "c", "d", "e"]
    items = [OverlapItem("b", str(i), " ".join(rng.choices(words, k=rng.randint(1, 12))))
             for i in range(6)]
    docs = [" ".join(rng.choices(words, k=rng.randint(0, 60))) for _ in range(8)]
    table = build_table(items, (4, 6), template_items=100)
    partial = scan_texts(table, docs)
    dense = dense_counts(table, partial)
    doc_tokens = [tokens(d) for d in docs]
    for index, item in enumerate(items):
        toks = tokens(item.text)
        for n in (4, 6):
            w = item_windows(table, dense, n, index)
            want = [doc_count_ref(toks, int(s), w.length, doc_tokens) for s in w.starts]
            assert list(w.doc_counts) == want


def test_template_ngrams_are_masked_and_counted() -> None:
    prefix = "for which of these two scenarios does the main character do something wrong"
    items = [OverlapItem("b", str(i), f"{prefix} case number {i} zebra{i}") for i in range(12)]
    table = build_table(items, (8,), template_items=10)
    partial = scan_texts(table, [prefix])   # the template alone is in the corpus: no item is contaminated
    results = item_results(table, partial, (Coverage(n=8),))
    # the prefix and "case number" (15 tokens, in all 12 items) hold eight 8-grams
    assert all(r.masked[8] == 8 for r in results)
    assert not any(r.measures["coverage"].contaminated for r in results)


# ------------------------------------------------------------------- the parts rule
def evidence(kind: int = 0, sim: float = 0.0, **kw: object) -> PartsEvidence:
    base = dict(kind=kind, sim=sim, matched=10, options_found=0, options=4, documents=1, info=9,
                info_question=6, shared=False, seeded=True, question_query=False)
    base.update(kw)
    return PartsEvidence(**base)  # type: ignore[arg-type]


def test_parts_decisions() -> None:
    p = Parts()
    assert p.measure_parts(evidence()).contaminated is False                     # nothing found
    assert p.measure_parts(evidence(2, 0.76)).contaminated is True               # with its answer
    assert p.measure_parts(evidence(1, 0.95)).contaminated is True               # the question alone
    low = p.measure_parts(evidence(1, 0.85))
    assert low.contaminated is None and "similarity 0.85 without its answer" in low.values["note"]
    shared = p.measure_parts(evidence(1, 1.0, shared=True))
    assert shared.contaminated is None and "shared with other items" in shared.values["note"]
    assert p.measure_parts(evidence(1, 0.8, question_query=True)).contaminated is True   # TruthfulQA
    with pytest.warns(RuntimeWarning, match="too short to be distinctive: 3 informative word"):
        short = p.measure_parts(evidence(3, 1.0, info=3))
    assert short.contaminated is None and math.isnan(short.score)
    r = p.measure_parts(evidence(3, 1.0, options_found=4))
    assert r.values["kind"] == "question+options" and r.values["options_found"] == "4/4"


# ------------------------------------------------------------------- Deng et al.'s retrieval score
def lcs_ref(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


def retrieval_ref(item: str, docs: list[str], n: int = 13) -> float:
    """Every n-word window of every document (a shorter document whole), LCS over min(n, item)."""
    words = tokens(item)
    best = 0.0
    for d in docs:
        t = tokens(d)
        for s in range(max(len(t) - n + 1, 1) if t else 0):
            best = max(best, lcs_ref(t[s:s + n], words) / min(n, len(words)))
    return best


def test_retrieval_hand_cases() -> None:
    m = Retrieval()
    item = "What is the capital of France? Paris"   # 7 words: a short item
    r = m.measure_retrieved(item, ["unrelated text here", "A quiz: what is the capital of France? -- Paris!"])
    assert r.score == 1.0 and r.contaminated is True and r.values["rank"] == 2
    assert r.values["chunk"] == "A quiz: what is the capital of France? -- Paris"   # as stored
    # one word of the item in a one-word page: 1/7, never 1.0
    assert m.measure_retrieved(item, ["Paris"]).score == pytest.approx(1 / 7)
    long = " ".join(f"w{i}" for i in range(30))
    gappy = " ".join(f"w{i}" if i % 4 else "x" for i in range(30))   # every 4th word replaced
    r = m.measure_retrieved(long, [gappy])
    assert r.score == pytest.approx(10 / 13) and r.contaminated is False   # best window: 10 of 13
    assert m.measure_retrieved(long, []).score == 0.0
    masked = np.zeros(7, bool)
    masked[:6] = True   # "what is the capital of france" a benchmark template: only "paris" counts
    assert m.measure_retrieved(item, ["what is the capital of france paris"], masked).score == pytest.approx(1 / 7)


@pytest.mark.parametrize("seed", range(25))
def test_retrieval_equals_reference_random(seed: int) -> None:
    rng = random.Random(seed)
    words = ["a", "b", "c", "d", "e", "f"]
    item = " ".join(rng.choices(words, k=rng.randint(1, 25)))
    docs = [" ".join(rng.choices(words, k=rng.randint(0, 40))) for _ in range(rng.randint(0, 4))]
    n = rng.choice([3, 5, 13])
    assert Retrieval(n=n).measure_retrieved(item, docs).score == pytest.approx(retrieval_ref(item, docs, n))
