"""Where Stage II's snapshots and base files come from, and what dates add to a verdict.

Snapshot sources: a git clone (``DIR/owner__name``, the reference) or release snapshots
(``DIR/owner__name.releases``, :mod:`~benchchecker_plugin.repos._releases`); with ``auto`` git is
preferred where both exist. Every flag names its source in ``evidence.snapshot_source``
(``{"kind": "git", "commit": …}`` or ``{"kind": "release", "release": …, "uploaded_at": …}``)
and its base files in ``evidence.base_source``.

Base files (the base commit, or a release standing in for it): :mod:`._base_read`.

Dates:

* **lag correction** (release snapshots, ``lag_margin_days``): a release says the fix is absent,
  yet the fix was merged before the cutoff and only released after it. When the PR was created
  before the cutoff, the first higher-version release after the cutoff was uploaded within the
  margin, and the fix is present there, the verdict becomes present; ``evidence.lag_correction``
  says whether and why.
* **merge dates** (git): the fix's first-parent commit on the default branch (a subject naming
  the PR, followed to where the default branch first holds it, and the gold patch un-applies there:
  :func:`~benchchecker_plugin.repos._fixes.fix_landed`). Merged after the cutoff and its lines not found
  (inconclusive, gone) → clean, category ``merged-after-cutoff``; found although merged after the
  cutoff (a regression fix restoring earlier code) → stays present, ``evidence.present_before_fix``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..errors import InputError, RepositoryError
from ..instances import BugInstance
from ..repos import (
    RELEASES_MARKER,
    ReleaseHistory,
    Snapshot,
    find_releases,
    find_repo,
    fix_landed,
    is_release_repo,
)
from ._decide import Category, PresenceVerdict

SNAPSHOT_SOURCES = ("auto", "git", "releases")
_lock = threading.Lock()
_histories: dict[tuple[Path, float], ReleaseHistory] = {}


def locate(repos_dir: str | os.PathLike[str], inst: BugInstance, *, source: str = "auto",
           releases_dir: str | os.PathLike[str] | None = None) -> Path:
    """The clone (``git``), the release repository (``releases``) or, with ``auto``, the clone
    when there is one, else the release repository; :class:`RepositoryError` naming both."""
    if source not in SNAPSHOT_SOURCES:
        raise InputError(f"snapshot source {source!r}: expected one of {', '.join(SNAPSHOT_SOURCES)}")
    git_err: RepositoryError | None = None
    if source in ("auto", "git"):
        try:
            return find_repo(repos_dir, inst)
        except RepositoryError as exc:
            if source == "git":
                raise
            git_err = exc
    try:
        return find_releases(releases_dir if releases_dir is not None else repos_dir, inst.repo)
    except RepositoryError as exc:
        if git_err is not None:
            raise RepositoryError(f"{git_err}; and {exc}") from exc
        raise RepositoryError(f"instance {inst.instance_id!r}: {exc}") from exc


def history(path: Path) -> ReleaseHistory:
    """The release repository at ``path`` (its marker read once per change)."""
    marker = path / ".git" / RELEASES_MARKER
    key = (path, marker.stat().st_mtime if marker.exists() else 0.0)
    with _lock:
        if key not in _histories:
            _histories[key] = ReleaseHistory.open(path)
        return _histories[key]


def snapshot_at(path: Path, when: datetime) -> Snapshot:
    """The snapshot of a clone or of a release repository at the cutoff ``when``."""
    if is_release_repo(path):
        hist = history(path)
        return hist.snapshot(hist.at(when), when)
    return Snapshot.at(path, when)


def describe(snapshot: Snapshot) -> dict[str, Any]:
    """``evidence.snapshot_source`` of a flag made on ``snapshot``."""
    if is_release_repo(snapshot.repo):
        hist = history(snapshot.repo)
        rel = hist.of_commit(snapshot.commit)
        if rel is not None:   # the sdist's digest too: a reader can check the very file read
            return {**rel.to_evidence(hist.package), "sha256": rel.sha256}
    return {"kind": "git", "commit": snapshot.commit, "committed_at": snapshot.committed_at.isoformat()}


# ------------------------------------------------------------------------------------- dates
def adjust_for_dates(inst: BugInstance, got: PresenceVerdict, snapshot: Snapshot, when: datetime, *,
                     lag_margin_days: float | None, merge_dates: bool,
                     verdict_at: Callable[[Snapshot], PresenceVerdict]) -> PresenceVerdict:
    """The verdict of ``inst`` at the cutoff ``when`` (``got``, read at ``snapshot``) with the
    date rules applied (module doc); ``got.evidence`` is changed in place. ``verdict_at``
    decides the instance on another snapshot of the same repository (the release after the
    cutoff)."""
    category, score, evidence = got.category, got.score, got.evidence
    evidence["snapshot_source"] = describe(snapshot)
    if is_release_repo(snapshot.repo):
        if lag_margin_days is not None and category.contaminated is False:
            category, score = _lag(inst, category, score, evidence, snapshot, when, lag_margin_days, verdict_at)
        return PresenceVerdict(category, score, evidence)
    if not merge_dates:
        return got
    fix = fix_landed(snapshot.repo, inst.instance_id, inst.base_commit, inst.patch)
    if fix is None:
        return got
    merged = fix.landed_at
    info: dict[str, Any] = {**fix.to_evidence(), "after_cutoff": merged > when}
    evidence["fix_merged"] = info
    if merged > when and category in (Category.INCONCLUSIVE, Category.GONE):
        info["rule"] = f"merged after the cutoff and its lines are not present (was {category.value})"
        category, score = Category.MERGED_AFTER, 0.0
        evidence["category"] = category.value
    elif merged > when and category.contaminated is True:
        evidence["present_before_fix"] = ("the fixed lines are in the snapshot although the fix was "
                                          "merged after the cutoff (earlier code restored by the fix?)")
    return PresenceVerdict(category, score, evidence)


def _lag(inst: BugInstance, category: Category, score: float, evidence: dict[str, Any], snapshot: Snapshot,
         when: datetime, margin: float, verdict_at: Callable[[Snapshot], PresenceVerdict]
         ) -> tuple[Category, float]:
    hist = history(snapshot.repo)
    rel = hist.of_commit(snapshot.commit)
    info: dict[str, Any] = {"applied": False, "margin_days": margin}
    evidence["lag_correction"] = info
    created = inst.created
    nxt = hist.after(when, rel) if rel is not None else None
    if nxt is not None:
        info.update(next_release=nxt.version, next_uploaded_at=nxt.uploaded_at.isoformat())
    if created is None:
        info["why"] = "no PR creation date (created_at)"
    elif created > when:
        info.update(pr_created_at=created.isoformat(), why="PR created after the cutoff")
    elif nxt is None:
        info["why"] = "no later release"
    elif nxt.uploaded_at > when + timedelta(days=margin):
        info["why"] = f"the next release came more than {margin:g} days after the cutoff"
    elif not nxt.commit:
        info["why"] = f"release {nxt.version} was not fetched"
    else:
        info["pr_created_at"] = created.isoformat()
        later_verdict = verdict_at(hist.snapshot(nxt, when))
        later, later_score = later_verdict.category, later_verdict.score
        if later.contaminated is True:
            info.update(applied=True, was=category.value,
                        why=f"fix present in {nxt.version}, the first release after the cutoff")
            evidence["category"] = Category.PRESENT.value
            return Category.PRESENT, later_score
        info["why"] = f"fix not present in {nxt.version} either ({later.value})"
    return category, score
