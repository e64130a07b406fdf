"""Where Stage II's snapshots and base files come from, and what dates add to a verdict.

Snapshot sources: a git clone (``DIR/owner__name``, the reference) or release snapshots
(``DIR/owner__name.releases``, :mod:`~benchchecker_plugin.repos.releases`); with ``auto`` git is
preferred where both exist. Every flag names its source in ``evidence.snapshot_source``
(``{"kind": "git", "commit": …}`` or ``{"kind": "release", "release": …, "uploaded_at": …}``)
and its base files in ``evidence.base_source``.

Base files without the base commit (release snapshots): the gold patch is read against the
releases of :func:`~benchchecker_plugin.repos.releases.base_candidates` in turn; the first that
holds every file the patch changes and to which every hunk applies the way ``git apply`` would
(at an offset when lines moved) is the stand-in base (``how``: ``applies`` or
``applies-at-offset``). When none applies but one already holds the fix (a release of the line
the fix was made in), the patch is undone there as ``git apply -R`` would, which gives its exact
pre-image in that release's code (``un-applied``). Else each hunk's pre-image is written into the first
candidate's file where it fits best (every removed row and half of its rows found, whitespace
aside; ``applies-with-fuzz``, with the rows that changed; a file none of whose places fits is read
from its own pre-image, listed in ``pre_image_files``), so its scope comes from the release's
code. When no file fits, the patch's own pre-image is read (each hunk parsed on its own, its scope
from the hunk's function context; ``how``: ``pre-image``) against the first candidate holding the
files. An instance whose files no fetched release holds is an error naming
the file.

Dates:

* **lag correction** (release snapshots, ``lag_margin_days``): a release says the fix is absent,
  yet the fix was merged before the cutoff and only released after it. When the PR was created
  before the cutoff, the first higher-version release after the cutoff was uploaded within the
  margin, and the fix is present there, the verdict becomes present; ``evidence.lag_correction``
  says whether and why.
* **merge dates** (git): the fix's first-parent commit on the default branch (a subject naming
  the PR, followed to where the default branch first holds it, and the gold patch un-applies there:
  :func:`~benchchecker_plugin.repos.fixes.fix_landed`). Merged after the cutoff and its lines not found
  (inconclusive, gone) → clean, category ``merged-after-cutoff``; found although merged after the
  cutoff (a regression fix restoring earlier code) → stays present, ``evidence.present_before_fix``.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from ..errors import DataError, InputError, RepositoryError
from ..instances.bug import BugInstance
from ..repos.clones import find_repo
from ..repos.fixes import fix_landed
from ..repos.releases import RELEASES_MARKER, ReleaseHistory, base_candidates, find_releases, is_release_repo
from ..repos.snapshot import Snapshot
from .decide import Category
from .normalize import ParsedSource
from .patch import PatchBlock, apply_patch_to_text, parse_patch

__all__ = ["SNAPSHOT_SOURCES", "adjust_for_dates", "describe", "locate", "read_base", "snapshot_at"]

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


def _patched_sources(inst: BugInstance) -> list[tuple[str, Any]]:
    """``(path, unidiff PatchedFile)`` of every file the gold patch changes (not creates)."""
    try:
        files = PatchSet(inst.patch)
    except UnidiffParseError as exc:
        raise DataError(f"instance {inst.instance_id!r}: gold patch is not a unified diff ({exc})") from None
    out = []
    for f in files:
        src = f.source_file
        if src and src != "/dev/null" and not f.is_added_file:
            out.append((src[2:] if src.startswith(("a/", "b/")) else src, f))
    return out


_HUNK = re.compile(r"^@@ -(\d+(?:,\d+)?) \+(\d+(?:,\d+)?) @@(.*)$")


def _reversed(diff: str) -> str:
    """``diff`` undone: added and removed rows swapped, hunk ranges and file names too."""
    out = []
    lines = diff.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old, new = ln[4:], lines[i + 1][4:]
            out += ["--- " + new, "+++ " + old]
            i += 2
            continue
        m = _HUNK.match(ln.rstrip("\r\n"))
        if ln.startswith(("diff --git ", "index ")):
            pass  # git's headers name the sides in the old order; the ---/+++ pair is enough
        elif m:
            out.append(f"@@ -{m.group(2)} +{m.group(1)} @@{m.group(3)}\n")
        elif ln.startswith("+"):
            out.append("-" + ln[1:])
        elif ln.startswith("-"):
            out.append("+" + ln[1:])
        else:
            out.append(ln)
        i += 1
    return "".join(out)


def _unapplied(inst: BugInstance, patched: list[tuple[str, Any]], holding: list[tuple[Snapshot, Any]],
               preprocess: bool, posts: dict[str, ParsedSource], tried: list[str]
               ) -> tuple[Snapshot, tuple[PatchBlock, ...], Any] | None:
    """The first release that already holds the fix, with the gold patch's pre-image made by
    undoing the patch there (as ``git apply -R`` would): the base, the blocks and the release."""
    try:
        back = {(f.target_file[2:] if f.target_file.startswith(("a/", "b/")) else f.target_file): f
                for f in PatchSet(_reversed(inst.patch)) if f.target_file != "/dev/null"}
    except UnidiffParseError:
        return None
    for base, rel in holding:
        texts: dict[str, str] = {}
        try:
            for path, _ in patched:
                post = base.read_if_exists(path)
                if post is None or path not in back:
                    raise DataError(f"instance {inst.instance_id!r}: {path} cannot be undone")
                texts[path] = apply_patch_to_text(post, back[path], inst.instance_id)
            got: dict[str, ParsedSource] = {}
            blocks = parse_patch(inst.patch, instance_id=inst.instance_id,
                                 read_pre=_overlay(texts, base, []), posts=got, preprocess=preprocess)
        except DataError as exc:
            tried.append(f"{rel.version} undone: {str(exc).partition(': ')[2] or exc}")
            continue
        posts.update(got)
        return base, blocks, rel
    return None


def _overlay(texts: dict[str, str], base: Snapshot, unread: list[str]) -> Callable[[str], str | None]:
    """``read_pre`` giving ``texts`` for their paths, nothing for ``unread`` ones (those are
    parsed from the patch's own pre-image), and ``base``'s files otherwise."""
    return lambda path: texts[path] if path in texts else None if path in unread else base.read_if_exists(path)


def _fuzzed(text: str, pfile: Any) -> tuple[str, int] | None:
    """``text`` with each hunk's pre-image written where it fits best, and how many rows that
    changed; ``None`` when a hunk fits nowhere. A hunk fits where every removed row is found
    (whitespace aside) and at least half of its pre-image rows are, nearest its stated line; the
    rows between keep the release's text. The place obeys ``git apply``'s anchoring (a hunk at
    line 1 with context fits only at the start, one without trailing context only at the end)."""
    rows = text.split("\n")
    ends = text.endswith("\n")
    if ends:
        rows.pop()
    key = [r.strip() for r in rows]
    start = changed = 0
    for hunk in pfile:
        lines = [ln for ln in hunk if ln.line_type in (" ", "-", "+")]
        kinds = [ln.line_type for ln in lines]
        pre = [ln.value.rstrip("\n").rstrip("\r") for ln in lines if ln.line_type != "+"]
        pre_kinds = [k for k in kinds if k != "+"]
        m = len(pre)
        if m == 0:
            return None
        leading = next((i for i, k in enumerate(kinds) if k != " "), len(kinds))
        trailing = next((i for i, k in enumerate(reversed(kinds)) if k != " "), len(kinds))
        zero = leading == 0 and trailing == 0
        spots = range(start, len(rows) - m + 1)
        if hunk.source_start == 0 or (hunk.source_start == 1 and not zero):
            spots = range(0, 1 if start == 0 and len(rows) >= m else 0)
        elif not zero and trailing == 0:
            spots = range(len(rows) - m, len(rows) - m + 1) if len(rows) - m >= start else range(0)
        want = [p.strip() for p in pre]
        best: tuple[int, int] | None = None
        stated = max(hunk.source_start - 1, 0)
        for at in spots:
            score = 0
            for k in range(m):
                if key[at + k] == want[k]:
                    score += 1
                elif pre_kinds[k] == "-":
                    score = -1
                    break
            if score >= max(1, (m + 1) // 2) and (best is None or (score, -abs(at - stated)) > (best[1], -abs(best[0] - stated))):
                best = (at, score)
        if best is None:
            return None
        at = best[0]
        changed += sum(1 for k in range(m) if rows[at + k] != pre[k])
        rows[at:at + m] = pre
        key[at:at + m] = want
        start = at + m
    return "\n".join(rows) + ("\n" if ends and rows else ""), changed


def read_base(inst: BugInstance, anchor: Snapshot, *, preprocess: bool, posts: dict[str, ParsedSource],
              bases: dict[str, Snapshot]) -> tuple[Snapshot, tuple[PatchBlock, ...], dict[str, Any]]:
    """The base snapshot, the gold patch's blocks and ``evidence.base_source`` of ``inst``
    (``posts`` receives the post-patch files); ``bases`` caches snapshots by commit."""

    def sibling(commit: str) -> Snapshot:
        if commit not in bases:
            bases[commit] = anchor.sibling(commit)
        return bases[commit]

    def parse(base: Snapshot | None, into: dict[str, ParsedSource] | None) -> tuple[PatchBlock, ...]:
        return parse_patch(inst.patch, instance_id=inst.instance_id,
                           read_pre=None if base is None else base.read_if_exists, posts=into,
                           preprocess=preprocess)

    if not is_release_repo(anchor.repo):
        try:
            base = sibling(inst.base_commit)
        except RepositoryError as exc:
            raise RepositoryError(f"instance {inst.instance_id!r}: {exc}") from exc
        return base, parse(base, posts), {"kind": "git", "commit": base.commit}
    hist = history(anchor.repo)
    cands = base_candidates(hist.fetched, version=inst.extra.get("version"), created_at=inst.created)
    if not cands:
        raise RepositoryError(f"instance {inst.instance_id!r}: package {hist.package!r} has no fetched "
                              "release to stand in for the base commit")
    patched = _patched_sources(inst)
    sources = [p for p, _ in patched]
    tried: list[str] = []
    holding: list[tuple[Snapshot, Any]] = []
    for rel in cands:
        assert rel.commit
        base = sibling(rel.commit)
        missing = [p for p in sources if not base.exists(p)]
        if missing:
            tried.append(f"{rel.version}: no {missing[0]}")
            continue
        holding.append((base, rel))
        got: dict[str, ParsedSource] = {}
        try:
            blocks = parse(base, got)
        except DataError as exc:
            tried.append(f"{rel.version}: {str(exc).partition(': ')[2] or exc}")
            continue
        posts.update(got)
        shift = max((abs(b.offset) for b in blocks), default=0)
        return base, blocks, {**rel.to_evidence(hist.package), "how": "applies-at-offset" if shift else "applies",
                              "max_offset": shift, "tried": tried}
    if not holding:
        raise DataError(f"instance {inst.instance_id!r}: no fetched release of {hist.package!r} holds "
                        f"the patched file(s) ({'; '.join(tried)})")
    undone = _unapplied(inst, patched, holding, preprocess, posts, tried)
    if undone is not None:
        base, blocks, rel = undone
        return base, blocks, {**rel.to_evidence(hist.package), "how": "un-applied", "tried": tried}
    best: tuple[Snapshot, Any, dict[str, str], int, list[str]] | None = None
    for base, rel in holding:  # hunks placed where they fit best, the release's rows between kept
        synth: dict[str, str] = {}
        changed = 0
        unfit: list[str] = []
        for path, pfile in patched:
            fz = _fuzzed(base.read_if_exists(path) or "", pfile)
            if fz is None:
                unfit.append(path)
                tried.append(f"{rel.version} with fuzz: {path} fits nowhere")
                continue
            synth[path], n = fz
            changed += n
        if synth and (best is None or len(synth) > len(best[2])):
            best = (base, rel, synth, changed, unfit)
        if synth and not unfit:
            break
    if best is not None:  # a file that fits nowhere is read from its own pre-image
        base, rel, synth, changed, unfit = best
        fuzzed_posts: dict[str, ParsedSource] = {}
        try:
            blocks = parse_patch(inst.patch, instance_id=inst.instance_id,
                                 read_pre=_overlay(synth, base, unfit), posts=fuzzed_posts, preprocess=preprocess)
        except DataError as exc:
            tried.append(f"{rel.version} with fuzz: {str(exc).partition(': ')[2] or exc}")
        else:
            posts.update(fuzzed_posts)
            return base, blocks, {**rel.to_evidence(hist.package), "how": "applies-with-fuzz",
                                  "fuzz_rows": changed, "pre_image_files": unfit, "tried": tried}
    base, rel = holding[0]
    return base, parse(None, None), {**rel.to_evidence(hist.package), "how": "pre-image", "tried": tried}


# ------------------------------------------------------------------------------------- dates
def adjust_for_dates(inst: BugInstance, category: Category, score: float, evidence: dict[str, Any],
                     snapshot: Snapshot, when: datetime, *, lag_margin_days: float | None,
                     merge_dates: bool, category_at: Callable[[Snapshot], tuple[Category, float]]
                     ) -> tuple[Category, float, dict[str, Any]]:
    """The verdict of ``inst`` at the cutoff ``when`` with the date rules applied (module doc);
    ``evidence`` is changed in place. ``category_at`` decides the instance on another snapshot
    of the same repository (the release after the cutoff)."""
    evidence["snapshot_source"] = describe(snapshot)
    if is_release_repo(snapshot.repo):
        if lag_margin_days is not None and category.contaminated is False:
            category, score = _lag(inst, category, score, evidence, snapshot, when, lag_margin_days, category_at)
        return category, score, evidence
    if not merge_dates:
        return category, score, evidence
    fix = fix_landed(snapshot.repo, inst.instance_id, inst.base_commit, inst.patch)
    if fix is None:
        return category, score, evidence
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
    return category, score, evidence


def _lag(inst: BugInstance, category: Category, score: float, evidence: dict[str, Any], snapshot: Snapshot,
         when: datetime, margin: float, category_at: Callable[[Snapshot], tuple[Category, float]]
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
        later, later_score = category_at(hist.snapshot(nxt, when))
        if later.contaminated is True:
            info.update(applied=True, was=category.value,
                        why=f"fix present in {nxt.version}, the first release after the cutoff")
            evidence["category"] = Category.PRESENT.value
            return Category.PRESENT, later_score
        info["why"] = f"fix not present in {nxt.version} either ({later.value})"
    return category, score
