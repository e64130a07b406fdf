"""Streamed corpus readers: documents one batch at a time, the corpus never held in memory.

A ``--corpus`` path is one of: a ``.jsonl`` / ``.json`` file (one JSON object per line), the same
compressed (``.jsonl.gz``, ``.jsonl.zst`` / ``.zst`` with zstandard), a ``.parquet`` file (read one
row group at a time with pyarrow), a ``.txt`` file (one document), a folder (every such file in it,
recursively, each its own shard), or ``hf:NAME_OR_PATH[#SPLIT]``: a dataset through
``datasets.load_dataset(..., streaming=True)`` (a hub name, a local data file or a folder).

Records give their text in ``text_field`` (default ``text``) and their id in ``id_field``
(default ``id``; else the record's 0-based number). A shard that cannot be read, or whose record
lacks the text field or holds something else than text there, raises :class:`ShardError` with one
line naming it; the scan records it and goes on.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DataError, InputError
from ..hub_reach import load_hub_dataset

_JSONL = (".jsonl", ".json", ".ndjson")
_SUFFIXES = (*_JSONL, ".gz", ".zst", ".parquet", ".txt")
#: what a non-text value is called in an error line (else its Python type's name)
_JSON_TYPES = {type(None): "null"}


class ShardError(DataError):
    """One corpus shard could not be read (the message names the shard and why)."""


@dataclass(frozen=True)
class Shard:
    """One unit of the corpus that is read, and can fail, on its own."""

    name: str          # what evidence and errors call it (the path, or hf:NAME)
    kind: str          # jsonl | jsonl.gz | jsonl.zst | parquet | txt | hf
    size: int          # bytes on disk (0 when unknown)


def _kind(path: Path) -> str | None:
    name = path.name.lower()
    if name.endswith(_JSONL):
        return "jsonl"
    if name.endswith(".gz"):
        return "jsonl.gz"
    if name.endswith(".zst"):
        return "jsonl.zst"
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith(".txt"):
        return "txt"
    return None


def shards_of(corpus: str) -> list[Shard]:
    """The shards of one ``--corpus`` argument (see the module)."""
    if corpus.startswith("hf:"):
        return [Shard(corpus, "hf", 0)]
    path = Path(corpus)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and _kind(p))
        if not files:
            raise InputError(f"--corpus {corpus}: a folder with no corpus file "
                             f"({', '.join(_SUFFIXES)})")
        return [Shard(str(p), _kind(p) or "", p.stat().st_size) for p in files]
    if not path.exists():
        raise InputError(f"--corpus {corpus}: no such file or folder")
    kind = _kind(path)
    if kind is None:
        raise InputError(f"--corpus {corpus}: unknown format (expected {', '.join(_SUFFIXES)}, a "
                         "folder, or hf:NAME)")
    return [Shard(str(path), kind, path.stat().st_size)]


def _text(shard: Shard, where: str, record: Any, text_field: str) -> str:
    if not isinstance(record, dict):
        raise ShardError(f"{shard.name}: {where}: not a JSON object")
    if text_field not in record:
        fields = ", ".join(sorted(map(str, record))[:8]) or "none"
        raise ShardError(f"{shard.name}: {where}: no field {text_field!r} (fields: {fields}); "
                         "pass --text-field")
    value = record[text_field]
    if not isinstance(value, str):
        raise ShardError(f"{shard.name}: {where}: field {text_field!r} is "
                         f"{_JSON_TYPES.get(type(value), type(value).__name__)}, not text")
    return value


def _jsonl(shard: Shard, raw: io.BufferedIOBase, text_field: str,
           id_field: str) -> Iterator[tuple[str, str]]:
    import msgspec

    decode = msgspec.json.Decoder().decode
    for number, line in enumerate(raw):
        if not line.strip():
            continue
        try:
            record = decode(line)
        except msgspec.DecodeError as exc:
            raise ShardError(f"{shard.name}: line {number + 1}: not JSON ({exc})") from None
        text = _text(shard, f"line {number + 1}", record, text_field)
        yield str(record.get(id_field, number)), text


def _parquet(shard: Shard, text_field: str, id_field: str) -> Iterator[tuple[str, str]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(shard.name)
    names = pf.schema_arrow.names
    if text_field not in names:
        raise ShardError(f"{shard.name}: no column {text_field!r} (columns: "
                         f"{', '.join(names[:8])}); pass --text-field")
    kind = pf.schema_arrow.field(text_field).type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        raise ShardError(f"{shard.name}: column {text_field!r} is {kind}, not text")
    columns = [text_field] + ([id_field] if id_field in names else [])
    row = 0
    for group in range(pf.num_row_groups):
        table = pf.read_row_group(group, columns=columns)
        texts = table.column(text_field).to_pylist()
        ids = table.column(id_field).to_pylist() if id_field in names else None
        for j, text in enumerate(texts):
            if text is None:
                raise ShardError(f"{shard.name}: row {row + j}: field {text_field!r} is null, not text")
            yield str(ids[j] if ids is not None else row + j), text
        row += len(texts)


def _hf(shard: Shard, text_field: str, id_field: str) -> Iterator[tuple[str, str]]:
    import datasets

    spec, _, split = shard.name[3:].partition("#")
    path = Path(spec)
    try:
        if path.is_file():
            builder = {"parquet": "parquet", "txt": "text"}.get(_kind(path) or "", "json")
            ds = datasets.load_dataset(builder, data_files=str(path), split=split or "train",
                                       streaming=True)
        else:
            ds = load_hub_dataset(spec, split=split or "train", streaming=True)
    except Exception as exc:   # datasets raises many types: this shard failed, with its cause
        raise ShardError(f"{shard.name}: cannot load through datasets ({' '.join(str(exc).split())[:200]})"
                         ) from None
    for number, record in enumerate(ds):
        text = _text(shard, f"record {number}", record, text_field)
        yield str(record.get(id_field, number)), text


def iter_documents(shard: Shard, text_field: str = "text",
                   id_field: str = "id") -> Iterator[tuple[str, str]]:
    """``(document id, text)`` of every document of ``shard``, streamed. Read failures are
    :class:`ShardError` naming the shard."""
    import zstandard

    try:
        if shard.kind == "hf":
            yield from _hf(shard, text_field, id_field)
        elif shard.kind == "parquet":
            yield from _parquet(shard, text_field, id_field)
        elif shard.kind == "txt":
            with open(shard.name, "rb") as fh:
                yield Path(shard.name).name, fh.read().decode("utf-8")
        elif shard.kind == "jsonl.gz":
            with gzip.open(shard.name, "rb") as fh:
                yield from _jsonl(shard, fh, text_field, id_field)
        elif shard.kind == "jsonl.zst":
            with open(shard.name, "rb") as raw:
                reader = io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw))
                yield from _jsonl(shard, reader, text_field, id_field)
        else:
            with open(shard.name, "rb") as fh:
                yield from _jsonl(shard, fh, text_field, id_field)
    except ShardError:
        raise
    except (OSError, EOFError, zlib.error, zstandard.ZstdError, UnicodeDecodeError) as exc:
        raise ShardError(f"{shard.name}: cannot read ({type(exc).__name__}: {exc})") from None
    except Exception as exc:
        import pyarrow as pa

        if isinstance(exc, pa.ArrowException):
            raise ShardError(f"{shard.name}: cannot read as Parquet ({exc})") from None
        raise
