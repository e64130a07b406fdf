"""The flag record: one verdict of one method about one benchmark instance for one model."""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from .._version import __version__
from ..errors import FlagsFormatError

SCHEMA_VERSION = 1
ANY_MODEL = "*"


class Verdict(enum.Enum):
    """Tri-state verdict; ``UNDECIDED`` is neither clean nor contaminated."""

    CONTAMINATED = "contaminated"
    CLEAN = "clean"
    UNDECIDED = "undecided"

    @classmethod
    def from_bool(cls, value: bool | None) -> Verdict:
        if value is None:
            return cls.UNDECIDED
        return cls.CONTAMINATED if value else cls.CLEAN

    def to_bool(self) -> bool | None:
        return {Verdict.CONTAMINATED: True, Verdict.CLEAN: False}.get(self)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _freeze(value: Any) -> Any:
    kind = type(value)
    if kind is str or kind is float or kind is int or kind is bool or value is None:
        return value   # the common leaves, without the slow ABC check of Mapping
    if kind is dict:
        return MappingProxyType({str(k): _freeze(v) for k, v in value.items()})
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _freeze_owned(value: dict[str, Any]) -> Any:
    """:func:`_freeze` of a JSON object the caller owns: a flat one is wrapped without a copy."""
    for v in value.values():
        if not (type(v) is str or type(v) is float or type(v) is int or type(v) is bool or v is None):
            return _freeze(value)
    return MappingProxyType(value)


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class ContaminationFlag:
    """One record of the flags format (see ``schema.json`` beside this module).

    ``score`` is oriented so that higher means "more likely seen in training"; it is what AUC is
    computed on. ``contaminated`` is ``None`` when the method could not decide.
    """

    benchmark: str
    instance_id: str
    model: str
    method: str
    contaminated: bool | None
    score: float
    p_value: float | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict, hash=False)
    created_at: str = field(default_factory=_now)
    tool_version: str = __version__
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        # Evidence is frozen too, so a flag can be shared between threads and hashed by key.
        object.__setattr__(self, "evidence", _freeze(self.evidence))
        if isinstance(self.score, bool) or not isinstance(self.score, (int, float)):
            raise FlagsFormatError(f"must be a number, got {self.score!r}", field="score")
        try:
            score = float(self.score)
        except OverflowError:   # an int of 400 digits
            raise FlagsFormatError("is outside the range of a double", field="score") from None
        if not math.isfinite(score):
            raise FlagsFormatError(f"must be finite, got {self.score!r}", field="score")
        object.__setattr__(self, "score", score)

    @property
    def verdict(self) -> Verdict:
        return Verdict.from_bool(self.contaminated)

    @property
    def key(self) -> tuple[str, str, str, str]:
        """Identity of a record: (benchmark, instance_id, model, method)."""
        return (self.benchmark, self.instance_id, self.model, self.method)

    def applies_to(self, model: str) -> bool:
        return self.model == ANY_MODEL or self.model == model

    def with_(self, **changes: Any) -> ContaminationFlag:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the record, keys in schema order."""
        return {
            "schema_version": self.schema_version,
            "benchmark": self.benchmark,
            "instance_id": self.instance_id,
            "model": self.model,
            "method": self.method,
            "contaminated": self.contaminated,
            "score": self.score,
            "p_value": self.p_value,
            "evidence": _thaw(self.evidence),
            "created_at": self.created_at,
            "tool_version": self.tool_version,
        }

    @classmethod
    def _trusted(cls, benchmark: str, instance_id: str, model: str, method: str,
                 contaminated: bool | None, score: float, p_value: float | None,
                 evidence: dict[str, Any], created_at: str, tool_version: str,
                 schema_version: int) -> ContaminationFlag:
        """A record from fields already checked against the schema (the flags reader's fast
        path): the same object ``from_dict`` builds, without re-checking each field. ``evidence``
        must be a fresh dict nobody else holds (it is wrapped, not copied, when flat)."""
        flag = object.__new__(cls)
        # slots, no per-record __dict__: 1e6 records are ~250 MB smaller; each slot is
        # set through its descriptor (the class is frozen)
        set_ = _SLOT_SETTERS
        set_[0](flag, benchmark)
        set_[1](flag, instance_id)
        set_[2](flag, model)
        set_[3](flag, method)
        set_[4](flag, contaminated)
        set_[5](flag, float(score))
        set_[6](flag, p_value)
        set_[7](flag, _freeze_owned(evidence))
        set_[8](flag, created_at)
        set_[9](flag, tool_version)
        set_[10](flag, schema_version)
        return flag

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ContaminationFlag:
        """Build a record from an already-validated JSON object (use ``validate_record`` first)."""
        return cls(
            benchmark=data["benchmark"],
            instance_id=data["instance_id"],
            model=data["model"],
            method=data["method"],
            contaminated=data["contaminated"],
            score=data["score"],
            p_value=data["p_value"],
            evidence=data["evidence"],
            created_at=data["created_at"],
            tool_version=data["tool_version"],
            schema_version=data["schema_version"],
        )


_SLOT_SETTERS = tuple(getattr(ContaminationFlag, f).__set__ for f in ContaminationFlag.__slots__)
assert ContaminationFlag.__slots__ == ("benchmark", "instance_id", "model", "method", "contaminated",
                                       "score", "p_value", "evidence", "created_at", "tool_version",
                                       "schema_version")
