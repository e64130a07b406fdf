"""Per-shard partials merged in shard order equal one scan over all shards, flags byte for byte.

The reference is :func:`scan_corpus` itself (one scanner over every shard in turn). The corpus
is made so that the cases where a per-shard scan could drift from it occur: one batch finding
more new n-grams than the scanner's first hit buffer held (16,384), entries found by several
shards (the first location must be the earliest shard's), a shard failing after finished batches
(their counts stay), a clean shard, and the quote cap reached by several shards.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from benchchecker_plugin.overlap import (
    DEFAULT_METRICS,
    OverlapItem,
    build_table,
    item_results,
    overlap_flags,
    scan_corpus,
    shards_of,
)
from benchchecker_plugin.overlap import _scan as scan_mod
from benchchecker_plugin.overlap._partial import (
    COMPLETE,
    FULL,
    apply,
    combine,
    combine_all,
    scan_shard,
    table_fingerprint,
)

WORDS = [f"{a}{b}{c}" for a in "bcdfghklmnprst" for b in "aeiou" for c in "lmnrst"]


def _items(n: int = 640, seed: int = 0) -> list[OverlapItem]:
    rng = random.Random(seed)
    return [OverlapItem("synth", str(i), " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 60))))
            for i in range(n)]


def _jsonl(path: Path, docs: list[str]) -> None:
    path.write_text("".join(json.dumps({"id": f"{path.stem}-{i}", "text": t}) + "\n"
                            for i, t in enumerate(docs)), encoding="utf-8")


def corpus(root: Path, items: list[OverlapItem]) -> list[Path]:
    rng = random.Random(1)
    filler = " ".join(rng.choice(WORDS) for _ in range(3000))
    texts = [i.text for i in items]
    root.mkdir(parents=True, exist_ok=True)
    files = [root / f"s{k}.jsonl" for k in range(5)]
    _jsonl(files[0], [filler, "intro: " + " . ".join(texts[::3])])            # a third of the items
    _jsonl(files[1], ["\n".join(texts)])                                       # all: > 16,384 new hits
    _jsonl(files[2], [filler[::-1]])                                           # clean
    _jsonl(files[3], [" ".join(t.split()[: len(t.split()) // 2]) for t in texts[1::2]])   # halves
    _jsonl(files[4], [texts[5] + " " + filler, texts[7]])
    files[4].write_text(files[4].read_text() + "{not json\n", encoding="utf-8")   # fails at the end
    return files


def _flags(table, stats) -> list[str]:  # noqa: ANN001
    out = []
    for f in overlap_flags(item_results(table, DEFAULT_METRICS), stats):
        d = f.to_dict()
        d.pop("created_at")
        out.append(json.dumps(d, sort_keys=True))
    return out


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    items = _items()
    files = corpus(tmp_path_factory.mktemp("partial"), items)
    return items, [s for f in files for s in shards_of(str(f))]


def test_merged_partials_equal_one_scan_in_any_grouping(setup, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    items, shards = setup
    monkeypatch.setattr(scan_mod, "BATCH_BYTES", 4000)   # several batches per shard; s4 fails after some
    ref_table = build_table(items, DEFAULT_METRICS)
    ref_stats = scan_corpus(ref_table, shards)
    assert list(ref_stats.failed) == [shards[4].name]
    assert int((ref_table.doc_count > 0).sum()) > 16_384
    ref = _flags(ref_table, ref_stats)
    assert sum('"contaminated": true' in f for f in ref) > 100

    table = build_table(items, DEFAULT_METRICS)
    parts = [scan_shard(table, s, fingerprint=table_fingerprint(table)) for s in shards]
    assert not table.doc_count.any() and not table.locations   # scan_shard leaves the table alone
    assert parts[4].failed and parts[4].documents > 0           # its finished batches are kept
    groupings = [combine_all(parts),
                 combine(combine(parts[0], parts[1]), combine(parts[2], combine(parts[3], parts[4]))),
                 combine(parts[0], combine_all(parts[1:]))]
    for merged in groupings:
        t = build_table(items, DEFAULT_METRICS)
        stats = apply(t, merged)
        assert (stats.shards, stats.documents, stats.bytes, stats.failed) == (
            ref_stats.shards, ref_stats.documents, ref_stats.bytes, ref_stats.failed)
        assert (t.doc_count == ref_table.doc_count).all() and t.locations == ref_table.locations
        assert _flags(t, stats) == ref


def test_quote_cap_merges_exactly(setup, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    items, shards = setup
    monkeypatch.setattr(scan_mod, "MAX_LOCATIONS", 300)   # every shard with items quotes only a prefix
    monkeypatch.setattr(scan_mod, "BATCH_BYTES", 4000)
    table = build_table(items, DEFAULT_METRICS)
    parts = [scan_shard(table, s) for s in shards]
    assert [p.quotes for p in parts] == [FULL, FULL, COMPLETE, FULL, COMPLETE]
    for order in ([0, 1, 2, 3, 4], [4, 3, 1, 0, 2], [2, 4, 0]):
        ref_table = build_table(items, DEFAULT_METRICS)
        ref = _flags(ref_table, scan_corpus(ref_table, [shards[k] for k in order]))
        for merged in (combine_all([parts[k] for k in order]),
                       combine(parts[order[0]], combine_all([parts[k] for k in order[1:]]))):
            t = build_table(items, DEFAULT_METRICS)
            stats = apply(t, merged)
            assert len(t.locations) == len(ref_table.locations) <= 300
            assert t.locations == ref_table.locations and _flags(t, stats) == ref


def test_partial_of_another_table_is_refused(setup) -> None:  # noqa: ANN001
    items, shards = setup
    big = build_table(items, DEFAULT_METRICS)
    part = scan_shard(big, shards[1])
    small = build_table(items[:5], DEFAULT_METRICS)
    assert table_fingerprint(small) != table_fingerprint(big)
    with pytest.raises(ValueError, match="another benchmark table"):
        apply(small, part)
