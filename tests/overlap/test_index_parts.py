"""The index in partitions: contiguous balanced partitions, corpus order kept across them, each
item's top-k the best k of the partitions' answers, one partition equal to one index, n-gram flags
equal to the scan's on the planted corpus, the CLI building then reusing it, and (slow) a local
Ray cluster building and searching it with the same flags as this process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.overlap import (
    OverlapCorpus,
    OverlapRun,
    Shard,
    iter_documents,
    run_overlap,
    shards_of,
)
from benchchecker_plugin.overlap._index import CorpusIndex, build_index
from benchchecker_plugin.overlap._index_parts import (
    PARTS,
    PartedIndex,
    build_parted_index,
    open_index,
    partition,
)
from tests.overlap.test_index import _flags, planted  # noqa: F401  (the fixture)


def _shards(sizes: list[int]) -> list[Shard]:
    return [Shard(f"s{i}.jsonl", "jsonl", n) for i, n in enumerate(sizes)]


def test_partition_hand_cases() -> None:
    assert partition(_shards([10, 10, 10, 10]), 2) == [(0, 2), (2, 4)]
    assert partition(_shards([100, 1, 1, 1]), 2) == [(0, 1), (1, 4)]
    assert partition(_shards([1, 1, 1, 100]), 3) == [(0, 2), (2, 3), (3, 4)]
    assert partition(_shards([5, 5]), 8) == [(0, 1), (1, 2)]          # at most one per shard
    assert partition(_shards([5]), 1) == [(0, 1)]
    with pytest.raises(InputError, match="--index-partitions must be >= 1, got 0"):
        partition(_shards([5]), 0)
    with pytest.raises(InputError, match="the index needs at least one corpus shard"):
        partition([], 2)


@given(st.lists(st.integers(0, 1000), min_size=1, max_size=30), st.integers(1, 12))
def test_partitions_are_contiguous_non_empty_and_cover_every_shard(sizes: list[int], parts: int) -> None:
    got = partition(_shards(sizes), parts)
    assert len(got) == min(parts, len(sizes))
    assert got[0][0] == 0 and got[-1][1] == len(sizes)
    assert all(a < b for a, b in got) and all(b == c for (_, b), (c, _) in zip(got, got[1:]))


@pytest.fixture(scope="module")
def four_shards(planted, tmp_path_factory: pytest.TempPathFactory) -> tuple[list, list[Shard]]:  # noqa: ANN001, F811
    """The planted corpus of tests/overlap/test_index re-cut into four shards."""
    items, corpus, _ = planted
    docs = [line for name in ("a.jsonl", "b.jsonl") for line in (corpus / name).read_text().splitlines()]
    root = tmp_path_factory.mktemp("parts")
    for p in range(4):
        (root / f"c{p}.jsonl").write_text("".join(d + "\n" for d in docs[p::4]), encoding="utf-8")
    return items, shards_of(str(root))


def _strip(flags: list) -> list[dict]:  # noqa: ANN001
    return [{k: v for k, v in f.to_dict().items() if k != "created_at"} for f in flags]


def test_one_partition_is_one_index(four_shards, tmp_path: Path) -> None:  # noqa: ANN001
    items, shards = four_shards
    build_index(shards, tmp_path / "one")
    build_parted_index(shards, tmp_path / "parted", 1)
    one = CorpusIndex.open(tmp_path / "one", shards).search(items, 5)
    parted = open_index(tmp_path / "parted", shards)
    assert isinstance(parted, PartedIndex)
    assert parted.search(items, 5) == one


def test_partitions_keep_corpus_order_and_merge_top_k(four_shards, tmp_path: Path) -> None:  # noqa: ANN001
    items, shards = four_shards
    manifest = build_parted_index(shards, tmp_path / "ix", 3)
    assert [(a, b) for _, a, b, _, _ in manifest.parts] == partition(shards, 3)
    order = {(s.name, doc): o for o, (s, doc) in enumerate((s, d) for s in shards
                                                            for d, _ in iter_documents(s))}
    index = open_index(tmp_path / "ix", shards)
    got = index.search(items, 4)
    parts = [CorpusIndex.open(tmp_path / "ix" / f, shards[a:b]) for f, a, b, _, _ in manifest.parts]
    each = [p.search(items, 4) for p in parts]
    for i, row in enumerate(got):
        assert all(h.doc_no == order[(h.shard, h.doc)] for h in row)      # the corpus's order
        assert [h.ord for h in row] == sorted(h.ord for h in row) or len({h.score for h in row}) > 1
        pool = sorted((h for answer in each for h in answer[i]), key=lambda h: (-h.score, order[(h.shard, h.doc)]))
        assert [(h.score, h.shard, h.doc) for h in row] == [(h.score, h.shard, h.doc) for h in pool[:4]]


def test_parted_index_flags_equal_the_scan(four_shards, tmp_path: Path) -> None:  # noqa: ANN001
    items, shards = four_shards
    corpus = OverlapCorpus(tuple(s.name for s in shards))
    scan = run_overlap(items, corpus)
    parted = run_overlap(items, corpus, OverlapRun(engine="index", index_dir=tmp_path / "ix", index_partitions=3))
    assert _flags(parted) == _flags(scan)
    assert sum(bool(f.contaminated) for f in scan.flags) >= 5


def test_mismatched_corpus_is_one_line(four_shards, tmp_path: Path) -> None:  # noqa: ANN001
    _, shards = four_shards
    build_parted_index(shards, tmp_path / "ix", 2)
    with pytest.raises(InputError, match=r"ix: built from 4 corpus shard\(s\), this --corpus gives 3; "
                                         "rebuild it into a new folder"):
        open_index(tmp_path / "ix", shards[:3])
    with pytest.raises(InputError, match="a folder that is not empty and holds no index"):
        build_parted_index(shards, tmp_path / "ix", 2)


def _cli(items, shards: list[Shard], tmp: Path, name: str, *extra: str) -> list[dict]:  # noqa: ANN001
    data = tmp / "items.jsonl"
    data.write_text("".join(json.dumps({"id": i.instance_id, "text": i.text}) + "\n" for i in items))
    args = ["overlap", "--benchmark", "synth", "--data", str(data), "--engine", "index", "--index",
            str(tmp / f"ix_{name}"), "--index-partitions", "3", "-o", str(tmp / f"{name}.jsonl"), *extra]
    for s in shards:
        args += ["--corpus", s.name]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in (tmp / f"{name}.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("created_at")
    return rows


def test_cli_builds_partitions_then_reuses_them(four_shards, tmp_path: Path) -> None:  # noqa: ANN001
    items, shards = four_shards
    first = _cli(items[:60], shards, tmp_path, "a")
    assert (tmp_path / "ix_a" / PARTS).is_file() and (tmp_path / "ix_a" / "part-002").is_dir()
    stamp = (tmp_path / "ix_a" / PARTS).stat().st_mtime_ns
    assert _cli(items[:60], shards, tmp_path, "a") == first
    assert (tmp_path / "ix_a" / PARTS).stat().st_mtime_ns == stamp        # reused, not rebuilt


@pytest.mark.slow
def test_ray_builds_and_searches_partitions_as_locally(four_shards, tmp_path: Path) -> None:  # noqa: ANN001
    ray = pytest.importorskip("ray")
    items, shards = four_shards
    local = _cli(items, shards, tmp_path, "local")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert _cli(items, shards, tmp_path, "ray", "--executor", "ray") == local
    finally:
        ray.shutdown()
    assert sum(bool(f["contaminated"]) for f in local) >= 5


def test_a_manifest_of_another_format_or_unreadable_is_one_line(four_shards, tmp_path: Path) -> None:  # noqa: ANN001
    _, shards = four_shards
    build_parted_index(shards, tmp_path / "ix", 2)
    (tmp_path / "ix" / PARTS).write_text('{"format": "old/0", "parts": []}')
    with pytest.raises(InputError, match=r"ix: format 'old/0', this version reads "
                                         r"'benchchecker.overlap.index-parts/1'; rebuild it$"):
        open_index(tmp_path / "ix", shards)
    (tmp_path / "ix" / PARTS).write_text("{not json")
    with pytest.raises(InputError, match=r"ix: unreadable benchchecker-index-parts.json \("):
        open_index(tmp_path / "ix", shards)
