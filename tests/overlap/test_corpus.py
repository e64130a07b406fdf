"""Each corpus format read on small local files; error lines pinned."""

from __future__ import annotations

import gzip
import json
import os
import re
import time
import tracemalloc
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.overlap import (
    MAX_RECORD_BYTES,
    Shard,
    ShardError,
    corpus_shards,
    iter_documents,
    shards_of,
)

DOCS = [{"id": "a", "text": "first document"}, {"id": "b", "text": "second één"}]
WANT = [("a", "first document"), ("b", "second één")]


def _jsonl(docs: list[dict]) -> bytes:
    return "".join(json.dumps(d) + "\n" for d in docs).encode()


def _read(path: Path | str) -> list[tuple[str, str]]:
    return [doc for s in shards_of(str(path)) for doc in iter_documents(s)]


def test_jsonl_gz_zst(tmp_path: Path) -> None:
    import zstandard

    (tmp_path / "c.jsonl").write_bytes(_jsonl(DOCS))
    (tmp_path / "c.jsonl.gz").write_bytes(gzip.compress(_jsonl(DOCS)))
    (tmp_path / "c.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(_jsonl(DOCS)))
    for name in ("c.jsonl", "c.jsonl.gz", "c.jsonl.zst"):
        assert _read(tmp_path / name) == WANT


def test_parquet_by_row_group(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": ["a", "b"], "text": ["first document", "second één"]}),
                   tmp_path / "c.parquet", row_group_size=1)
    assert pq.ParquetFile(tmp_path / "c.parquet").num_row_groups == 2
    assert _read(tmp_path / "c.parquet") == WANT


def test_folder_of_txt(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.txt").write_text("text file", encoding="utf-8")
    (tmp_path / "y.jsonl").write_bytes(_jsonl(DOCS[:1]))
    assert _read(tmp_path) == [("x.txt", "text file"), ("a", "first document")]


@pytest.mark.slow   # importing datasets takes ~20 s on 2 busy cores
def test_datasets_local_file_streamed(tmp_path: Path) -> None:
    (tmp_path / "c.jsonl").write_bytes(_jsonl(DOCS))
    assert _read(f"hf:{tmp_path / 'c.jsonl'}") == WANT


def test_error_lines(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"body": "x"}\n', encoding="utf-8")
    with pytest.raises(ShardError, match=r"bad.jsonl: line 1: no field 'text' \(fields: body\); pass "
                                         "--text-field$"):
        _read(bad)
    bad.write_text('{"text": 3}\n', encoding="utf-8")
    with pytest.raises(ShardError, match=r"bad.jsonl: line 1: field 'text' is int, not text$"):
        _read(bad)
    gz = tmp_path / "broken.jsonl.gz"
    gz.write_bytes(b"not gzip at all")
    with pytest.raises(ShardError, match=r"broken.jsonl.gz: cannot read \(BadGzipFile"):
        _read(gz)
    with pytest.raises(InputError, match="--corpus .*nothing: no such file or folder"):
        shards_of(str(tmp_path / "nothing"))


def _parquet(path: Path, **columns: list) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(columns), path)
    return path


@pytest.mark.parametrize(("name", "make", "line"), [
    ("garbage.parquet", lambda p: p.write_bytes(b"PAR1 not really"),
     "garbage.parquet: cannot read as Parquet (Parquet magic bytes not found in footer. Either the "
     "file is corrupted or this is not a parquet file.)"),
    ("nocol.parquet", lambda p: _parquet(p, body=["x"]),
     "nocol.parquet: no column 'text' (columns: body); pass --text-field"),
    ("int.parquet", lambda p: _parquet(p, text=[1, 2]), "int.parquet: column 'text' is int64, not text"),
    ("null.parquet", lambda p: _parquet(p, text=["a", None]),
     "null.parquet: row 1: field 'text' is null, not text"),
    ("nul.jsonl", lambda p: p.write_text('{"text": null}\n'), "nul.jsonl: line 1: field 'text' is null, "
                                                              "not text"),
    ("list.jsonl", lambda p: p.write_text("[1, 2]\n"), "list.jsonl: line 1: not a JSON object"),
    ("bad.jsonl", lambda p: p.write_text('{"text": "ok"}\n{oops\n'),
     "bad.jsonl: line 2: not JSON (JSON is malformed: object keys must be strings (byte 1))"),
    ("bad.jsonl.zst", lambda p: p.write_bytes(b"not zstd"),
     "bad.jsonl.zst: cannot read (ZstdError: zstd decompress error: Unknown frame descriptor)"),
    ("cut.jsonl.gz", lambda p: p.write_bytes(gzip.compress(b'{"text": "abc"}\n' * 100)[:40]),
     "cut.jsonl.gz: cannot read (EOFError: Compressed file ended before the end-of-stream marker "
     "was reached)"),
    ("latin.txt", lambda p: p.write_bytes(b"caf\xe9"),
     "latin.txt: cannot read (UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position "
     "3: unexpected end of data)"),
])
def test_every_bad_shard_is_one_line_naming_it(name: str, make, line: str, tmp_path: Path) -> None:  # noqa: ANN001
    make(tmp_path / name)
    with pytest.raises(ShardError) as err:
        _read(tmp_path / name)
    assert str(err.value) == f"{tmp_path / name}: {line.split(': ', 1)[1]}"


def test_bad_corpus_arguments_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError) as err:
        shards_of(str(tmp_path / "empty"))
    assert str(err.value) == (f"--corpus {tmp_path / 'empty'}: a folder with no corpus file (.jsonl, "
                              ".json, .ndjson, .gz, .zst, .parquet, .txt)")
    (tmp_path / "c.csv").write_text("x")
    [shard] = shards_of(str(tmp_path / "c.csv"))   # named or found, a file is read or fails
    assert shard == Shard(str(tmp_path / "c.csv"), "failed", 1,
                          "unknown format (expected .jsonl, .json, .ndjson, .gz, .zst, .parquet, .txt)")


# ------------------------------------------------------------------ one rule for what a corpus is
def _folder_of_every_kind(root: Path) -> Path:
    """A corpus folder holding one good shard and one of each kind that cannot be read."""
    root.mkdir()
    (root / "a.jsonl").write_bytes(_jsonl(DOCS))
    (root / "gone.jsonl").symlink_to(root.parent / "unmounted" / "gone.jsonl")   # a dangling link
    os.mkfifo(root / "pipe.jsonl")                                                  # nobody writes
    for codec in ("xz", "bz2", "lz4"):
        (root / f"c.jsonl.{codec}").write_bytes(b"compressed bytes")
    (root / "empty.jsonl").write_bytes(b"")                                         # a failed export
    (root / "notes.csv").write_text("a,b\n")
    (root / ".DS_Store").write_bytes(b"x")
    return root


FOLDER_REASONS = {
    "a.jsonl": None,
    "c.jsonl.bz2": "compressed with .bz2, which the corpus reader does not support (supported: .gz, "
                   ".zst; or uncompressed .jsonl, .json, .ndjson, .parquet, .txt)",
    "c.jsonl.lz4": "compressed with .lz4, which the corpus reader does not support (supported: .gz, "
                   ".zst; or uncompressed .jsonl, .json, .ndjson, .parquet, .txt)",
    "c.jsonl.xz": "compressed with .xz, which the corpus reader does not support (supported: .gz, "
                  ".zst; or uncompressed .jsonl, .json, .ndjson, .parquet, .txt)",
    "empty.jsonl": "is empty (0 bytes: a failed export?)",
    "gone.jsonl": "a link to {tmp}/unmounted/gone.jsonl, which does not exist (a dangling link: a shard "
                  "on a disk not mounted?)",
    "notes.csv": "unknown format (expected .jsonl, .json, .ndjson, .gz, .zst, .parquet, .txt)",
    "pipe.jsonl": "is a FIFO (named pipe), not a regular file; refused, not opened",
}


@pytest.mark.timeout(30)   # opening the FIFO would wait for a writer forever
def test_every_path_under_a_folder_is_read_or_a_failed_shard_with_its_reason(tmp_path: Path) -> None:
    root = _folder_of_every_kind(tmp_path / "corpus")
    shards = shards_of(str(root))
    assert [Path(s.name).name for s in shards] == sorted(FOLDER_REASONS)   # .DS_Store: see the notes
    for shard in shards:
        reason = FOLDER_REASONS[Path(shard.name).name]
        if reason is None:
            assert shard.kind == "jsonl" and list(iter_documents(shard)) == WANT
            continue
        reason = reason.format(tmp=tmp_path)
        assert (shard.kind, shard.reason, shard.error) == ("failed", reason, f"{shard.name}: {reason}")
        with pytest.raises(ShardError) as err:
            list(iter_documents(shard))
        assert str(err.value) == f"{shard.name}: {reason}"
    listing = corpus_shards([str(root)])
    assert listing.shards == tuple(shards)
    assert listing.failed == {s.name: s.error for s in shards if s.kind == "failed"} and len(listing.failed) == 7
    assert listing.notes == (f"--corpus {root}: 1 hidden name(s) not read (.DS_Store)",)


@pytest.mark.timeout(30)
def test_named_paths_follow_the_same_rule(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.jsonl")
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    (tmp_path / "gone.jsonl").symlink_to(tmp_path / "missing.jsonl")
    (tmp_path / "e.jsonl.gz").write_bytes(b"")
    (tmp_path / "c.ndjson.xz").write_bytes(b"x")
    want = {"pipe.jsonl": "is a FIFO (named pipe), not a regular file; refused, not opened",
            "zero.jsonl": "is a character device, not a regular file; refused, not opened",
            "gone.jsonl": f"a link to {tmp_path / 'missing.jsonl'}, which does not exist (a dangling "
                          "link: a shard on a disk not mounted?)",
            "e.jsonl.gz": "is empty (0 bytes: a failed export?)",
            "c.ndjson.xz": "compressed with .xz, which the corpus reader does not support (supported: "
                           ".gz, .zst; or uncompressed .jsonl, .json, .ndjson, .parquet, .txt)"}
    for name, reason in want.items():
        [shard] = shards_of(str(tmp_path / name))
        assert (shard.kind, shard.reason) == ("failed", reason), name
        with pytest.raises(ShardError, match=re.escape(f"{tmp_path / name}: {reason}")):
            list(iter_documents(shard))
    os.mkfifo(tmp_path / "d.jsonl")   # a local hf: path that is a FIFO is refused the same way
    assert shards_of(f"hf:{tmp_path / 'd.jsonl'}")[0].reason == want["pipe.jsonl"]


@pytest.mark.timeout(30)
def test_a_fifo_put_in_place_after_listing_is_refused_not_waited_on(tmp_path: Path) -> None:
    shard = shards_of(str(_write(tmp_path / "a.jsonl", _jsonl(DOCS))))[0]
    (tmp_path / "a.jsonl").unlink()
    os.mkfifo(tmp_path / "a.jsonl")
    with pytest.raises(ShardError, match=r"a.jsonl: is a FIFO \(named pipe\), not a regular file"):
        list(iter_documents(shard))


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_a_shard_reached_twice_is_read_once_with_a_note(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    _write(root / "a.jsonl", _jsonl(DOCS[:1]))
    _write(root / "sub" / "b.jsonl", _jsonl(DOCS[1:]))
    (tmp_path / "alias.jsonl").symlink_to(root / "a.jsonl")   # another name, the same file
    args = [f"{root}/", str(root / "a.jsonl"), str(tmp_path / "alias.jsonl"), str(root / "sub" / ".." / "a.jsonl"),
            str(root)]
    listing = corpus_shards(args)
    assert [s.name for s in listing.shards] == [f"{root}/a.jsonl", f"{root}/sub/b.jsonl"]
    assert [d for s in listing.shards for d in iter_documents(s)] == WANT
    assert listing.notes == (
        f"--corpus {root / 'a.jsonl'}: 1 shard(s) reached twice (the same file by path or real path), "
        f"read once: {root / 'a.jsonl'} (by --corpus {root}/)",
        f"--corpus {tmp_path / 'alias.jsonl'}: 1 shard(s) reached twice (the same file by path or real "
        f"path), read once: {tmp_path / 'alias.jsonl'} (by --corpus {root}/)",
        f"--corpus {root / 'sub' / '..' / 'a.jsonl'}: 1 shard(s) reached twice (the same file by path or "
        f"real path), read once: {root / 'sub' / '..' / 'a.jsonl'} (by --corpus {root}/)",
        f"--corpus {root}: 2 shard(s) reached twice (the same file by path or real path), read once: "
        f"{root / 'a.jsonl'} (by --corpus {root}/), {root / 'sub' / 'b.jsonl'} (by --corpus {root}/)")
    assert corpus_shards(["hf:x", "hf:x"]).shards == (Shard("hf:x", "hf", 0),)
    with pytest.raises(InputError, match=r"^no corpus given \(--corpus PATH\)$"):
        corpus_shards([])


def test_linked_folders_are_followed_once(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    _write(root / "a.jsonl", _jsonl(DOCS[:1]))
    _write(tmp_path / "elsewhere" / "b.jsonl", _jsonl(DOCS[1:]))
    (root / "mounted").symlink_to(tmp_path / "elsewhere")   # shards on another disk: read
    (root / "loop").symlink_to(root)                        # a link back: not read twice
    listing = corpus_shards([str(root)])
    assert [s.name for s in listing.shards] == [str(root / "a.jsonl"), str(root / "mounted" / "b.jsonl")]
    assert listing.notes == (f"--corpus {root}: 1 folder(s) reached again through a link, read once "
                             f"({root / 'loop'})",)


# ------------------------------------------------------------------------------ bounded reads
def _gzip_bomb(path: Path, members: int = 128) -> Path:
    """``members`` gzip members of 16 MiB of ``a`` each, one after the other (a valid gzip file):
    2 GiB inflated, about 2 MB on disk, and not one line break."""
    member = gzip.compress(b"a" * (16 * 2**20), compresslevel=9)
    return _write(path, member * members)


def test_a_bomb_fails_its_shard_fast_in_bounded_memory(tmp_path: Path) -> None:
    bomb = _gzip_bomb(tmp_path / "bomb.jsonl.gz")
    assert bomb.stat().st_size < 3_000_000
    [shard] = shards_of(str(bomb))
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(ShardError) as err:
            list(iter_documents(shard))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(err.value) == (f"{bomb}: line 1: longer than the record limit of 64 MiB; the rest of the "
                              "shard is not read (a file without line breaks, or a decompression bomb?)")
    assert MAX_RECORD_BYTES == 64 * 2**20 and peak < 3 * MAX_RECORD_BYTES
    assert time.perf_counter() - start < 10   # 0.3 s here: 64 MiB inflated, not 2 GiB


@pytest.mark.parametrize("codec", ["jsonl", "jsonl.gz", "jsonl.zst"])
def test_the_record_limit_names_the_line_and_is_exact(codec: str, tmp_path: Path) -> None:
    import zstandard

    limit = 100
    line = json.dumps({"text": "x" * (limit - 12)}).encode()   # exactly the limit, without its \n
    assert len(line) == limit
    body = line + b"\n" + line + b"\n" + line[:-2] + b'x"}\n'   # line 3: one byte over
    pack = {"jsonl": bytes, "jsonl.gz": gzip.compress,
            "jsonl.zst": zstandard.ZstdCompressor().compress}[codec]
    [shard] = shards_of(str(_write(tmp_path / f"c.{codec}", pack(body))))
    docs = []
    with pytest.raises(ShardError) as err:
        for doc in iter_documents(shard, max_record_bytes=limit):
            docs.append(doc)
    assert len(docs) == 2   # the lines before are read (and scanned) before the shard fails
    assert str(err.value).startswith(f"{shard.name}: line 3: longer than the record limit of 100 bytes;")
    assert len(list(iter_documents(shard, max_record_bytes=limit + 1))) == 3


def test_the_record_limit_holds_for_parquet_and_txt(tmp_path: Path) -> None:
    pq_shard = shards_of(str(_parquet(tmp_path / "c.parquet", text=["short", "y" * 50, "z"])))[0]
    with pytest.raises(ShardError, match=r"c.parquet: row 1: longer than the record limit of 40 bytes"):
        list(iter_documents(pq_shard, max_record_bytes=40))
    txt = shards_of(str(_write(tmp_path / "c.txt", b"w" * 41)))[0]
    with pytest.raises(ShardError, match=r"c.txt: its one document \(a .txt file\): longer than the record "
                                         "limit of 40 bytes"):
        list(iter_documents(txt, max_record_bytes=40))
    assert list(iter_documents(txt, max_record_bytes=41)) == [("c.txt", "w" * 41)]


def test_shards_come_in_path_order_as_before(tmp_path: Path) -> None:
    """The corpus order (the index's tie order, the first match named in evidence) is the order
    of the paths' parts, a folder's files after its subfolder's when the names share a start."""
    for name in ("b-c.jsonl", "b/x.jsonl", "B.jsonl", "b.jsonl", "b/c/d.jsonl"):
        _write(tmp_path / name, _jsonl(DOCS[:1]))
    assert [Path(s.name).relative_to(tmp_path).as_posix() for s in shards_of(str(tmp_path))] == [
        "B.jsonl", "b/c/d.jsonl", "b/x.jsonl", "b-c.jsonl", "b.jsonl"]
