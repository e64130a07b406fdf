"""A repository as it stood at a training cutoff: list and read files at one commit, no checkout.

>>> snap = Snapshot.at("repos/psf__requests", "2023-04-30")      # doctest: +SKIP
>>> snap.commit, snap.committed_at                                 # doctest: +SKIP
>>> [p for p in snap.files(language="python")][:3]                 # doctest: +SKIP
>>> snap.read("requests/models.py")                                # doctest: +SKIP

The commit is the last one of ``ref``'s *first-parent* history (default: the remote's default branch
when the clone has one, else ``HEAD``) whose committer date is at or before the cutoff
(``git rev-list -1 --first-parent --before``): the branch as it stood then. Without
``--first-parent`` a commit of a pull request's branch, dated before the cutoff but merged after
it, would be taken for the branch's state and its fix for "present". A date without a time means
the end of that day, UTC.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from ..cutoff import parse_cutoff
from ..errors import DataError, RepositoryError
from ._git import BlobReader, git, is_shallow, resolve_commit, toplevel
from ._language import detect_language


def default_ref(repo: Path) -> str:
    """The remote's default branch (``refs/remotes/origin/HEAD``) when the clone has one, else ``HEAD``."""
    head = git(repo, ["symbolic-ref", "-q", "refs/remotes/origin/HEAD"], check=False).strip()
    return head.decode() if head else "HEAD"


@dataclass(frozen=True)
class Snapshot:
    """The tree of ``commit`` in ``repo``, the last commit at or before ``cutoff``."""

    repo: Path
    commit: str
    cutoff: datetime
    committed_at: datetime
    _reader: BlobReader = field(repr=False, compare=False)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def at(cls, repo: str | os.PathLike[str], cutoff: str | date | datetime,
           ref: str | None = None) -> Snapshot:
        """The snapshot of ``repo`` at ``cutoff``.

        Raises :class:`RepositoryError` when ``repo`` is not a git repository, is a shallow clone
        (its history before the cutoff may be missing), or has no commit at or before the cutoff.
        """
        root = toplevel(repo)
        when = parse_cutoff(cutoff)
        if is_shallow(root):
            raise RepositoryError(f"{root}: shallow clone; the history before the cutoff is missing "
                                  "(run 'git fetch --unshallow' or clone with --filter=blob:none)")
        ref = ref or default_ref(root)
        resolve_commit(root, ref)
        out = git(root, ["rev-list", "-1", "--first-parent", f"--before={when.isoformat()}", ref]).strip().decode()
        if not out:
            raise RepositoryError(f"{root}: no commit on {ref} at or before the cutoff {when.isoformat()}")
        snap = cls.of_commit(root, out, cutoff=when)
        if snap.committed_at > when:   # never trust git's date parsing blindly
            raise RepositoryError(f"{root}: git returned commit {snap.commit[:12]} of "
                                  f"{snap.committed_at.isoformat()} for the cutoff "
                                  f"{when.isoformat()}, which is after it")
        return snap

    @classmethod
    def of_commit(cls, repo: str | os.PathLike[str], rev: str,
                  cutoff: str | date | datetime | None = None) -> Snapshot:
        """The tree of an explicit commit (a base commit, say); ``cutoff`` defaults to its date."""
        root = toplevel(repo)
        sha = resolve_commit(root, rev)
        stamp = git(root, ["show", "-s", "--format=%cI", sha]).strip().decode()
        committed = datetime.fromisoformat(stamp).astimezone(UTC)
        return cls(root, sha, parse_cutoff(cutoff) if cutoff is not None else committed, committed,
                   BlobReader(root))

    def sibling(self, rev: str) -> Snapshot:
        """The tree of another commit of the same repository (a base commit, say), sharing this
        snapshot's reader process; closing this snapshot closes both."""
        root = self.repo
        sha = resolve_commit(root, rev)
        stamp = git(root, ["show", "-s", "--format=%cI", sha]).strip().decode()
        committed = datetime.fromisoformat(stamp).astimezone(UTC)
        return Snapshot(root, sha, committed, committed, self._reader)

    # ------------------------------------------------------------------ listing and reading
    def files(self, language: str | None = None) -> tuple[str, ...]:
        """Paths of the regular files at this commit (sorted), optionally only one language."""
        all_files = self._cache.get("files")
        if all_files is None:
            out = git(self.repo, ["ls-tree", "-r", "-z", "--full-tree", self.commit])
            blobs = {}
            for entry in out.split(b"\0"):
                if not entry:
                    continue
                meta, _, path = entry.partition(b"\t")
                mode, kind, sha = meta.split()[:3]
                if kind == b"blob" and mode in (b"100644", b"100755"):
                    blobs[path.decode("utf-8", "surrogateescape")] = sha.decode()
            self._cache["blobs"] = blobs
            all_files = self._cache["files"] = tuple(sorted(blobs))
        if language is None:
            return all_files
        return tuple(p for p in all_files if detect_language(p) == language)

    def blob(self, path: str) -> str | None:
        """The blob id of ``path`` at this commit (from the cached listing), ``None`` when it is
        not a regular file there: two commits with the same blob id hold the same bytes."""
        if "blobs" not in self._cache:
            self.files()
        return self._cache["blobs"].get(path)

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a regular file at this commit."""
        if "fileset" not in self._cache:
            self._cache["fileset"] = frozenset(self.files())
        return path in self._cache["fileset"]

    def read_bytes(self, path: str) -> bytes:
        """The bytes of ``path`` at this commit; :class:`DataError` naming the path when absent."""
        data = self._reader.read(f"{self.commit}:{path}")
        if data is None:
            raise DataError(f"{self.repo}@{self.commit[:12]}: no file {path!r}")
        return data

    def read(self, path: str) -> str:
        """The text of ``path`` (UTF-8); :class:`DataError` naming the path when not UTF-8 or absent."""
        return self._decode(path, self.read_bytes(path))

    def read_if_exists(self, path: str) -> str | None:
        """Like :meth:`read`, but ``None`` for a path that is not in the tree (no listing needed)."""
        data = self._reader.read(f"{self.commit}:{path}")
        return None if data is None else self._decode(path, data)

    def _decode(self, path: str, data: bytes) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(f"{self.repo}@{self.commit[:12]}: {path!r} is not UTF-8 text "
                            f"(byte {exc.start})") from exc

    def grep(self, word: str, language: str | None = None) -> tuple[str, ...]:
        """Paths whose text at this commit contains ``word`` as a whole word (``git grep -w -F``)."""
        out = git(self.repo, ["grep", "-l", "-z", "-w", "-F", "-I", "-e", word, self.commit], allow=(1,))
        prefix = f"{self.commit}:"
        paths = [p.decode("utf-8", "surrogateescape").removeprefix(prefix) for p in out.split(b"\0") if p]
        if language is not None:
            paths = [p for p in paths if detect_language(p) == language]
        return tuple(sorted(paths))

    def path_since(self, base_commit: str, path: str) -> str | None:
        """Where ``path`` of ``base_commit`` lives in this snapshot: itself, its new name after a
        rename (git's rename detection), or ``None`` when it was deleted.

        A path that is a file of this snapshot is itself, without running the diff: with no break
        detection (``-B``) git pairs renames only from deleted to added paths, so a path in both
        trees is never renamed."""
        if self.exists(path):
            return path
        key = f"renames:{base_commit}"
        table = self._cache.get(key)
        if table is None:
            base = resolve_commit(self.repo, base_commit)
            out = git(self.repo, ["diff", "--find-renames", "--name-status", "-z", "--no-color",
                                  base, self.commit])
            parts = [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0")]
            table = {}
            i = 0
            while i < len(parts) and parts[i]:
                status = parts[i]
                if status[0] in "RC":
                    if status[0] == "R":
                        table[parts[i + 1]] = parts[i + 2]
                    i += 3
                else:
                    if status[0] == "D":
                        table[parts[i + 1]] = None
                    i += 2
            self._cache[key] = table
        return table.get(path, path)

    def close(self) -> None:
        """Stop the background ``git cat-file`` process (also done at garbage collection)."""
        self._reader.close()

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
