"""What a republication says of its sources: the official board's top entries (from a
``leaderboards.json``) and the first CHANGELOG.md and LICENSE-DATA.md of a new bundle folder."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import DataError
from ..leaderboard import Submission
from ._boards import Board
from ._bundle import Bundle

if TYPE_CHECKING:
    from ._config import RepublishConfig
    from ._rows import Scoring


def board_facts(board: Board, subs: Sequence[Submission], scoring: Scoring) -> dict[str, Any] | None:
    """The official board (its ``leaderboards.json``, when given): how many entries, how many
    have no per-instance results here, and its top 10 with which are here and scored."""
    src = board.source
    if src.official is None:
        return None
    data = json.loads(src.official.read_text(encoding="utf-8"))
    found = [b for b in data.get("leaderboards", []) if b.get("name") == src.official_board]
    if not found:
        raise DataError(f"{src.official}: no board named {src.official_board!r}")
    results = found[0]["results"]
    have = {s.name for s in subs}
    scored = {s.name for s in scoring.scored}
    top = sorted(results, key=lambda r: -float(r["resolved"]))[:10]
    return {"name": src.official_board, "n_entries": len(results),
            "n_absent": sum(r["folder"] not in have for r in results),
            "top10": [{"name": r["name"], "folder": r["folder"], "resolved %": float(r["resolved"]),
                       "date": r.get("date", ""), "here": r["folder"] in have,
                       "scored": r["folder"] in scored} for r in top]}


def first_texts(bundle: Bundle, config: RepublishConfig) -> dict[str, str]:
    """A new bundle folder's CHANGELOG.md and LICENSE-DATA.md (kept by hand after that)."""
    facts = bundle.facts
    boards = ", ".join(f"{b.name} ({b.submissions})" for b in config.boards)
    changelog = (f"# Changelog of the republished {facts.display_title} leaderboard\n\n"
                 f"## {facts.date[:10]}\n\n- First republication: {bundle.instances['instance_id'].nunique()} "
                 f"instances, {facts.n_models} models with a published cutoff, {facts.n_submissions} "
                 f"submissions, {bundle.instances['submission'].nunique()} scored.\n")
    licence = ("# Licence of the data in this folder\n\n"
               f"- The instance ids, repositories, difficulty tiers and resolved lists are from the "
               f"boards' own data ({boards}); each submission belongs to its submitter, and the "
               "upstream data's terms apply.\n"
               "- The training cutoffs are from the cutoffs table given to the run, each with its "
               "public source.\n"
               "- The verdicts (`flags.csv`, `instances.csv`) and every table and page here are "
               "derived by benchchecker and released under the project's licence, with the "
               "upstream data's terms above.\n")
    return {"CHANGELOG.md": changelog, "LICENSE-DATA.md": licence}
