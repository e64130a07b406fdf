"""Reading (validated) and writing (atomic) flags files in JSON Lines."""

from __future__ import annotations

import json
import math
import os
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..atomic import atomic_open
from ..errors import FlagsFormatError
from .record import SCHEMA_VERSION, ContaminationFlag

__all__ = ["flags_schema", "iter_flags", "read_flags", "validate_record", "write_flags"]


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
        score = data["score"]
        if type(score) is float and not math.isfinite(score):
            raise FlagsFormatError("score must be finite", source=source, line=line, field="score")
        return
    version = data.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version != SCHEMA_VERSION:
        raise FlagsFormatError(
            f"schema_version {version} is not supported by this benchchecker "
            f"(reads version {SCHEMA_VERSION})", source=source, line=line, field="schema_version")
    errors = sorted(_validator().iter_errors(data), key=lambda e: (list(e.absolute_path), e.message))
    if errors:
        err = errors[0]
        raise FlagsFormatError(err.message, source=source, line=line, field=_field_path(err))
    score = data["score"]
    if isinstance(score, float) and not math.isfinite(score):
        raise FlagsFormatError("score must be finite", source=source, line=line, field="score")


def iter_flags(path: str | os.PathLike[str]) -> Iterator[ContaminationFlag]:
    """Yield validated flags from a ``.jsonl`` file, or from every ``*.jsonl`` in a folder."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("*.jsonl"))
        if not files:
            raise FlagsFormatError("folder holds no *.jsonl flags file", source=str(p))
    elif p.is_file():
        files = [p]
    else:
        raise FlagsFormatError("no such flags file or folder", source=str(p))
    for file in files:
        yield from _iter_file(file)


def _iter_file(file: Path) -> Iterator[ContaminationFlag]:
    with open(file, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8").strip()
            except UnicodeDecodeError as exc:
                raise FlagsFormatError(f"not UTF-8 ({exc.reason})", source=str(file),
                                       line=lineno) from None
            if not text:
                continue
            try:
                data = _DECODER.decode(text)
            except (json.JSONDecodeError, ValueError) as exc:
                raise FlagsFormatError(f"invalid JSON ({exc})", source=str(file), line=lineno) from None
            except RecursionError:   # a 200k-deep line is no flag record
                raise FlagsFormatError("invalid JSON (nested too deeply)", source=str(file),
                                       line=lineno) from None
            validate_record(data, source=str(file), line=lineno)
            yield ContaminationFlag.from_dict(data)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)   # one decoder, not one per line


def read_flags(path: str | os.PathLike[str]) -> list[ContaminationFlag]:
    """Read and validate all flags in a file or folder.

    Duplicate keys (benchmark, instance_id, model, method) within what is read are an error, since
    they would silently count an instance twice.
    """
    seen: dict[tuple[str, str, str, str], str] = {}
    out: list[ContaminationFlag] = []
    for flag in iter_flags(path):
        if flag.key in seen:
            raise FlagsFormatError(
                f"duplicate record for benchmark={flag.benchmark} instance_id={flag.instance_id} "
                f"model={flag.model} method={flag.method}", source=str(path), field="instance_id")
        seen[flag.key] = flag.instance_id
        out.append(flag)
    return out


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
