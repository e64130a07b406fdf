"""When an instance's fix reached the default branch: its first-parent commit there.

>>> fix = fix_landed("repos/psf__requests", "psf__requests-2317", base_commit, gold_patch)  # doctest: +SKIP
>>> fix.commit, fix.landed_at                                                                 # doctest: +SKIP

A SWE-bench id ``owner__name-N`` names pull request ``N``. A commit whose message names the PR
(``Merge pull request #N``, a squash ``… (#N)``), on any branch, is followed to the first commit
of the default branch's first-parent history that contains it (a fix merged into a stable branch
lands on the default branch with that branch's next merge). It counts only when that commit is
dated after the base commit and the gold patch un-applies there (``git apply -R --check``: the
fixed lines are in its tree), so a commit that merely mentions the number is not taken for the
fix. ``None`` when no commit qualifies (django merges without naming PRs, say).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..errors import RepositoryError
from ._git import git, resolve_commit
from ._snapshot import default_ref

_lock = threading.Lock()
_chains: dict[tuple[Path, str], list[str]] = {}
_found: dict[tuple[Path, str], FixCommit | None] = {}


@dataclass(frozen=True)
class FixCommit:
    """The first-parent commit of the default branch where the fix landed, and its date."""

    commit: str
    landed_at: datetime
    named_in: str  # the commit whose message names the PR

    def to_evidence(self) -> dict[str, str]:
        return {"commit": self.commit, "merged_at": self.landed_at.isoformat(), "named_in": self.named_in}


def _date(repo: Path, rev: str) -> datetime:
    return datetime.fromisoformat(git(repo, ["show", "-s", "--format=%cI", rev]).decode().strip()).astimezone(UTC)


def _landed(repo: Path, ref: str, commit: str) -> str | None:
    key = (repo, ref)
    with _lock:
        if key not in _chains:
            _chains[key] = git(repo, ["rev-list", "--first-parent", "--reverse", ref]).decode().split()
        chain = _chains[key]
    lo, hi = 0, len(chain)
    while lo < hi:  # once a first-parent commit contains it, every later one does
        mid = (lo + hi) // 2
        if is_ancestor(repo, commit, chain[mid]):
            hi = mid
        else:
            lo = mid + 1
    return chain[lo] if lo < len(chain) else None


def is_ancestor(repo: str | os.PathLike[str], a: str, b: str) -> bool:
    """Whether commit ``a`` is an ancestor of (or is) commit ``b`` in ``repo``."""
    proc = subprocess.run(["git", "-C", str(repo), "merge-base", "--is-ancestor", a, b],
                          capture_output=True, check=False, env={**os.environ, "LC_ALL": "C"})
    return proc.returncode == 0


def _unapplies(repo: Path, commit: str, patch: str) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(repo, ["read-tree", commit], env=env)
        try:
            git(repo, ["apply", "--cached", "--check", "-R", "-"], input_bytes=patch.encode(), env=env)
        except RepositoryError:  # it does not un-apply here
            return False
        return True


def unapplies(repo: str | os.PathLike[str], commit: str, patch: str) -> bool:
    """Whether ``patch`` un-applies at ``commit`` (``git apply -R --check``: its fixed lines are
    in that tree, verbatim)."""
    return _unapplies(Path(repo), commit, patch)


def first_landing(repo: str | os.PathLike[str], instance_id: str, base_commit: str) -> FixCommit | None:
    """The first first-parent commit of the default branch holding a commit that names the
    instance's pull request, dated after the base commit, *without* the un-apply check of
    :func:`fix_landed` (for a fix whose merged form differs from the gold patch); ``None`` when
    no commit names it."""
    root = Path(repo)
    m = re.search(r"-(\d+)$", instance_id)
    if not m:
        return None
    number = m.group(1)
    ref = default_ref(root)
    base_date = _date(root, resolve_commit(root, base_commit))
    out = git(root, ["log", "--all", "-E", f"--grep=(pull request #{number}\\b|\\(#{number}\\))",
                     "--format=%H"]).decode().split()
    for sha in reversed(out):  # oldest first
        landed = _landed(root, ref, sha)
        if landed is not None and (when := _date(root, landed)) >= base_date:
            return FixCommit(landed, when, sha)
    return None


def first_unapplying(repo: str | os.PathLike[str], base_commit: str, patch: str, *,
                     max_doublings: int = 17) -> FixCommit | None:
    """The first first-parent commit of the default branch after the base commit where ``patch``
    un-applies, found by its content alone (for a fix whose pull request no commit names: a
    squash without the number, a maintainer's own commit). Galloping search -- the commits 1, 2,
    4, ... after the base's landing, then bisection between the last miss and the first hit --
    so about ``2 log2(distance)`` checks; it assumes the fixed lines stay once they land inside
    that window (a fix rewritten before the next probe is missed). ``None`` when it un-applies at
    none of the probed commits (up to ``2**max_doublings`` commits on). ``named_in`` is empty."""
    root = Path(repo)
    ref = default_ref(root)
    start = _landed(root, ref, resolve_commit(root, base_commit))
    if start is None:
        return None
    with _lock:
        chain = _chains[(root, ref)]
    i0 = chain.index(start)
    miss, hit, step = i0, None, 1
    for _ in range(max_doublings + 1):
        at = min(i0 + step, len(chain) - 1)
        if at <= miss:
            break
        if _unapplies(root, chain[at], patch):
            hit = at
            break
        miss, step = at, step * 2
    if hit is None:
        return None
    while hit - miss > 1:  # the first hit after the last miss
        mid = (miss + hit) // 2
        if _unapplies(root, chain[mid], patch):
            hit = mid
        else:
            miss = mid
    return FixCommit(chain[hit], _date(root, chain[hit]), "")


def added_lines(patch: str, *, min_chars: int = 12, most: int = 3) -> list[tuple[str, str]]:
    """The ``most`` longest added lines of ``patch`` (stripped, at least ``min_chars`` long) with
    their file, longest first: the fix's most distinctive text."""
    out: list[tuple[str, str]] = []
    path = ""
    for row in patch.splitlines():
        if row.startswith("+++ "):
            path = row[4:].strip()
            path = path[2:] if path.startswith("b/") else path
        elif row.startswith("+") and path and path != "/dev/null":
            text = row[1:].strip()
            if len(text) >= min_chars:
                out.append((path, text))
    unique = list(dict.fromkeys(out))
    return sorted(unique, key=lambda pt: -len(pt[1]))[:most]


def first_holding(repo: str | os.PathLike[str], base_commit: str, patch: str) -> tuple[FixCommit, str] | None:
    """The first first-parent commit of the default branch after the base commit whose tree holds
    one of the fix's most distinctive added lines (:func:`added_lines`) verbatim in its file
    (``git log --first-parent -S``), and that line: for a fix the gold patch no longer un-applies
    to anywhere (its context changed, or the fix reached the default branch by another pull
    request, as sympy's #20591 carried #20590). ``None`` when no such line ever appears."""
    root = Path(repo)
    ref = default_ref(root)
    base = resolve_commit(root, base_commit)
    for path, text in added_lines(patch):
        out = git(root, ["log", "--first-parent", "--reverse", "--format=%H", f"-S{text}",
                         f"{base}..{ref}", "--", path]).decode().split()
        for sha in out:   # -S lists additions and removals: the first commit holding it
            if holds_line(root, sha, path, text):
                return FixCommit(sha, _date(root, sha), ""), text
    return None


def holds_line(repo: str | os.PathLike[str], commit: str, path: str, text: str) -> bool:
    """Whether ``path`` at ``commit`` holds ``text`` verbatim (``False`` where the file is not
    there)."""
    try:
        return text.encode() in git(Path(repo), ["show", f"{commit}:{path}"])
    except RepositoryError:   # the file is not in that tree
        return False


def fix_landed(repo: str | os.PathLike[str], instance_id: str, base_commit: str, patch: str) -> FixCommit | None:
    """Where the fix of ``instance_id`` landed on the default branch (module doc), or ``None``."""
    root = Path(repo)
    key = (root, instance_id)
    with _lock:
        if key in _found:
            return _found[key]
    m = re.search(r"-(\d+)$", instance_id)
    got: FixCommit | None = None
    if m:
        number = m.group(1)
        ref = default_ref(root)
        base_date = _date(root, resolve_commit(root, base_commit))
        out = git(root, ["log", "--all", "-E", f"--grep=(pull request #{number}\\b|\\(#{number}\\))",
                         "--format=%H"]).decode().split()
        for sha in reversed(out):  # oldest first
            landed = _landed(root, ref, sha)
            if landed is None:
                continue
            when = _date(root, landed)
            if when >= base_date and _unapplies(root, landed, patch):
                got = FixCommit(landed, when, sha)
                break
    with _lock:
        _found[key] = got
    return got
