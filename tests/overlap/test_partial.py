"""Per-shard partials merged in shard order equal one scan over all shards, flags byte for byte.

The reference is one scanner over every shard in turn. The corpus is made so that the cases where
a per-shard scan could drift from it occur: items found by several shards (the best evidence must
be the earliest shard's on a tie, the quotes the longest, earliest first), a shard failing after
finished batches (their counts stay), a clean shard, and items quoted more often than kept.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from benchchecker_plugin.overlap import DEFAULT_METRICS, OverlapItem, shards_of
from benchchecker_plugin.overlap import _scan as scan_mod
from benchchecker_plugin.overlap._found import Found
from benchchecker_plugin.overlap._partial import ScanPartial, combine, combine_all, from_payload, to_payload
from benchchecker_plugin.overlap._result import item_results, overlap_flags
from benchchecker_plugin.overlap._scan import scan_corpus, scan_shard
from benchchecker_plugin.overlap._table import build_table

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


def _flags(table, partial: ScanPartial) -> list[str]:  # noqa: ANN001
    out = []
    flags = overlap_flags(item_results(table, partial, DEFAULT_METRICS), [n for n, _ in partial.failed],
                          len(partial.shards), partial.documents)
    for f in flags:
        d = f.to_dict()
        d.pop("created_at")
        out.append(json.dumps(d, sort_keys=True))
    return out


def _one_scanner(table, shards) -> ScanPartial:  # noqa: ANN001
    """The reference: one scanner reading every shard in turn, never reset."""
    from benchchecker_plugin.overlap._corpus import ShardError, iter_documents
    from benchchecker_plugin.overlap._scan import batches

    found = Found(table)
    failed = []
    for s in shards:
        try:
            for ids, texts, _ in batches(iter_documents(s)):
                found.batch(s.name, ids, texts)
        except ShardError as exc:
            failed.append((s.name, str(exc)))
    return found.partial(tuple(s.name for s in shards), 0.0, tuple(failed))


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    items = _items()
    files = corpus(tmp_path_factory.mktemp("partial"), items)
    return items, [s for f in files for s in shards_of(str(f))]


def test_merged_partials_equal_one_scan_in_any_grouping(setup, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    items, shards = setup
    monkeypatch.setattr(scan_mod, "BATCH_BYTES", 4000)   # several batches per shard; s4 fails after some
    table = build_table(items)
    ref_partial = _one_scanner(table, shards)
    assert [n for n, _ in ref_partial.failed] == [shards[4].name]
    ref = _flags(table, ref_partial)
    assert sum('"contaminated": true' in f for f in ref) > 100
    parts = [scan_shard(table, s) for s in shards]
    assert parts[4].failed and parts[4].documents > 0           # its finished batches are kept
    groupings = [combine_all(parts, len(items), table.sizes),
                 combine(combine(parts[0], parts[1]), combine(parts[2], combine(parts[3], parts[4]))),
                 combine(parts[0], combine_all(parts[1:], len(items), table.sizes)),
                 scan_corpus(table, shards)]
    for merged in groupings:
        assert (merged.shards, merged.documents, merged.bytes, merged.failed) == (
            ref_partial.shards, ref_partial.documents, ref_partial.bytes, ref_partial.failed)
        for n in table.sizes:
            assert np.array_equal(merged.counts[n][0], ref_partial.counts[n][0])
            assert np.array_equal(merged.counts[n][1], ref_partial.counts[n][1])
        assert merged.evidence == ref_partial.evidence and merged.quotes == ref_partial.quotes
        assert _flags(table, merged) == ref


def test_payload_round_trip(setup) -> None:  # noqa: ANN001
    items, shards = setup
    table = build_table(items)
    part = scan_shard(table, shards[1])
    again = from_payload(*to_payload(part))
    assert _flags(table, again) == _flags(table, part)
    assert again.evidence == part.evidence and again.quotes == part.quotes


def test_partial_of_another_table_is_refused(setup) -> None:  # noqa: ANN001
    items, shards = setup
    part = scan_shard(build_table(items), shards[1])
    small = scan_shard(build_table(items[:5]), shards[1])
    with pytest.raises(ValueError, match="different benchmark tables"):
        combine(part, small)
