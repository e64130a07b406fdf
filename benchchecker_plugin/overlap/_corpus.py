"""Streamed corpus readers: documents one batch at a time, the corpus never held in memory.

A ``--corpus`` path is one of: a ``.jsonl`` / ``.json`` file (one JSON object per line), the same
compressed (``.jsonl.gz``, ``.jsonl.zst`` / ``.zst`` with zstandard), a ``.parquet`` file (read one
row group at a time with pyarrow), a ``.txt`` file (one document), a folder (every such file in it,
recursively, each its own shard), or ``hf:NAME_OR_PATH[#SPLIT]``: a dataset through
``datasets.load_dataset(..., streaming=True)`` (a hub name, a local data file or a folder).

One rule for what a corpus is: every path named, or found under a folder, is either read or is a
*failed shard* with its reason, never skipped without a word (a skipped shard's items would be
called clean). A failed shard is a :class:`Shard` of kind ``failed``; reading it raises
:class:`ShardError` with its reason, so the scan records it, the items not found are undecided and
the run exits 2. The reasons: a link whose target is missing (a shard on a disk not mounted), not a
regular file (a FIFO, a device, a socket: refused by name from its ``stat``, never opened), a
compression the reader does not support (``.xz``, ``.bz2``, ``.lz4``, ...: the supported ones are
listed), an unknown format, an empty (0-byte) file, a folder that cannot be listed. Names starting
with ``.`` (``.git``, ``.DS_Store``, an unfinished write's temporary) are not read, with a note.
Folders reached through links are followed, each once. :func:`corpus_shards` takes every
``--corpus`` argument at once and reads a shard reached twice (by path or by real path) once.

Bounded reads: a line (a record) longer than :data:`MAX_RECORD_BYTES` (or the caller's limit) is
a failed shard naming its line, checked while decompressing, so a compression bomb or a file
without line breaks costs the limit in memory and the time to inflate it, never more.

Records give their text in ``text_field`` (default ``text``) and their id in ``id_field``
(default ``id``; else the record's 0-based number). A shard that cannot be read, or whose record
lacks the text field or holds something else than text there, raises :class:`ShardError` with one
line naming it; the scan records it and goes on.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import stat
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import DataError, InputError
from ..hub_reach import load_hub_dataset
from ..safe_io import file_kind, open_input

_JSONL = (".jsonl", ".json", ".ndjson")
_SUFFIXES = (*_JSONL, ".gz", ".zst", ".parquet", ".txt")
#: compressions met in corpus exports that the reader does not inflate (a shard so named fails)
_UNSUPPORTED = (".xz", ".lzma", ".bz2", ".lz4", ".br", ".zip", ".7z", ".snappy", ".lzo", ".sz", ".z",
                ".zlib", ".tar", ".tgz", ".zstd")
#: the kind of a shard that is listed but is not read (its ``reason`` says why)
FAILED = "failed"
#: the longest line (one record) read, in bytes; a longer one fails its shard, naming the line
MAX_RECORD_BYTES = 64 * 2**20
#: what a non-text value is called in an error line (else its Python type's name)
_JSON_TYPES = {type(None): "null"}
_SHOWN = 5   # names listed in a note


class ShardError(DataError):
    """One corpus shard could not be read (the message names the shard and why)."""


@dataclass(frozen=True)
class Shard:
    """One unit of the corpus that is read, and can fail, on its own."""

    name: str          # what evidence and errors call it (the path, or hf:NAME)
    kind: str          # jsonl | jsonl.gz | jsonl.zst | parquet | txt | hf | failed
    size: int          # bytes on disk (0 when unknown)
    reason: str = ""   # why a ``failed`` shard is not read (one line, without its name)

    @property
    def error(self) -> str:
        """The one line a failed shard is reported with (its name and reason); empty otherwise."""
        return f"{self.name}: {self.reason}" if self.kind == FAILED else ""


@dataclass(frozen=True)
class CorpusShards:
    """The shards of every ``--corpus`` argument (each shard once) and the notes to print."""

    shards: tuple[Shard, ...]
    notes: tuple[str, ...]

    @property
    def failed(self) -> dict[str, str]:
        """Shard name -> its one-line error, for the shards listed as failed."""
        return {s.name: s.error for s in self.shards if s.kind == FAILED}


def _size(n: int) -> str:
    return f"{n // 2**20} MiB" if n % 2**20 == 0 else f"{n} bytes"


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


def _failed(name: str, reason: str, size: int = 0) -> Shard:
    return Shard(name, FAILED, size, reason)


def _file_shard(path: Path) -> Shard:
    """The shard of one file named or found (``path`` is not a folder), or why it is not read.
    Only ``stat`` is called: a FIFO or device is never opened."""
    name = str(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        if os.path.islink(path):
            target = os.readlink(path)
            if exc.errno == errno.ENOENT:
                return _failed(name, f"a link to {target}, which does not exist (a dangling link: a "
                                     "shard on a disk not mounted?)")
            return _failed(name, f"a link to {target} that cannot be followed ({exc.strerror})")
        return _failed(name, f"cannot read ({exc.strerror or exc})")
    if not stat.S_ISREG(st.st_mode):
        return _failed(name, f"is {file_kind(st.st_mode)}, not a regular file; refused, not opened")
    kind = _kind(path)
    if kind is None:
        suffix = next((s for s in _UNSUPPORTED if path.name.lower().endswith(s)), None)
        if suffix is not None:
            return _failed(name, f"compressed with {suffix}, which the corpus reader does not "
                                 "support (supported: .gz, .zst; or uncompressed .jsonl, .json, "
                                 ".ndjson, .parquet, .txt)", st.st_size)
        return _failed(name, f"unknown format (expected {', '.join(_SUFFIXES)})", st.st_size)
    if st.st_size == 0:
        return _failed(name, "is empty (0 bytes: a failed export?)")
    return Shard(name, kind, st.st_size)


def _folder_shards(root: Path) -> tuple[list[Shard], list[str]]:
    """Every file under ``root`` as a shard (see the module), in path order, and notes."""
    shards: list[Shard] = []
    hidden: list[str] = []
    seen: set[str] = set()
    loops: list[str] = []

    def unlisted(exc: OSError) -> None:
        shards.append(_failed(str(exc.filename or root), f"a folder that cannot be listed "
                                                         f"({exc.strerror or exc})"))

    for here, dirs, files in os.walk(root, onerror=unlisted, followlinks=True):
        real = os.path.realpath(here)
        if real in seen:   # a link back to a folder already walked: its files are read once
            loops.append(here)
            dirs[:] = []
            continue
        seen.add(real)
        hidden += [os.path.join(here, d) for d in dirs if d.startswith(".")]
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        hidden += [os.path.join(here, f) for f in files if f.startswith(".")]
        shards += [_file_shard(Path(here, f)) for f in files if not f.startswith(".")]
    notes = []
    if hidden:
        shown = ", ".join(os.path.relpath(h, root) for h in sorted(hidden)[:_SHOWN])
        notes.append(f"--corpus {root}: {len(hidden)} hidden name(s) not read ({shown}"
                     f"{', ...' if len(hidden) > _SHOWN else ''})")
    if loops:
        notes.append(f"--corpus {root}: {len(loops)} folder(s) reached again through a link, read once "
                     f"({', '.join(sorted(loops)[:_SHOWN])})")
    return sorted(shards, key=lambda s: Path(s.name).parts), notes   # as sorted(rglob) ordered them


def _listing(corpus: str) -> tuple[list[Shard], list[str]]:
    if corpus.startswith("hf:"):
        spec = corpus[3:].partition("#")[0]
        try:
            mode = os.stat(spec).st_mode if spec else None
        except OSError:
            mode = None   # a hub name, or a path that datasets will name
        if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            return [_failed(corpus, f"is {file_kind(mode)}, not a regular file; refused, not opened")], []
        return [Shard(corpus, "hf", 0)], []
    path = Path(corpus)
    if not os.path.lexists(path):
        raise InputError(f"--corpus {corpus}: no such file or folder")
    if path.is_dir():
        shards, notes = _folder_shards(path)
        if not shards:
            raise InputError(f"--corpus {corpus}: a folder with no corpus file "
                             f"({', '.join(_SUFFIXES)})")
        return shards, notes
    return [_file_shard(path)], []


def shards_of(corpus: str) -> list[Shard]:
    """The shards of one ``--corpus`` argument (see the module): a path that cannot be read is a
    shard of kind ``failed`` with its reason. A path that does not exist, or a folder with nothing
    in it, is an :class:`InputError`."""
    return _listing(corpus)[0]


def corpus_shards(corpora: Sequence[str]) -> CorpusShards:
    """The shards of all ``--corpus`` arguments at once, each read once: a shard reached again (by
    the same path, or by its real path through a link or another spelling, as with ``--corpus dir/
    --corpus dir/a.jsonl``) is left out the second time, with a note. The notes (hidden names not
    read, shards and folders reached twice) are for the caller to print."""
    if not corpora:
        raise InputError("no corpus given (--corpus PATH)")
    shards: list[Shard] = []
    notes: list[str] = []
    first: dict[str, str] = {}   # the key of each shard taken -> the argument that reached it
    for corpus in corpora:
        listed, more = _listing(corpus)
        notes += more
        again: list[str] = []
        for shard in listed:
            key = shard.name if shard.kind == "hf" else os.path.realpath(shard.name)
            if key in first:
                again.append(shard.name if first[key] == corpus else f"{shard.name} (by --corpus {first[key]})")
                continue
            first[key] = corpus
            shards.append(shard)
        if again:
            notes.append(f"--corpus {corpus}: {len(again)} shard(s) reached twice (the same file by "
                         f"path or real path), read once: {', '.join(again[:_SHOWN])}"
                         f"{', ...' if len(again) > _SHOWN else ''}")
    return CorpusShards(tuple(shards), tuple(notes))


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


def _too_long(shard: Shard, where: str, limit: int) -> ShardError:
    return ShardError(f"{shard.name}: {where}: longer than the record limit of {_size(limit)}; the "
                      "rest of the shard is not read (a file without line breaks, or a "
                      "decompression bomb?)")


def _lines(raw: IO[bytes] | io.BufferedIOBase, limit: int) -> Iterator[tuple[int, bytes | None]]:
    """``(line number, line)`` of ``raw``, each read with at most ``limit`` bytes (plus its line
    break) held; a longer line is ``(number, None)`` and ends the lines."""
    readline = raw.readline
    number = 0
    while line := readline(limit + 1):
        number += 1
        if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
            yield number, None
            return
        yield number, line


def _jsonl(shard: Shard, raw: IO[bytes] | io.BufferedIOBase, text_field: str, id_field: str,
           limit: int, where: list[int] | None = None,
           tell: Callable[[], int] | None = None) -> Iterator[tuple[str, str]]:
    import msgspec

    decode = msgspec.json.Decoder().decode
    for number, line in _lines(raw, limit):
        if where is not None and tell is not None:
            where[0] = tell()
        if line is None:
            raise _too_long(shard, f"line {number}", limit)
        if not line.strip():
            continue
        try:
            record = decode(line)
        except msgspec.DecodeError as exc:
            raise ShardError(f"{shard.name}: line {number}: not JSON ({exc})") from None
        text = _text(shard, f"line {number}", record, text_field)
        yield str(record.get(id_field, number - 1)), text


def _parquet(shard: Shard, raw: IO[bytes], text_field: str, id_field: str,
             limit: int, where: list[int] | None = None) -> Iterator[tuple[str, str]]:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(raw)
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
        lengths = pc.binary_length(table.column(text_field))
        if (pc.max(lengths).as_py() or 0) > limit:
            over = pc.index(pc.greater(lengths, limit), True).as_py()
            raise _too_long(shard, f"row {row + over}", limit)
        texts = table.column(text_field).to_pylist()
        ids = table.column(id_field).to_pylist() if id_field in names else None
        if where is not None:
            where[0] = raw.tell()
        for j, text in enumerate(texts):
            if text is None:
                raise ShardError(f"{shard.name}: row {row + j}: field {text_field!r} is null, not text")
            yield str(ids[j] if ids is not None else row + j), text
        row += len(texts)


def _hf(shard: Shard, text_field: str, id_field: str, limit: int) -> Iterator[tuple[str, str]]:
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
        if len(text) > limit:
            raise _too_long(shard, f"record {number}", limit)
        yield str(record.get(id_field, number)), text


def _open(shard: Shard) -> IO[bytes]:
    """The shard's file, opened without blocking on a FIFO put there since it was listed."""
    try:
        return open_input(shard.name)
    except DataError as exc:
        raise ShardError(str(exc)) from None


def iter_documents(shard: Shard, text_field: str = "text", id_field: str = "id", *,
                   max_record_bytes: int = MAX_RECORD_BYTES,
                   where: list[int] | None = None) -> Iterator[tuple[str, str]]:
    """``(document id, text)`` of every document of ``shard``, streamed. Read failures, a failed
    shard and a record longer than ``max_record_bytes`` are :class:`ShardError` naming the shard.
    ``where``: a one-element list kept at the bytes of the shard's file read so far (compressed
    bytes for a compressed shard), so progress counts what is on disk."""
    import zstandard

    limit = max_record_bytes
    if shard.kind == FAILED:
        raise ShardError(shard.error)
    try:
        if shard.kind == "hf":
            yield from _hf(shard, text_field, id_field, limit)
            return
        with _open(shard) as fh:
            if shard.kind == "parquet":
                yield from _parquet(shard, fh, text_field, id_field, limit, where)
            elif shard.kind == "txt":
                data = fh.read(limit + 1)
                if len(data) > limit:
                    raise _too_long(shard, "its one document (a .txt file)", limit)
                yield Path(shard.name).name, data.decode("utf-8")
            elif shard.kind == "jsonl.gz":
                with gzip.GzipFile(fileobj=fh, mode="rb") as gz:
                    yield from _jsonl(shard, gz, text_field, id_field, limit, where, fh.tell)
            elif shard.kind == "jsonl.zst":
                reader = io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(fh))
                yield from _jsonl(shard, reader, text_field, id_field, limit, where, fh.tell)
            else:
                yield from _jsonl(shard, fh, text_field, id_field, limit, where, fh.tell)
    except ShardError:
        raise
    except (OSError, EOFError, zlib.error, zstandard.ZstdError, UnicodeDecodeError) as exc:
        raise ShardError(f"{shard.name}: cannot read ({type(exc).__name__}: {exc})") from None
    except Exception as exc:
        import pyarrow as pa

        if isinstance(exc, pa.ArrowException):
            raise ShardError(f"{shard.name}: cannot read as Parquet ({exc})") from None
        raise
