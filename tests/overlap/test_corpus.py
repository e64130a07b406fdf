"""Each corpus format read on small local files; error lines pinned."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.overlap import ShardError, iter_documents, shards_of

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
    with pytest.raises(InputError) as err:
        shards_of(str(tmp_path / "c.csv"))
    assert str(err.value) == (f"--corpus {tmp_path / 'c.csv'}: unknown format (expected .jsonl, .json, "
                              ".ndjson, .gz, .zst, .parquet, .txt, a folder, or hf:NAME)")
