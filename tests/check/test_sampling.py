"""``check --limit``: a stratified, seeded sample and one limit per benchmark (issue 39 item 3:
the first 200 items alphabetically were 4 MMLU subjects; one --limit served every benchmark)."""

from __future__ import annotations

from collections import Counter

import pytest

from benchchecker_plugin.check import CheckConfig, parse_limits, stratified_sample
from benchchecker_plugin.errors import InputError


def test_sample_takes_every_stratum_in_turn_and_is_seeded() -> None:
    items = [(s, i) for s in "abcd" for i in range(50)]   # sorted as the benchmark is: a first
    sample = stratified_sample(items, 10, lambda x: x[0], seed=3)
    assert sorted(Counter(s for s, _ in sample).values()) == [2, 2, 3, 3]
    assert sample == stratified_sample(items, 10, lambda x: x[0], seed=3)
    assert sample != stratified_sample(items, 10, lambda x: x[0], seed=4)
    assert sample == sorted(sample)                     # the benchmark's order
    assert len(set(sample)) == 10


def test_fewer_items_than_strata_are_random_strata_not_the_first_alphabetically() -> None:
    """``--limit 8`` over MMLU's 57 subjects once took the first 8 subjects by name. Over 400
    seeds, 3 items from 10 strata: one per stratum, and every stratum is chosen about as often
    (120 expected each; the bound is about 7 standard deviations wide)."""
    items = [(s, i) for s in "abcdefghij" for i in range(5)]
    chosen: Counter[str] = Counter()
    for seed in range(400):
        strata = [s for s, _ in stratified_sample(items, 3, lambda x: x[0], seed=seed)]
        assert len(set(strata)) == 3
        chosen.update(strata)
    assert set(chosen) == set("abcdefghij")
    assert all(60 <= c <= 180 for c in chosen.values()), chosen


def test_small_strata_give_all_they_have_and_the_rest_fill_the_limit() -> None:
    items = [("a", 0)] + [("b", i) for i in range(20)]
    sample = stratified_sample(items, 6, lambda x: x[0])
    assert Counter(s for s, _ in sample) == {"a": 1, "b": 5}
    assert stratified_sample(items, None, lambda x: x[0]) == items
    assert stratified_sample(items, 99, lambda x: x[0]) == items


def test_limits_parse_plain_and_per_benchmark() -> None:
    assert parse_limits("200") == {"*": 200}
    assert parse_limits("mmlu=200,truthfulqa=100") == {"mmlu": 200, "truthfulqa": 100}
    assert parse_limits("mmlu=200,50") == {"mmlu": 200, "*": 50}
    assert parse_limits(None) == {}
    config = CheckConfig(benchmarks=("mmlu", "truthfulqa"), cutoff="2024-01",
                         limits=parse_limits("mmlu=200,50"))
    assert config.limit_of("mmlu") == 200 and config.limit_of("truthfulqa") == 50
    for bad in ("0", "mmlu=x", "mmlu=", "mmlu=1,mmlu=2"):
        with pytest.raises(InputError, match="--limit"):
            parse_limits(bad)
    with pytest.raises(InputError, match="--limit hellaswag=...: unknown benchmark 'hellaswag'"):
        CheckConfig(benchmarks=("mmlu",), cutoff="2024-01", limits={"hellaswag": 3})
