"""The build facts of a bundle (``build.json``): what a republication was made from and how, read
back by the rebuild as the only record of the run."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from ..errors import DataError

#: the title of a bundle whose facts name none (the first bundles, of SWE-bench Verified)
DEFAULT_TITLE = "SWE-bench Verified"
DEFAULT_BENCHMARK = "swe-bench-verified"
#: SWE-bench Verified's plausible-interval floor, as the first bundles state it
VERIFIED_FLOOR_BASIS = ("the latest pull-request creation date among the 130 instances with full "
                        "fields, a stated bound")
_OPTIONAL = ("fix_dates", "board", "title", "benchmark", "band_floor_basis", "n_instances", "boards")


@dataclass(frozen=True)
class BuildFacts:
    """One republication's facts: the command, date and versions; the data read; the Stage II
    run's line and counts; the rescoring options; who was scored and how (``submissions``:
    ``{submission, models, date, resolved_of_<N>}``; ``bands``: the submissions scored over a
    plausible cutoff interval); what was not covered and why. ``board``: the official board's
    top entries (when a leaderboards.json was read); ``boards``: the boards pooled (several
    boards in one run), each ``{name, n_instances, n_submissions, folder}``. Written as sorted
    JSON (``build.json``); the optional facts only when they hold something."""

    command: str
    date: str
    versions: str
    data: str
    stage2: str
    errors: int | str
    n_flags: int
    n_models: int
    unknown_models: Sequence[str]
    n_submissions: int
    restricted: bool
    resamples: int
    seed: int
    min_clean: int
    min_resolved_clean: int
    mde_sims: int
    mde_resamples: int
    marks: Mapping[str, str]
    missing_repos: Sequence[str]
    unfinished: Sequence[str]
    left_out_repos: Sequence[str]
    band_floor: str
    bands: Mapping[str, Mapping[str, str]]
    submissions: Sequence[Mapping[str, Any]]
    fix_dates: Mapping[str, Any] | None = None
    board: Mapping[str, Any] | None = None
    title: str | None = None
    benchmark: str | None = None
    band_floor_basis: str | None = None
    n_instances: int | None = None
    boards: Sequence[Mapping[str, Any]] | None = None

    @property
    def display_title(self) -> str:
        return self.title or DEFAULT_TITLE

    @property
    def benchmark_name(self) -> str:
        return self.benchmark or DEFAULT_BENCHMARK

    @property
    def floor_basis(self) -> str:
        return self.band_floor_basis or VERIFIED_FLOOR_BASIS

    @property
    def size(self) -> int:
        """The instances of the board (500 for the first bundles, whose facts do not say)."""
        return int(self.n_instances) if self.n_instances is not None else 500

    @property
    def size_label(self) -> str:
        """``500`` in ``resolved_of_500`` and ``original_rate_500``; ``all`` when pooled boards
        differ in size."""
        sizes = {int(b["n_instances"]) for b in self.boards or ()}
        return "all" if len(sizes) > 1 else str(self.size)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for key in _OPTIONAL:
            if not out.get(key):
                out.pop(key, None)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, sort_keys=True, default=dict) + "\n"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "build.json") -> BuildFacts:
        known = {f.name for f in fields(cls)}
        required = {f.name for f in fields(cls) if f.name not in _OPTIONAL}
        missing = sorted(required - set(data))
        if missing:
            raise DataError(f"{source}: missing build facts: {', '.join(missing)}")
        unknown = sorted(set(data) - known)
        if unknown:
            raise DataError(f"{source}: unknown build facts: {', '.join(unknown)}")
        return cls(**dict(data))

    @classmethod
    def read(cls, path: Path) -> BuildFacts:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DataError(f"{path}: cannot read the build facts ({exc})") from None
        if not isinstance(data, dict):
            raise DataError(f"{path}: the build facts are not a JSON object")
        return cls.from_dict(data, str(path))
