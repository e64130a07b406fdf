"""The bundle's tables made from a republication's verdicts: one row per instance and scored
submission (``instances.csv``), the snapshot of each (repository, model) (``snapshots.csv``) and
the submissions not scored (``unscored.csv``)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..leaderboard import Submission
from ._bundle import BAND, INSTANCE_COLUMNS, PUBLISHED, SNAPSHOT_COLUMNS, repo_of, submission_verdict
from ._verdicts import Verdicts


@dataclass(frozen=True)
class Scoring:
    """Who is scored how: ``scored`` at their models' published cutoffs, ``banded`` over a
    plausible interval (``{name: (submission, (first date, last date))}``), ``unscored`` with the
    reason; each submission's board and each board's instance ids."""

    scored: tuple[Submission, ...]
    banded: Mapping[str, tuple[Submission, tuple[str, str]]]
    unscored: tuple[tuple[Submission, str], ...]
    board_of: Mapping[str, str]
    ids_of: Mapping[str, Sequence[str]]


def snapshot_id(snap: Any) -> str:
    """The snapshot a verdict was read at, short: ``git:<commit, 12 hex>`` or
    ``release:<version>``; snapshots.csv gives the full commit, or the sdist's sha256 and upload
    time, per (repository, model)."""
    if not snap:
        return ""
    if snap.get("source") == "release":
        return f"release:{snap.get('version', '')}"
    return f"git:{str(snap.get('commit', ''))[:12]}"


def snapshot_sources(verdicts: Verdicts) -> dict[str, str]:
    """Each repository's snapshot source (``git`` or ``release``) from the flags' evidence."""
    sources = dict.fromkeys(verdicts.release_repos, "release")
    for (iid, _m), ev in verdicts.evidence.items():
        src = ev.get("snapshot_source")
        sources.setdefault(repo_of(iid), str(src.get("kind", "git")) if isinstance(src, Mapping) else "git")
    return sources


def _row(sub: Submission, iid: str, tier: str, verdicts: Verdicts, date_of: Mapping[str, str],
         band: tuple[str, str] | None, covered: bool, source: str) -> dict[str, Any]:
    at = verdicts.at
    if band is None:
        v = submission_verdict([at[date_of[m]].get(iid, "undecided") for m in sub.models]) \
            if covered else "not covered"
        ends: tuple[str, ...] = ("", "")
        ev = verdicts.evidence.get((iid, sub.models[0]), {})
    else:
        v = ""
        ends = tuple(at[d].get(iid, "undecided") if covered else "not covered" for d in band)
        ev = {}
    return {"instance_id": iid, "repo": repo_of(iid), "tier": tier, "submission": sub.name,
            "models": ";".join(sub.models), "date": sub.date,
            "scored_as": BAND if band else PUBLISHED, "resolved": int(iid in sub.resolved),
            "verdict": v, "verdict_band_start": ends[0], "verdict_band_end": ends[1],
            "clean_kind": ev.get("clean_kind", "") if v == "clean" else "",
            "snapshot_source": source, "snapshot": snapshot_id(ev.get("snapshot", ""))}


def instance_rows(scoring: Scoring, tiers: Mapping[str, str], verdicts: Verdicts,
                  date_of: Mapping[str, str], covered: set[str]) -> pd.DataFrame:
    """``instances.csv``: every instance of a scored submission's board, for each submission."""
    sources = snapshot_sources(verdicts)
    rows = []
    for sub in list(scoring.scored) + [b[0] for b in scoring.banded.values()]:
        band = scoring.banded.get(sub.name)
        for iid in scoring.ids_of[scoring.board_of[sub.name]]:
            rows.append(_row(sub, iid, tiers[iid], verdicts, date_of, band[1] if band else None,
                             iid in covered, sources.get(repo_of(iid), "git")))
    return pd.DataFrame(rows, columns=list(INSTANCE_COLUMNS))


def snapshot_rows(verdicts: Verdicts, date_of: Mapping[str, str], ids: Sequence[str]) -> pd.DataFrame:
    """``snapshots.csv``: the snapshot each (repository, model) was read at, where the run
    recorded it (else the source only)."""
    sources = snapshot_sources(verdicts)
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for (iid, m), ev in verdicts.evidence.items():
        snap = ev.get("snapshot") or {}
        repo = repo_of(iid)
        rows.setdefault((repo, m), {"repo": repo, "model": m, "snapshot at": date_of.get(m, ""),
                                    "source": snap.get("source", sources.get(repo, "git")),
                                    "commit": snap.get("commit", ""), "version": snap.get("version", ""),
                                    "sha256": snap.get("sha256", ""), "uploaded": snap.get("uploaded", "")})
    if not rows:   # verdicts from an earlier bundle: the sources are known, the snapshot ids are not
        for repo in sorted({repo_of(i) for i in ids}):
            for m in date_of:
                rows[(repo, m)] = {"repo": repo, "model": m, "snapshot at": date_of[m],
                                   "source": sources.get(repo, "git"), "commit": "", "version": "",
                                   "sha256": "", "uploaded": ""}
    frame = pd.DataFrame(list(rows.values()), columns=list(SNAPSHOT_COLUMNS))
    return frame.sort_values(["repo", "snapshot at", "model"])


def unscored_rows(scoring: Scoring, size_label: str) -> pd.DataFrame:
    """``unscored.csv``: each submission not scored, with its reason and original rate."""
    subs = [s for s, _ in scoring.unscored]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pd.DataFrame({
            "submission": [s.name for s in subs], "model": [s.model for s in subs],
            "date": [s.date for s in subs], "reason": [r for _, r in scoring.unscored],
            f"original_rate_{size_label}": [len(s.resolved) / len(scoring.ids_of[scoring.board_of[s.name]])
                                            for s in subs]})
