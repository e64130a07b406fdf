"""A board read for a republication: its submissions (a folder in the SWE-bench experiments layout,
``evaluation/<split>/<submission>/results/results.json``, or flat,
``<submission>/results/results.json``), its instance list (the denominator), the instances'
records (what Stage II reads: repository, base commit, gold patch) and tiers, and the official
board's resolved percentages when there is one. Several boards are pooled over the union of their
instances: an instance on two boards is one cluster, whichever board it came from."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DataError, InputError
from ..instances import BugInstance, load_instances
from ..leaderboard import Submission, load_submissions, load_tiers, official_percentages
from ..safe_io import is_input_file
from ..tier_schemes import ALL_TIER

BENCHMARKS = ("swe-bench-verified", "swe-bench", "multi-swe-bench")
_SCHEME = {"swe-bench-verified": "swe-bench-verified", "multi-swe-bench": "multi-swe-bench",
           "swe-bench": "labels"}
#: the board's own instance list beside Multi-SWE-bench's experiments: ``{id: {repository, time}}``
INDEX = "index.json"


@dataclass(frozen=True)
class BoardSource:
    """Where one board's inputs are: its ``submissions`` folder; ``instances`` (a SWE-bench or
    Multi-SWE-bench file or folder: the records Stage II reads, and the instance list unless
    the submissions folder has its own ``index.json``); ``tiers`` (a table with a ``difficulty``
    column, or a Multi-SWE-bench annotation workbook; default: the instances' ``difficulty``,
    else one tier); ``benchmark`` (its tier labels and, for ``swe-bench-verified``, the paper's
    findings; guessed when ``None``); ``official`` (a ``leaderboards.json``) and the name of the
    board in it."""

    name: str
    submissions: Path
    instances: Path | None = None
    tiers: Path | None = None
    benchmark: str | None = None
    official: Path | None = None
    official_board: str = "Verified"


@dataclass(frozen=True)
class Board:
    """One board read: its submissions folder, instance ids (in order), the instance records
    held, the tier of each instance, the submissions, the official percentages."""

    source: BoardSource
    folder: Path
    benchmark: str
    ids: tuple[str, ...]
    records: dict[str, BugInstance]
    tiers: dict[str, str]
    submissions: tuple[Submission, ...]
    official: dict[str, float] | None = field(default=None)
    dates: dict[str, str] = field(default_factory=dict)   # index.json's pull-request dates

    @property
    def name(self) -> str:
        return self.source.name


def submissions_folder(path: Path, name: str) -> Path:
    """The folder of a board's submissions: ``path`` itself (flat layout), or its
    ``evaluation/<split>`` (the experiments repository: the split named like the board, or its
    only split)."""
    if not path.is_dir():
        raise InputError(f"--board {name}={path}: no such folder")
    evaluation = path / "evaluation"
    if not evaluation.is_dir():
        return path
    splits = sorted(p.name for p in evaluation.iterdir() if p.is_dir())
    pick = [s for s in splits if s.lower() == name.lower()] or (splits if len(splits) == 1 else [])
    if not pick:
        raise InputError(f"--board {name}={path}: evaluation/ holds the splits {', '.join(splits)}; "
                         "name the board after one of them or give its folder")
    return evaluation / pick[0]


def _guess_benchmark(src: BoardSource, records: Sequence[BugInstance]) -> str:
    if src.benchmark is not None:
        if src.benchmark not in BENCHMARKS:
            raise InputError(f"board {src.name}: unknown benchmark {src.benchmark!r} (one of "
                             f"{', '.join(BENCHMARKS)})")
        return src.benchmark
    if (src.tiers is not None and src.tiers.suffix.lower() == ".xlsx") or any(
            r.benchmark == "multi-swe-bench" for r in records[:1]):
        return "multi-swe-bench"
    return "swe-bench-verified" if "verified" in src.name.lower() else "swe-bench"


def _index(folder: Path) -> dict[str, Any] | None:
    """The board's own ``index.json`` (``{instance_id: {repository, time}}``), if it has one."""
    index = folder / INDEX
    if not is_input_file(index):
        return None
    try:
        data: Any = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"{index}: cannot read the instance list ({exc})") from None
    if not isinstance(data, dict) or not data:
        raise DataError(f"{index}: expected an object {{instance_id: {{...}}}}")
    return data


def _ids(src: BoardSource, folder: Path, records: Sequence[BugInstance], index: dict[str, Any] | None
         ) -> tuple[str, ...]:
    if index is not None:
        return tuple(sorted(map(str, index)))
    if not records:
        raise InputError(f"board {src.name}: give its instances (--instances {src.name}=FILE): "
                         f"{folder} has no {INDEX}")
    return tuple(r.instance_id for r in records)


def _tiers(src: BoardSource, benchmark: str, ids: Sequence[str]) -> dict[str, str]:
    path = src.tiers or src.instances
    if path is None or (src.tiers is None and not _has_difficulty(path)):
        return dict.fromkeys(ids, ALL_TIER)
    tiers = load_tiers(path, field="difficulty", scheme=_SCHEME[benchmark], instance_ids=list(ids))
    missing = [i for i in ids if i not in tiers]
    if missing:
        raise DataError(f"board {src.name}: {len(missing)} instances have no tier in {path}: "
                        f"{', '.join(missing[:5])}")
    return {i: tiers[i] for i in ids}


def _has_difficulty(path: Path) -> bool:
    """Whether an instances file labels difficulty (SWE-bench Verified's do; Lite's do not)."""
    if not is_input_file(path) or path.suffix.lower() not in (".jsonl", ".json", ".csv"):
        return False
    with open(path, encoding="utf-8") as fh:
        head = fh.read(1 << 16)
    return '"difficulty"' in head or head.split("\n", 1)[0].split(",").count("difficulty") > 0


def read_board(src: BoardSource) -> Board:
    """The board of ``src`` read (module doc)."""
    folder = submissions_folder(src.submissions, src.name)
    subs = tuple(load_submissions(folder))
    records = load_instances(src.instances) if src.instances is not None else []
    benchmark = _guess_benchmark(src, records)
    index = _index(folder)
    ids = _ids(src, folder, records, index)
    known = set(ids)
    held = {r.instance_id: r for r in records if r.instance_id in known}
    official = official_percentages(src.official, src.official_board) if src.official else None
    dates = {str(i): str(v["time"])[:10] for i, v in (index or {}).items()
             if isinstance(v, dict) and str(v.get("time", ""))[:4].isdigit()}
    return Board(src, folder, benchmark, ids, held, _tiers(src, benchmark, ids), subs, official, dates)


def pooled(boards: Sequence[Board]) -> tuple[list[str], dict[str, str], dict[str, BugInstance]]:
    """The union of the boards' instances (in board order), their tiers and records; an instance
    two boards tier differently is a :class:`DataError` naming both."""
    ids: dict[str, None] = {}
    tiers: dict[str, str] = {}
    records: dict[str, BugInstance] = {}
    for board in boards:
        for iid in board.ids:
            ids.setdefault(iid)
            tier = board.tiers[iid]
            if tiers.setdefault(iid, tier) != tier:
                raise DataError(f"instance {iid}: tier {tiers[iid]!r} on one board, {tier!r} on "
                                f"board {board.name}: give the boards one tiers file")
        for iid, rec in board.records.items():
            records.setdefault(iid, rec)
    return list(ids), tiers, records
