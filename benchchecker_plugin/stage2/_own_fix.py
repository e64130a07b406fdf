"""An instance's own fix snapshot: the first snapshot that holds its fix, a check of Stage II itself.

>>> own = own_fix_snapshot(repo_path, inst)       # doctest: +SKIP
>>> own.when, own.snapshot, own.basis             # doctest: +SKIP

Git: the first first-parent commit of the default branch whose tree holds the fix -- the commit
naming the pull request (``repos.fixes``), followed to the first default-branch commit having it
as an ancestor, *not* the merge date (sphinx merges fixes into a maintenance branch that reaches
the default branch later). Preferably the landing where the gold patch un-applies
(:func:`~..repos.fixes.fix_landed`); else the first landing of a commit naming the pull request
(the merged fix differs from the gold patch: ``unapplies`` is ``False``). When no commit names the
pull request, the first default-branch commit after the base where the gold patch un-applies,
found by content (:func:`~..repos.fixes.first_unapplying`); failing that, the first one holding
the fix's most distinctive added line (:func:`~..repos.fixes.first_holding`: the fix reached the
default branch in another form or by another pull request).

Release snapshots: the candidates are the releases uploaded after the fix's date with a version at
or above the instance's own line (SWE-bench's ``version``: the development line the fix was
written on; a release of an older line is a backport that need not hold it), in upload order, up
to the first release of a later line (it was cut from the default branch, so it holds what was
merged there before). The own fix release is the first candidate where the gold patch un-applies
(a maintenance release of the line need not hold a fix merged on the default branch), or an older
line's maintenance release uploaded among them where it un-applies (a backport reaches users
first: Django 4.2.1 holds fixes that 5.0a1 brings months later; scikit-learn 0.21.3 one that 0.22
had rewritten already). When it un-applies at none of those: a later release of any line where it
un-applies; else the first release after the fix's date holding the fix's most distinctive added
lines verbatim (it landed with other context); else the first candidate. Candidates not yet
fetched are named in ``to_fetch``; they are needed to decide. The fix's date is the pull
request's creation (``created_at``) where known, else estimated from its number (pull requests
are numbered in time order) by interpolating between the instances of the same repository whose
creation is known; ``basis`` says which.

Stage II at ``when`` (the snapshot's own date) reads that snapshot; the share of instances found
present there is a label-free recall figure (a republication's ``own_fix_recall.csv``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from packaging.version import InvalidVersion, Version

from ..instances import BugInstance
from ..repos import (
    Release,
    ReleaseHistory,
    added_lines,
    first_holding,
    first_landing,
    first_unapplying,
    fix_landed,
    holds_line,
    is_release_repo,
    unapplies,
)


@dataclass(frozen=True)
class OwnFix:
    """Where an instance's own fix snapshot is (``when`` is ``None`` and ``missing`` says why
    when there is none)."""

    instance_id: str
    source: str                  # "git" or "release"
    when: datetime | None        # the cutoff that reads the snapshot
    snapshot: str                # a commit sha or a release version
    basis: str                   # how it was found
    unapplies: bool | None       # the gold patch un-applies there (None: not checked)
    missing: str = ""
    to_fetch: tuple[str, ...] = ()   # release candidates not fetched yet (releases only)


def _number(instance_id: str) -> int | None:
    m = re.search(r"-(\d+)$", instance_id)
    return int(m.group(1)) if m else None


def pr_dates(instances: Sequence[BugInstance]) -> dict[str, tuple[datetime, str]]:
    """Each instance's pull-request date and its basis: ``created_at`` where known, else
    interpolated from its number between the known ones of its repository (clamped at the ends;
    none when its repository has fewer than two known)."""
    out: dict[str, tuple[datetime, str]] = {}
    known: dict[str, list[tuple[int, float]]] = {}
    for inst in instances:
        n = _number(inst.instance_id)
        if inst.created is not None:
            out[inst.instance_id] = (inst.created, "pull request created_at")
            if n is not None:
                known.setdefault(inst.repo, []).append((n, inst.created.timestamp()))
    for inst in instances:
        n = _number(inst.instance_id)
        pts = sorted(known.get(inst.repo, []))
        if inst.instance_id in out or n is None or len(pts) < 2:
            continue
        xs, ys = zip(*pts, strict=True)
        stamp = float(np.interp(n, xs, ys))
        out[inst.instance_id] = (datetime.fromtimestamp(stamp, UTC),
                                 f"estimated from PR number #{n} ({len(pts)} known in {inst.repo})")
    return out


def _line(version: str | None) -> Version | None:
    try:
        return Version(f"{version}.dev0") if version else None
    except InvalidVersion:
        return None


def _release(path: Path, inst: BugInstance, dated: tuple[datetime, str] | None) -> OwnFix:
    def none(why: str) -> OwnFix:
        return OwnFix(inst.instance_id, "release", None, "", "", None, why)

    if dated is None:
        return none("no pull-request date (created_at) to start from")
    hist = ReleaseHistory.open(path)
    floor = _line(inst.extra.get("version"))
    later = sorted((r for r in hist.releases if r.uploaded_at > dated[0]
                    and (floor is None or r.parsed_version >= floor)), key=lambda r: r.uploaded_at)
    if not later:
        return none(f"no release of line {inst.extra.get('version')} or above after {dated[0]:%Y-%m-%d}")
    line = floor.release[:2] if floor is not None else None
    candidates = []
    for rel in later:
        candidates.append(rel)
        if line is None or rel.parsed_version.release[:2] > line:
            break   # the next line's first release: cut from the default branch
    line_basis = (f"first release of line >= {inst.extra.get('version')} uploaded after the PR date "
                  f"({dated[1]}: {dated[0]:%Y-%m-%d})")
    unfetched: list[str] = []

    def pick(rel: Release, basis: str, holds: bool | None) -> OwnFix:
        return OwnFix(inst.instance_id, "release", rel.uploaded_at, rel.version, basis, holds,
                      f"release {unfetched[0]} was not fetched" if unfetched else "", tuple(unfetched))

    # the line's candidates and, uploaded among them, an older line's maintenance releases: a
    # backport reaches users before the line's own release (Django 4.2.1 before 5.0a1)
    own = {r.version for r in candidates}
    pool = {r.version: r for r in hist.fetched if dated[0] < r.uploaded_at <= candidates[-1].uploaded_at}
    pool.update({r.version: r for r in candidates})
    for rel in sorted(pool.values(), key=lambda r: r.uploaded_at):
        if not rel.commit:
            unfetched.append(rel.version)
        elif unapplies(path, rel.commit, inst.patch):
            return pick(rel, f"{line_basis} where the gold patch un-applies" if rel.version in own else
                        f"{line_basis}: release {rel.version} of an older line, uploaded before it, where "
                        "the gold patch un-applies (a backport)", True)
    first = candidates[0]
    if not first.commit:
        return pick(first, line_basis, None)
    after = sorted((r for r in hist.fetched if r.uploaded_at > dated[0]), key=lambda r: r.uploaded_at)
    span = f"the gold patch un-applies at none of {first.version}..{candidates[-1].version}"
    # the releases up to the last candidate were tried above; a backport may come later
    backport = next((r for r in after if r.uploaded_at > candidates[-1].uploaded_at
                     and unapplies(path, r.commit or "", inst.patch)), None)
    if backport is not None:   # a backport: an older line's release holds the fix verbatim
        return pick(backport, f"{line_basis}: {span}; first release after the PR date where it "
                              f"un-applies (a backport: release {backport.version} of an older line)", True)
    lines = added_lines(inst.patch)
    held = next((r for r in after if lines and all(holds_line(path, r.commit or "", p, t) for p, t in lines)),
                None)
    if held is not None:       # the fix landed with other context: its added lines are there
        return pick(held, f"{line_basis}: {span}; first release after the PR date holding the fix's "
                          f"{len(lines)} most distinctive added lines", False)
    return pick(first, f"{line_basis}; {span}, and no release after the PR date holds its added lines", False)


def own_fix_snapshot(path: str | Path, inst: BugInstance,
                     dated: tuple[datetime, str] | None = None) -> OwnFix:
    """The own fix snapshot of ``inst`` in the clone or release repository ``path`` (module doc);
    ``dated`` (from :func:`pr_dates`) is needed for release repositories."""
    root = Path(path)
    if is_release_repo(root):
        return _release(root, inst, dated)
    fix = fix_landed(root, inst.instance_id, inst.base_commit, inst.patch)
    if fix is not None:
        return OwnFix(inst.instance_id, "git", fix.landed_at, fix.commit,
                      f"first default-branch commit holding {fix.named_in[:12]} (names the PR; gold patch "
                      "un-applies there)", True)
    first = first_landing(root, inst.instance_id, inst.base_commit)
    if first is None:
        found = first_unapplying(root, inst.base_commit, inst.patch)
        if found is not None:
            return OwnFix(inst.instance_id, "git", found.landed_at, found.commit,
                          f"first default-branch commit after the base where the gold patch "
                          f"un-applies (by content: no commit names pull request "
                          f"#{_number(inst.instance_id)})", True)
        held = first_holding(root, inst.base_commit, inst.patch)
        if held is not None:
            return OwnFix(inst.instance_id, "git", held[0].landed_at, held[0].commit,
                          f"first default-branch commit after the base holding the fix's added line "
                          f"{held[1][:60]!r} (by content: no commit names pull request "
                          f"#{_number(inst.instance_id)} and the gold patch un-applies at none)", False)
        return OwnFix(inst.instance_id, "git", None, "", "", None,
                      f"no commit names pull request #{_number(inst.instance_id)}, the gold patch "
                      "un-applies at no default-branch commit after the base, and none holds its "
                      "added lines")
    return OwnFix(inst.instance_id, "git", first.landed_at, first.commit,
                  f"first default-branch commit holding {first.named_in[:12]} (names the PR)",
                  unapplies(root, first.commit, inst.patch))
