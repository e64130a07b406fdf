"""Reading (validated) and writing (atomic) flags files in JSON Lines."""

from __future__ import annotations

import gc
import json
import math
import operator
import os
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache, partial
from importlib import resources
from pathlib import Path
from typing import Any

from ..atomic import atomic_open
from ..errors import FlagsFormatError
from ..safe_io import is_input_file, open_input
from ._record import SCHEMA_VERSION, ContaminationFlag
from ._sharing import share_evidence, shared_strings
from ._strict_json import (
    STRICT_DECODER,
    Overflow,
    StrictJSONError,
    check_values,
    count_keys,
    keys_may_repeat,
)


@lru_cache(maxsize=1)
def flags_schema() -> dict[str, Any]:
    """The JSON Schema of one flags record, as shipped in the package."""
    text = resources.files(__package__).joinpath("schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    schema = flags_schema()
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


@lru_cache(maxsize=1)
def _fast_rules() -> tuple[frozenset[str], dict[str, Any]]:
    """The schema's keys and its ``pattern`` regexes, compiled once (read from the schema, so the
    fast check cannot drift from it)."""
    schema = flags_schema()
    patterns = {k: re.compile(v["pattern"]) for k, v in schema["properties"].items()
                if "pattern" in v}
    return frozenset(schema["required"]), patterns


def _number(x: Any) -> bool:
    return type(x) is float or type(x) is int   # JSON numbers; bool is not one


def _fast_valid(data: dict[str, Any]) -> bool:
    """True only for records the schema accepts (checked against jsonschema in the tests). Every
    record it does not accept goes to jsonschema, which decides and words the error: the fast
    check makes reading 1e6 flags take seconds, not minutes, and never changes a verdict."""
    keys, patterns = _fast_rules()
    if data.keys() != keys:
        return False
    version = data["schema_version"]
    if type(version) is not int or version != SCHEMA_VERSION:
        return False
    for name in ("benchmark", "instance_id", "model", "tool_version", "method", "created_at"):
        value = data[name]
        if type(value) is not str or (not value and name != "method"):
            return False
    for name, regex in patterns.items():   # JSON Schema patterns are searches, as re.search
        if regex.search(data[name]) is None:
            return False
    c, p = data["contaminated"], data["p_value"]
    if not (c is None or type(c) is bool) or not _number(data["score"]):
        return False
    if p is not None and not (_number(p) and 0 <= p <= 1):
        return False
    return type(data["evidence"]) is dict


def _field_path(error: Any) -> str | None:
    if error.validator == "required":
        # The missing property is named in the message, not the path.
        missing = error.message.split("'")[1] if "'" in error.message else None
        return missing
    if error.validator == "additionalProperties":
        return None
    path = ".".join(str(p) for p in error.absolute_path)
    return path or None


def validate_record(data: Any, *, source: str = "<record>", line: int | None = None) -> None:
    """Validate one decoded JSON object against the schema.

    Raises :class:`FlagsFormatError` naming source, line and field of the first problem found.
    """
    if not isinstance(data, dict):
        raise FlagsFormatError(f"expected a JSON object, got {type(data).__name__}", source=source,
                               line=line)
    if _fast_valid(data):
        _check_numbers_and_text(data, source, line)
        return
    version = data.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version != SCHEMA_VERSION:
        raise FlagsFormatError(
            f"schema_version {version} is not supported by this benchchecker "
            f"(reads version {SCHEMA_VERSION})", source=source, line=line, field="schema_version")
    errors = sorted(_validator().iter_errors(data), key=lambda e: (list(e.absolute_path), e.message))
    if errors:
        err = errors[0]
        message = err.message
        if err.validator == "pattern" and "u0000" in str(err.validator_value):
            message = f"{err.instance!r} has a control character"
        raise FlagsFormatError(message, source=source, line=line, field=_field_path(err))
    _check_numbers_and_text(data, source, line)


def _check_numbers_and_text(data: dict[str, Any], source: str, line: int | None) -> None:
    """What the schema cannot say: ``score`` finite, ``score`` and ``p_value`` within a double
    (an integer of 400 digits is a JSON number), no lone surrogate in any string, no non-finite
    float in the evidence."""
    for name in ("score", "p_value"):
        value = data[name]
        if isinstance(value, Overflow):
            raise FlagsFormatError(f"{name} must be finite ({value.text} is outside the range of "
                                   "a double)", source=source, line=line, field=name)
        if type(value) is float and not math.isfinite(value):
            raise FlagsFormatError(f"{name} must be finite", source=source, line=line, field=name)
        if type(value) is int and abs(value) > _FLOAT_MAX:
            raise FlagsFormatError(f"{name} is outside the range of a double", source=source,
                                   line=line, field=name)
    found = check_values(data, "")
    if found:
        raise FlagsFormatError(found[1], source=source, line=line, field=found[0])


_FLOAT_MAX = sys.float_info.max


def iter_flags(path: str | os.PathLike[str]) -> Iterator[ContaminationFlag]:
    """Yield validated flags from a ``.jsonl`` file, or from every ``*.jsonl`` in a folder."""
    for file in flag_files(path):
        yield from _iter_file(file)


def flag_files(path: str | os.PathLike[str]) -> list[Path]:
    """The flags files of ``path``: itself, or every ``*.jsonl`` of a folder (sorted)."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("*.jsonl"))
        if not files:
            raise FlagsFormatError("folder holds no *.jsonl flags file", source=str(p))
        return files
    if is_input_file(p):
        return [p]   # (a FIFO or device: refused by name when opened)
    raise FlagsFormatError("no such flags file or folder", source=str(p))


_CHUNK = 8 << 20   # bytes decoded at once by the fast path


@lru_cache(maxsize=1)
def _typed_decoder() -> Any:
    """A msgspec decoder of the schema's record type: JSON Lines decoded *and* checked in C.

    Built from ``schema.json`` (its required keys, patterns and bounds), so it cannot drift from
    it; the tests check on generated records that whatever it accepts the schema accepts, and
    that it builds the same flag as the slow path. It is stricter in a few corners (``1.0`` as
    ``schema_version``, numbers beyond a double, lone surrogates): such a chunk is read again by
    the slow path, which decides and words the error with its line. The schema's ``pattern``
    rules are checked by :func:`_patterns_hold` on each *distinct* value of a chunk (a file has
    a handful of benchmarks, methods and timestamps), which is where the time would go.
    """
    from typing import Annotated, Literal

    import msgspec
    from msgspec import Meta

    props = flags_schema()["properties"]

    def text(name: str) -> Any:   # patterns are checked per distinct value, see _iter_file
        rule = props[name]
        return Annotated[str, Meta(min_length=rule["minLength"])] if "minLength" in rule else str

    p_rule = props["p_value"]
    fields = [("schema_version", Literal[SCHEMA_VERSION]),
              *((n, text(n)) for n in ("benchmark", "instance_id", "model", "method")),
              ("contaminated", bool | None), ("score", float),
              ("p_value", Annotated[float, Meta(ge=p_rule["minimum"], le=p_rule["maximum"])] | None),
              ("evidence", dict[str, Any]), ("created_at", text("created_at")),
              ("tool_version", text("tool_version"))]
    assert [n for n, _ in fields] == list(flags_schema()["required"]) == list(props)
    record = msgspec.defstruct("FlagRecord", fields, forbid_unknown_fields=True, array_like=False)
    return msgspec.json.Decoder(record), (msgspec.DecodeError, msgspec.ValidationError)


def _n_keys(records: list[Any]) -> int:
    """The keys of a chunk's decoded records: each record's fields and its evidence's keys."""
    fields = len(flags_schema()["required"])
    return sum(fields + count_keys(r.evidence) for r in records)


def _compact(records: list[Any]) -> bytes:
    """The records of a chunk re-encoded as compact JSON (see keys_may_repeat)."""
    import msgspec

    return msgspec.json.encode(records)


def _iter_file(file: Path) -> Iterator[ContaminationFlag]:
    for flags in _file_chunks(file):
        yield from flags


def _file_chunks(file: Path) -> Iterator[list[ContaminationFlag]]:
    """The flags of ``file``, a list per chunk of lines (see :func:`checked_chunks`)."""
    trusted = ContaminationFlag._trusted
    # a file repeats a few benchmark, model, method, timestamp and version strings a million
    # times: one copy of each (a third of the memory of 1e6 records)
    strings: dict[str, str] = {}
    same = strings.setdefault
    last_evidence: dict[tuple[str, str], Any] = {}
    for fast, records in checked_chunks(file):
        if not fast:
            yield records
            continue
        flags = [trusted(same(r.benchmark, r.benchmark), same(r.instance_id, r.instance_id),
                         same(r.model, r.model), same(r.method, r.method), r.contaminated,
                         r.score, r.p_value, shared_strings(r.evidence, same),
                         same(r.created_at, r.created_at),
                         same(r.tool_version, r.tool_version), r.schema_version)
                 for r in records]
        del records
        share_evidence(flags, last_evidence)
        yield flags


def checked_chunks(file: Path) -> Iterator[tuple[bool, list[Any]]]:
    """The records of ``file`` checked against the schema, a list per chunk of lines: ``(True,
    records)`` where the fast path (one C call decodes and checks a chunk) takes the whole chunk
    (msgspec structs with the schema's fields), else ``(False, flags)`` from the slow path line
    by line (:class:`ContaminationFlag`); the same fields by name either way. A bad record is a
    :class:`FlagsFormatError` naming its line (duplicates are the reader's to find)."""
    decoder, failures = _typed_decoder()
    lineno = 0
    passed: dict[str, set[str]] = {}   # the patterned values already matched (ids recur per model)
    with open_input(file) as fh:
        while True:
            chunk = fh.read(_CHUNK)
            if not chunk:
                return
            if not chunk.endswith(b"\n"):
                chunk += fh.readline()
            try:
                records = decoder.decode_lines(chunk)
            except (*failures, RecursionError):   # nested too deeply: the slow path names the line
                records = None
            # (msgspec refuses numbers beyond a double, so every score it decodes is finite)
            if (records is not None and _patterns_hold(records, passed)
                    and not keys_may_repeat(chunk, _compact(records), partial(_n_keys, records))):
                yield True, records
            else:
                del records
                yield False, list(_slow_lines(file, chunk, lineno))
            lineno += chunk.count(b"\n")


def _patterns_hold(records: list[Any], passed: dict[str, set[str]]) -> bool:
    """Whether every value of a patterned field matches its schema pattern (``re.search``, as
    JSON Schema), each distinct value checked once; ``passed`` (per field) holds the values that
    matched in the chunks before, and gains this chunk's when all of them match."""
    _, patterns = _fast_rules()
    for name, regex in patterns.items():
        values = set(map(operator.attrgetter(name), records))
        known = passed.setdefault(name, set())
        values -= known
        if not all(map(regex.search, values)):
            return False
        known |= values
    return True


def _slow_lines(file: Path, chunk: bytes, before: int) -> Iterator[ContaminationFlag]:
    """The lines of ``chunk`` (the first is line ``before + 1``) decoded one by one, each checked
    by :func:`validate_record`: the path that names the line and field of a bad record."""
    for lineno, raw in enumerate(chunk.split(b"\n"), start=before + 1):
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError as exc:
            raise FlagsFormatError(f"not UTF-8 ({exc.reason})", source=str(file),
                                   line=lineno) from None
        if not text:
            continue
        try:
            data = STRICT_DECODER.decode(text)
        except StrictJSONError as exc:
            raise FlagsFormatError(str(exc), source=str(file), line=lineno) from None
        except (json.JSONDecodeError, ValueError) as exc:
            raise FlagsFormatError(f"invalid JSON ({exc})", source=str(file), line=lineno) from None
        except RecursionError:   # a 200k-deep line is no flag record
            raise FlagsFormatError("invalid JSON (nested too deeply)", source=str(file),
                                   line=lineno) from None
        validate_record(data, source=str(file), line=lineno)
        yield ContaminationFlag.from_dict(data)


def read_flags(path: str | os.PathLike[str]) -> list[ContaminationFlag]:
    """Read and validate all flags in a file or folder.

    Duplicate keys (benchmark, instance_id, model, method) within what is read are an error, since
    they would silently count an instance twice.
    """
    seen: set[tuple[str, str, str, str]] = set()
    out: list[ContaminationFlag] = []
    with gc_paused():
        for file in flag_files(path):
            for flags in _file_chunks(file):
                before = len(seen)
                seen.update([f.key for f in flags])
                if len(seen) - before != len(flags):
                    _raise_duplicate(path, out, flags)
                out.extend(flags)
    return out


def _raise_duplicate(path: str | os.PathLike[str], earlier: list[ContaminationFlag],
                     chunk: list[ContaminationFlag]) -> None:
    """Name the first record of ``chunk`` whose key was read before (the rare, slow path)."""
    seen = {f.key for f in earlier}
    for flag in chunk:
        if flag.key in seen:
            raise duplicate_error(path, flag)
        seen.add(flag.key)


def duplicate_error(path: str | os.PathLike[str], record: Any) -> FlagsFormatError:
    """The error for ``record`` (a flag, or anything with its key fields) read twice."""
    return FlagsFormatError(
        f"duplicate record for benchmark={record.benchmark} instance_id={record.instance_id} "
        f"model={record.model} method={record.method}", source=str(path), field="instance_id")


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a long list of acyclic records is built: its
    generational passes would walk every record already read, again and again (half the time of
    reading 1e6 flags). Restored afterwards, also on an error."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def write_flags(path: str | os.PathLike[str], flags: Iterable[ContaminationFlag]) -> Path:
    """Write flags as JSON Lines, atomically.

    The records go to a temporary file in the target's folder, which is flushed, fsynced and then
    renamed over the target: a crash leaves either the old file or the complete new one. A
    target that exists and is not a regular file (``/dev/null``, a FIFO) is written through, never
    replaced by a file.
    """
    target = Path(path)
    with atomic_open(target) as fh:
        for flag in flags:
            record = flag.to_dict()
            validate_record(record, source=str(target))
            fh.write(json.dumps(record, ensure_ascii=False, allow_nan=False))
            fh.write("\n")
    return target
