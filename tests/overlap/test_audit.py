"""``audit_corpus``: one scan per benchmark, so its flags equal the scan of each benchmark alone
(templates masked within a benchmark only); a failed shard leaves the unfound items undecided."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.overlap import (
    DEFAULT_METRICS,
    OverlapItem,
    audit_corpus,
    build_table,
    item_results,
    overlap_flags,
    scan_corpus,
    shards_of,
)

TEMPLATE = "which of the following statements about the topic below is the correct one"


def _items() -> list[OverlapItem]:
    # benchmark a: 3 items sharing a 13-word template (masked at template_items=3);
    # benchmark b: one item with the same template (not a template within b)
    a = [OverlapItem("a", str(i), f"{TEMPLATE} item number {i} about rivers and lakes {i}")
         for i in range(3)]
    return [*a, OverlapItem("b", "0", f"{TEMPLATE} a lone question on mountains")]


def _alone(items: list[OverlapItem], corpus: str) -> list[dict]:
    out = []
    for bench in ("a", "b"):
        table = build_table([i for i in items if i.benchmark == bench], DEFAULT_METRICS,
                            template_items=3)
        stats = scan_corpus(table, shards_of(corpus))
        out += [f.to_dict() for f in overlap_flags(item_results(table, DEFAULT_METRICS), stats)]
    return out


def _strip(flags: list[dict]) -> list[dict]:
    return [{k: v for k, v in f.items() if k != "created_at"} for f in flags]


def test_audit_equals_each_benchmark_scanned_alone(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "d", "text": f"page: {TEMPLATE} a lone question on "
                                                     "mountains. bye"}) + "\n", encoding="utf-8")
    items = _items()
    audit = audit_corpus(items, [str(corpus)], template_items=3)
    assert _strip([f.to_dict() for f in audit.flags]) == _strip(_alone(items, str(corpus)))
    assert audit.benchmarks["a"]["masked_ngrams"] > 0 and audit.benchmarks["b"]["masked_ngrams"] == 0
    assert audit.counts("b") == {"contaminated": 1, "clean": 0, "undecided": 0}
    assert audit.counts("a") == {"contaminated": 0, "clean": 3, "undecided": 0}
    assert audit.to_dict()["rule"] == "coverage" and audit.failed == {}


def test_failed_shard_recorded_and_unfound_items_undecided(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"text": f"{TEMPLATE} a lone question on mountains"}) + "\n",
                    encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": 3}\n', encoding="utf-8")
    audit = audit_corpus(_items(), [str(good), str(bad)], template_items=3)
    assert audit.failed == {str(bad): f"{bad}: line 1: field 'text' is int, not text"}
    assert audit.counts("a") == {"contaminated": 0, "clean": 0, "undecided": 3}
    assert audit.counts("b")["contaminated"] == 1


def test_no_items_or_no_corpus_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="^the benchmark has no item to look for$"):
        audit_corpus([], [str(tmp_path)])
    with pytest.raises(InputError, match=r"^no corpus given \(--corpus PATH\)$"):
        audit_corpus(_items(), [])


def test_a_shard_failing_midway_keeps_what_it_read_and_the_next_shard_is_scanned(
        tmp_path: Path) -> None:
    """The lone b item is in the failing shard's first line and in no other shard: found; the a
    items are in the shard after it: found; nothing is clean while a shard failed."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "1.jsonl").write_text(json.dumps({"text": f"{TEMPLATE} a lone question on mountains"})
                                    + "\n{broken\n", encoding="utf-8")
    (folder / "2.jsonl").write_text("".join(json.dumps({"text": i.text}) + "\n" for i in _items()[:2]),
                                    encoding="utf-8")
    audit = audit_corpus(_items(), [str(folder)], template_items=3)
    assert list(audit.failed) == [str(folder / "1.jsonl")] and audit.shards == 2
    assert audit.failed[str(folder / "1.jsonl")].startswith(f"{folder / '1.jsonl'}: line 2: not JSON")
    got = {(f.benchmark, f.instance_id): f.contaminated for f in audit.flags}
    assert got == {("a", "0"): True, ("a", "1"): True, ("a", "2"): None, ("b", "0"): True}
