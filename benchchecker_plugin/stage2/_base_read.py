"""The base files of a Stage II instance: the base snapshot, the gold patch's blocks read
against it, and where they came from (``evidence.base_source``).

A git clone: the base commit itself (``{"kind": "git", "commit": …}``). Release snapshots, which
lack the base commit: the gold patch is read against the releases of
:func:`~benchchecker_plugin.repos._releases.base_candidates` by a chain of strategies, each tried
in order until one gives a base:

1. ``applies``: the first candidate that holds every file the patch changes and to which every
   hunk applies the way ``git apply`` would (``applies-at-offset`` when lines moved);
2. ``un-applied``: a candidate that already holds the fix (a release of the line the fix was made
   in), the patch undone there as ``git apply -R`` would, which gives its exact pre-image in that
   release's code;
3. ``applies-with-fuzz``: each hunk's pre-image written into a candidate's file where it fits best
   (every removed row and half of its rows found, whitespace aside), with the rows that changed; a
   file none of whose places fits is read from its own pre-image (``pre_image_files``), so its
   scope comes from the release's code;
4. ``pre-image``: the patch's own pre-image (each hunk parsed on its own, its scope from the
   hunk's function context) against the first candidate holding the files.

Each strategy is a function of the instance and the candidates holding its files that returns
what it found and why each candidate failed (``tried``, in order); none changes its arguments.
An instance whose files no fetched release holds is an error naming the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from ..errors import DataError, RepositoryError
from ..instances import BugInstance
from ..repos import Snapshot, base_candidates, is_release_repo
from ._normalize import ParsedSource
from ._patch import PatchBlock, apply_patch_to_text, parse_patch
from ._sources import history


@dataclass(frozen=True)
class BaseRead:
    """What :func:`read_base` found: the ``base`` snapshot, the gold patch's ``blocks``, its
    ``evidence`` (``evidence.base_source``) and the post-patch files (``posts``)."""

    base: Snapshot
    blocks: tuple[PatchBlock, ...]
    evidence: dict[str, Any]
    posts: Mapping[str, ParsedSource] = field(default_factory=dict)


def read_base(inst: BugInstance, anchor: Snapshot, *, preprocess: bool,
              sibling: Callable[[str], Snapshot] | None = None) -> BaseRead:
    """The base snapshot, the gold patch's blocks and ``evidence.base_source`` of ``inst``
    (module docstring); ``sibling`` opens another commit of ``anchor``'s repository (default
    ``anchor.sibling``; the engine passes one that opens each commit once)."""
    open_ = sibling if sibling is not None else anchor.sibling
    if not is_release_repo(anchor.repo):
        return _git_base(inst, open_, preprocess)
    hist = history(anchor.repo)
    cands = base_candidates(hist.fetched, version=inst.extra.get("version"), created_at=inst.created)
    if not cands:
        raise RepositoryError(f"instance {inst.instance_id!r}: package {hist.package!r} has no fetched "
                              "release to stand in for the base commit")
    job = _Job(inst, preprocess, tuple(_patched_sources(inst)))
    found, holding, tried = _applies(job, open_, cands)
    if found is None and not holding:
        raise DataError(f"instance {inst.instance_id!r}: no fetched release of {hist.package!r} holds "
                        f"the patched file(s) ({'; '.join(tried)})")
    for strategy in _FALLBACKS:
        if found is not None:
            break
        found, more = strategy(job, holding)
        tried = tried + more
    assert found is not None   # the last fallback always finds
    evidence = {**found.release.to_evidence(hist.package), **found.details, "tried": tried}
    return BaseRead(found.base, found.blocks, evidence, found.posts)


def _git_base(inst: BugInstance, sibling: Callable[[str], Snapshot], preprocess: bool) -> BaseRead:
    try:
        base = sibling(inst.base_commit)
    except RepositoryError as exc:
        raise RepositoryError(f"instance {inst.instance_id!r}: {exc}") from exc
    posts: dict[str, ParsedSource] = {}
    blocks = parse_patch(inst.patch, instance_id=inst.instance_id, read_pre=base.read_if_exists,
                         posts=posts, preprocess=preprocess)
    return BaseRead(base, blocks, {"kind": "git", "commit": base.commit}, posts)


@dataclass(frozen=True)
class _Job:
    inst: BugInstance
    preprocess: bool
    patched: tuple[tuple[str, Any], ...]   # (path, unidiff PatchedFile) of every changed file

    def parse(self, read_pre: Callable[[str], str | None] | None
              ) -> tuple[tuple[PatchBlock, ...], dict[str, ParsedSource]]:
        """The gold patch's blocks read with ``read_pre``, and the post-patch files."""
        posts: dict[str, ParsedSource] = {}
        blocks = parse_patch(self.inst.patch, instance_id=self.inst.instance_id, read_pre=read_pre,
                             posts=posts, preprocess=self.preprocess)
        return blocks, posts


@dataclass(frozen=True)
class _Found:
    base: Snapshot
    release: Any
    blocks: tuple[PatchBlock, ...]
    posts: Mapping[str, ParsedSource]
    details: dict[str, Any]   # ``how`` and what it adds, before ``tried``


Holding = Sequence[tuple[Snapshot, Any]]


def _why(exc: DataError) -> str:
    return str(exc).partition(": ")[2] or str(exc)


def _applies(job: _Job, sibling: Callable[[str], Snapshot], cands: Sequence[Any]
             ) -> tuple[_Found | None, list[tuple[Snapshot, Any]], list[str]]:
    """Strategy 1, over the candidates in order (each opened only when reached): the first
    holding every changed file to which the patch applies; also the candidates holding the files
    (those tried before it), and ``tried``."""
    holding: list[tuple[Snapshot, Any]] = []
    tried: list[str] = []
    for rel in cands:
        assert rel.commit
        base = sibling(rel.commit)
        missing = [p for p, _ in job.patched if not base.exists(p)]
        if missing:
            tried.append(f"{rel.version}: no {missing[0]}")
            continue
        holding.append((base, rel))
        try:
            blocks, posts = job.parse(base.read_if_exists)
        except DataError as exc:
            tried.append(f"{rel.version}: {_why(exc)}")
            continue
        shift = max((abs(b.offset) for b in blocks), default=0)
        how = "applies-at-offset" if shift else "applies"
        return _Found(base, rel, blocks, posts, {"how": how, "max_offset": shift}), holding, tried
    return None, holding, tried


def _unapplied(job: _Job, holding: Holding) -> tuple[_Found | None, list[str]]:
    """Strategy 2: the first release that already holds the fix, with the gold patch's
    pre-image made by undoing the patch there (as ``git apply -R`` would)."""
    inst = job.inst
    try:
        back = {(f.target_file[2:] if f.target_file.startswith(("a/", "b/")) else f.target_file): f
                for f in PatchSet(_reversed(inst.patch)) if f.target_file != "/dev/null"}
    except UnidiffParseError:
        return None, []
    tried: list[str] = []
    for base, rel in holding:
        texts: dict[str, str] = {}
        try:
            for path, _ in job.patched:
                post = base.read_if_exists(path)
                if post is None or path not in back:
                    raise DataError(f"instance {inst.instance_id!r}: {path} cannot be undone")
                texts[path] = apply_patch_to_text(post, back[path], inst.instance_id)
            blocks, posts = job.parse(_overlay(texts, base, []))
        except DataError as exc:
            tried.append(f"{rel.version} undone: {_why(exc)}")
            continue
        return _Found(base, rel, blocks, posts, {"how": "un-applied"}), tried
    return None, tried


def _with_fuzz(job: _Job, holding: Holding) -> tuple[_Found | None, list[str]]:
    """Strategy 3: hunks placed where they fit best in the candidate where most files fit (the
    first where all do), the release's rows between kept; a file that fits nowhere is read
    from its own pre-image."""
    tried: list[str] = []
    best: tuple[Snapshot, Any, dict[str, str], int, list[str]] | None = None
    for base, rel in holding:
        synth: dict[str, str] = {}
        changed = 0
        unfit: list[str] = []
        for path, pfile in job.patched:
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
    if best is None:
        return None, tried
    base, rel, synth, changed, unfit = best
    try:
        blocks, posts = job.parse(_overlay(synth, base, unfit))
    except DataError as exc:
        return None, tried + [f"{rel.version} with fuzz: {_why(exc)}"]
    return _Found(base, rel, blocks, posts, {"how": "applies-with-fuzz", "fuzz_rows": changed,
                                             "pre_image_files": unfit}), tried


def _pre_image(job: _Job, holding: Holding) -> tuple[_Found | None, list[str]]:
    """Strategy 4 (always finds): the patch's own pre-image, against the first candidate
    holding the files; no post-patch files are read."""
    base, rel = holding[0]
    blocks, _ = job.parse(None)
    return _Found(base, rel, blocks, {}, {"how": "pre-image"}), []


#: the strategies after :func:`_applies`, in the order they are tried
_FALLBACKS: tuple[Callable[[_Job, Holding], tuple[_Found | None, list[str]]], ...] = (
    _unapplied, _with_fuzz, _pre_image)


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
