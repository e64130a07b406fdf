"""The one place that runs ``git``: plumbing calls with errors turned into :class:`RepositoryError`.

Every call is read-only (``rev-list``, ``ls-tree``, ``cat-file``, ``diff``, ``grep``, ``worktree``
is used only by the local test runner of stage II on a temporary path). Files are read at a commit
without checking anything out, through one long-lived ``git cat-file --batch`` process per
repository (:class:`BlobReader`), which is what makes reading thousands of files cheap.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from ..errors import RepositoryError
from ._archive import extract_tar

_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}


def git(repo: str | os.PathLike[str], args: Sequence[str], *, check: bool = True,
        input_bytes: bytes | None = None, env: dict[str, str] | None = None,
        allow: Sequence[int] = ()) -> bytes:
    """Run ``git -C repo args...`` and return stdout; a failure raises :class:`RepositoryError`.

    ``env`` adds variables (commit dates, say) to the environment of that one call. ``allow``
    lists exit codes that are an answer, not a failure (``git grep``'s 1: no match), as long as
    git reported no ``error:``/``fatal:`` line (``git grep`` exits 1 on an unreadable object too).
    """
    env = {**os.environ, **_ENV, **(env or {})}
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], input=input_bytes,
                              capture_output=True, env=env, check=False)
    except FileNotFoundError as exc:  # no git binary
        raise RepositoryError("the 'git' executable was not found on PATH") from exc
    failed = proc.returncode != 0
    if allow:
        failed = (failed and proc.returncode not in allow) or any(
            ln.startswith((b"error:", b"fatal:")) for ln in proc.stderr.splitlines())
    if check and failed:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        why = err[-1] if err else f"exit code {proc.returncode}"
        raise RepositoryError(f"{repo}: git {' '.join(args[:3])} failed: {why}")
    return proc.stdout


def toplevel(repo: str | os.PathLike[str]) -> Path:
    """The root of the git repository at ``repo``; a clear error when it is not one."""
    path = Path(repo)
    if not path.is_dir():
        raise RepositoryError(f"{path}: repository folder does not exist")
    out = git(path, ["rev-parse", "--show-toplevel"], check=False)
    if not out.strip():
        bare = git(path, ["rev-parse", "--is-bare-repository"], check=False).strip()
        if bare == b"true":
            return path.resolve()
        raise RepositoryError(f"{path}: not a git repository")
    return Path(out.decode().strip())


def is_shallow(repo: str | os.PathLike[str]) -> bool:
    """Whether ``repo`` is a shallow clone (its history before the graft is missing)."""
    return git(repo, ["rev-parse", "--is-shallow-repository"]).strip() == b"true"


def refs_state(repo: str | os.PathLike[str]) -> str | None:
    """A digest of where the refs of the clone at ``repo`` point (``HEAD``, ``packed-refs`` and every
    loose ref), read from its files without running git: a fetch that moves a ref changes it.
    ``None`` for a folder without a ``.git`` folder (a linked worktree, a bare or absent
    repository), one whose ``HEAD`` is missing, or a ref that is not a regular file (never opened:
    a FIFO would block)."""
    gitdir = Path(repo) / ".git"
    if not gitdir.is_dir():
        return None
    h = hashlib.sha256()
    try:
        refs = sorted(p for p in (gitdir / "refs").rglob("*") if not p.is_dir())
        for path in [gitdir / "HEAD", gitdir / "packed-refs", *refs]:
            try:
                st = os.stat(path)
            except FileNotFoundError:
                if path.name == "HEAD":
                    return None
                continue
            if not stat.S_ISREG(st.st_mode):
                return None
            h.update(path.relative_to(gitdir).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    except OSError:
        return None
    return h.hexdigest()


def resolve_commit(repo: str | os.PathLike[str], rev: str) -> str:
    """The full sha of ``rev``; :class:`RepositoryError` naming ``rev`` when it is not in the repo."""
    out = git(repo, ["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], check=False).strip()
    if not out:
        raise RepositoryError(f"{repo}: commit {rev!r} not found (fetch the full history?)")
    return out.decode()


class BlobReader:
    """Reads objects through one ``git cat-file --batch`` process (thread-safe, closed on ``close``)."""

    def __init__(self, repo: str | os.PathLike[str]) -> None:
        self.repo = Path(repo)
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None  # a file, not a pipe nobody reads (no deadlock)

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            if self._stderr is None:
                self._stderr = tempfile.TemporaryFile()
            self._stderr.seek(0)
            self._stderr.truncate()
            self._proc = subprocess.Popen(
                ["git", "-C", str(self.repo), "cat-file", "--batch"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self._stderr, env={**os.environ, **_ENV})
        return self._proc

    def _died(self, spec: str) -> RepositoryError:
        """The error for a ``cat-file`` that stopped (a blob-less clone that could not fetch, say)."""
        assert self._stderr is not None
        self._stderr.seek(0)
        lines = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        return RepositoryError(f"{self.repo}: git cat-file stopped while reading {spec!r}: "
                               f"{lines[-1] if lines else 'no message'}")

    def read(self, spec: str) -> bytes | None:
        """The content of object ``spec`` (``<commit>:<path>`` or a sha); ``None`` when the path is
        not in the commit's tree, :class:`RepositoryError` naming the object when the object itself
        is missing (an incomplete clone or mirror, or a blob-less clone that cannot fetch it)."""
        if "\n" in spec:
            raise RepositoryError(f"{self.repo}: object name with a newline: {spec!r}")
        with self._lock:
            proc = self._start()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(spec.encode("utf-8", "surrogateescape") + b"\n")
                proc.stdin.flush()
            except BrokenPipeError:
                proc.wait()
                raise self._died(spec) from None
            header = proc.stdout.readline()
            if not header:
                proc.wait()
                raise self._died(spec)
            if header.endswith(b" missing\n"):
                self._missing(spec)  # raises unless the path is simply not in the tree
                return None
            if header.endswith(b" ambiguous\n"):
                return None
            size = int(header.split()[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # the trailing newline
            return data

    def _missing(self, spec: str) -> None:
        """``git cat-file`` says "missing" both for a path not in the tree and for an object absent
        from the object store; the tree listing tells them apart (only on this rare path)."""
        rev, sep, path = spec.partition(":")
        if not sep or not path:
            raise RepositoryError(f"{self.repo}: object {spec} is missing from the repository "
                                  "(incomplete clone or mirror; fetch it again)")
        try:
            out = git(self.repo, ["ls-tree", "-z", rev, "--", path], env={"GIT_LITERAL_PATHSPECS": "1"})
        except RepositoryError as exc:  # a tree on the way is missing ("Could not read <sha>")
            why = str(exc).rpartition(" failed: ")[2]
            raise RepositoryError(f"{self.repo}: cannot read {spec!r}, an object is missing from the "
                                  f"repository ({why}; incomplete clone or mirror)") from exc
        for entry in out.split(b"\0"):
            meta, _, name = entry.partition(b"\t")
            if name.decode("utf-8", "surrogateescape") == path and meta.split()[1:2] != [b"commit"]:
                raise RepositoryError(f"{self.repo}: object {meta.split()[2].decode()} ({spec!r}) is "
                                      "missing from the repository (incomplete clone or mirror)")
        return None  # not in the tree (or a submodule entry: not a file of this repository)

    def close(self) -> None:
        with self._lock:
            if self._proc is not None:
                if self._proc.stdin:
                    self._proc.stdin.close()
                self._proc.wait(timeout=10)
                if self._proc.stdout:
                    self._proc.stdout.close()
                self._proc = None
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort at interpreter exit
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()


def export_tree(repo: str | os.PathLike[str], commit: str, dest: str | os.PathLike[str]) -> Path:
    """Write the files of ``commit`` into ``dest`` (``git archive | tar -x``); the repository
    itself is not touched (no worktree metadata, no index, no checkout)."""
    import io
    import tarfile

    data = git(repo, ["archive", "--format=tar", resolve_commit(repo, commit)])
    out = Path(dest)
    out.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        extract_tar(tar, out)  # refuses absolute paths, '..' and links out of dest
    return out


def apply_diff(tree: str | os.PathLike[str], diff: str) -> None:
    """Apply unified ``diff`` to the plain folder ``tree`` (``git apply``, no repository needed);
    :class:`RepositoryError` with git's message when it does not apply."""
    tree = Path(tree).resolve()
    env = {**os.environ, **_ENV, "GIT_CEILING_DIRECTORIES": str(tree.parent)}
    proc = subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], cwd=tree, env=env,
                          input=diff.encode("utf-8", "surrogateescape"), capture_output=True, check=False)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RepositoryError(f"{tree}: patch does not apply: {err[0] if err else proc.returncode}")
