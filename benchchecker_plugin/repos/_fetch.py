"""Full clones of the repositories that benchmark instances name, as ``DIR/owner__name``.

>>> results = fetch_repos(["psf/requests", "pallets/flask"], "repos/", jobs=2)   # doctest: +SKIP
>>> [(r.repo, r.status.value, r.detail) for r in results]                         # doctest: +SKIP

``DIR/owner__name`` is where ``patch-presence --repos-dir DIR`` looks. Each clone has the whole
history (``git clone --no-checkout``: every branch and tag, no working files; never shallow).

Never used half-written: git clones into ``DIR/.owner__name.partial-<random>``; that folder gets
its final name only once git succeeded and the clone passed a check (not shallow, ``HEAD`` is a
commit), with the marker ``.git/benchchecker-fetch.json`` written just before. A run that is
killed leaves only a ``.partial-`` folder, which the next run removes before cloning again. An
existing ``DIR/owner__name`` is

* ours (has the marker) and valid: skipped; ``update=True`` fetches new commits, re-reads the
  remote's default branch (``refs/remotes/origin/HEAD``, what :meth:`Snapshot.at` follows) and
  moves the local default branch to it;
* not ours (no marker) but a valid full clone: kept and used as is (``update=True`` fetches into it);
* a git repository whose ``origin`` is the source but that misses history (shallow, or neither
  ``HEAD`` nor ``origin``'s default branch a commit): fetched into;
* anything else (not a git repository, another remote, blob-less, ours for another repository):
  a failure naming it, the folder left as it is.

It is never deleted nor moved aside: the user may have worked in it (a clone with an orphan
branch and a notes file was once deleted and cloned again).

Why not a blob-less clone (``--filter=blob:none``), checked on flask: Stage II works on one only
while the remote answers. ``rev-list``/``ls-tree`` need no blob, but ``git cat-file --batch``
fetches each missing blob with one request (Stage II's identifier index reads every file of a
language: the 75 Python files of one flask snapshot took 71 fetches, 4 s from a local
``file://`` remote, one round trip each from GitHub, again for every new cutoff), and with the
remote unreachable ``cat-file``, ``grep`` and ``diff --find-renames`` fail ("could not fetch
<sha> from promisor remote"). So clones are full; ``--no-checkout`` saves the disk instead.

One ``DIR/.benchchecker-fetch.lock`` (``flock``) keeps two runs from working in the same folder.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..errors import BenchcheckerError, InputError, RepositoryError
from ..progress import progress

DEFAULT_SOURCE = "https://github.com/{owner}/{name}.git"
MARKER = "benchchecker-fetch.json"  # in the clone's .git folder
_PART = re.compile(r"[A-Za-z0-9._-]+")
_LOCK = ".benchchecker-fetch.lock"


class FetchStatus(enum.Enum):
    """What :func:`fetch_repos` did (or, with ``dry_run``, would do) with one repository."""

    CLONED = "cloned"
    UPDATED = "updated"
    SKIPPED = "skipped"            # present and valid, nothing asked of it
    FAILED = "failed"              # bad name, or git failed: ``detail`` says why
    WOULD_CLONE = "would-clone"
    WOULD_UPDATE = "would-update"


@dataclass(frozen=True)
class FetchResult:
    """One repository: ``path`` is ``DIR/owner__name`` (``None`` for an invalid name); ``detail``
    is one line (why it failed, what was replaced or removed); ``missing_commits`` are requested
    commits (base commits, say) that the clone does not hold."""

    repo: str
    status: FetchStatus
    path: Path | None = None
    url: str | None = None
    detail: str = ""
    seconds: float = 0.0
    missing_commits: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        return self.status is FetchStatus.FAILED


def repo_dir_name(repo: str) -> str:
    """``owner__name`` for ``owner/name``; :class:`InputError` naming ``repo`` when it is not
    exactly two parts of letters, digits, ``.``, ``_`` and ``-`` (no ``..``, no other slash), or
    when its owner holds ``__`` or ends in ``_``: the folder name would be ambiguous (``a__x/b``
    and ``a/x__b`` shared one clone). Without them the first ``__`` splits the folder name back,
    so two repositories never share a folder (GitHub owners have no ``_`` at all)."""
    owner, _, name = repo.partition("/")
    if not all(_PART.fullmatch(p) and ".." not in p and p != "." for p in (owner, name)):
        raise InputError(f"invalid repository name {repo!r}: expected owner/name made of letters, "
                         "digits, '.', '_' and '-' (no '..', no other '/')")
    if "__" in owner or owner.endswith("_"):
        raise InputError(f"invalid repository name {repo!r}: an owner with '__' or ending in '_' "
                         "makes the clone folder owner__name ambiguous")
    return f"{owner}__{name}"


def source_url(template: str, repo: str) -> str:
    """``template`` with ``{owner}``, ``{name}``, ``{repo}`` (owner/name) and ``{dir}``
    (owner__name) filled in; :class:`InputError` naming the template when it does not fit."""
    dirname = repo_dir_name(repo)
    owner, _, name = repo.partition("/")
    try:
        url = template.format(owner=owner, name=name, repo=repo, dir=dirname)
    except (KeyError, IndexError, ValueError) as exc:
        raise InputError(f"source template {template!r}: use only the placeholders {{owner}}, "
                         f"{{name}}, {{repo}} and {{dir}} ({type(exc).__name__}: {exc})") from exc
    if url == template:
        raise InputError(f"source template {template!r} has no placeholder: every repository "
                         "would be cloned from the same place")
    return url


#: a clone or fetch over HTTP(S) that moves fewer than this many bytes a second for
#: :data:`STALL_SECONDS` is ended by git ("Operation too slow"): a remote that trickles (a byte
#: every few seconds) never holds ``repos fetch`` for ever, a slow but moving one is never cut.
#: ``GIT_HTTP_LOW_SPEED_LIMIT`` / ``GIT_HTTP_LOW_SPEED_TIME`` in the environment set others.
STALL_BYTES_PER_S, STALL_SECONDS = 1000, 120


def _run(cwd: Path, args: tuple[str, ...], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """``git -C cwd args``: never prompts, never takes a repository above ``cwd`` for ``cwd``'s,
    never waits on a stalled HTTP remote beyond :data:`STALL_SECONDS`."""
    env = {"GIT_HTTP_LOW_SPEED_LIMIT": str(STALL_BYTES_PER_S), "GIT_HTTP_LOW_SPEED_TIME": str(STALL_SECONDS),
           **os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C",
           "GIT_CEILING_DIRECTORIES": str(cwd.resolve().parent)}
    try:
        return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, env=env, check=False,
                              input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise RepositoryError("the 'git' executable was not found on PATH") from exc


def _git(cwd: Path, *args: str) -> str:
    """Stdout of ``git -C cwd args``; :class:`RepositoryError` with git's first ``fatal:`` or
    ``error:`` line (git's last lines are often advice: "...and the repository exists.")."""
    proc = _run(cwd, args)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        why = next((ln for ln in err if ln.startswith(("fatal:", "error:"))), err[-1] if err else "")
        raise RepositoryError(f"git {args[0]} failed: {why or f'exit code {proc.returncode}'}")
    return proc.stdout.decode("utf-8", "replace").strip()


def _rev(path: Path, rev: str) -> str | None:
    """The sha of ``rev`` (a commit), ``None`` when it does not resolve."""
    return _run(path, ("rev-parse", "--verify", "-q", f"{rev}^{{commit}}")).stdout.decode().strip() or None


_SHALLOW = "a shallow clone (history missing)"
_NO_COMMIT = "neither HEAD nor origin's default branch is a commit (an empty or half-written clone)"


def _problem(path: Path, *, ours: bool) -> str | None:
    """Why ``path`` is not a usable full clone, or ``None`` when it is."""
    if not path.is_dir():
        return "not a folder"
    try:
        out = _git(path, "rev-parse", "--absolute-git-dir", "--is-shallow-repository")
        gitdir, shallow = out.splitlines()
    except (RepositoryError, ValueError) as exc:
        return f"not a git repository ({exc})"
    if Path(gitdir).resolve() not in (path.resolve(), (path / ".git").resolve()):
        return "not a git repository"
    if shallow == "true":
        return _SHALLOW
    if not ours and _run(path, ("config", "--get-regexp",
                                r"^(extensions\.partialclone|remote\..*\.promisor)$")).stdout.strip():
        return "a blob-less/partial clone (its reads need the network)"
    if _rev(path, "HEAD") is None and _rev(path, "refs/remotes/origin/HEAD") is None:
        return _NO_COMMIT   # HEAD on an orphan branch of the user's is fine: Snapshot follows origin
    return None


def _same_url(a: str, b: str) -> bool:
    def norm(url: str) -> str:
        return url.strip().rstrip("/").removesuffix(".git").rstrip("/")
    return norm(a) == norm(b)


def _not_fetchable(path: Path, why: str, url: str) -> str | None:
    """Why the folder ``path`` (which is ``why``) cannot be repaired by fetching into it from
    ``url``; ``None`` when it can (a git repository of that remote that misses history)."""
    if why not in (_SHALLOW, _NO_COMMIT):
        return why
    origin = _run(path, ("config", "--get", "remote.origin.url")).stdout.decode("utf-8", "replace").strip()
    if not origin:
        return f"{why}, with no 'origin' remote"
    if not _same_url(origin, url):
        return f"{why}, a clone of {origin}, not of {url}"
    return None


def _fetch_into(path: Path, why: str) -> None:
    """Fetch what ``path`` misses from its ``origin`` (all of its history when shallow)."""
    _git(path, "-c", "gc.auto=0", "fetch", "--quiet", "--tags",
         *(["--unshallow"] if why == _SHALLOW else []), "origin")
    _git(path, "remote", "set-head", "origin", "--auto")


def _marker(path: Path) -> dict[str, str] | None:
    try:
        data = json.loads((path / ".git" / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_marker(path: Path, repo: str, url: str) -> None:
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    (path / ".git" / MARKER).write_text(json.dumps(
        {"repo": repo, "source": url, "head": _rev(path, "HEAD"), "fetched_at": stamp}, indent=1) + "\n",
        encoding="utf-8")


def _clone(url: str, into: Path, dirname: str, repo: str) -> Path:
    """Clone into a ``.partial-`` folder, check it, mark it; the folder (not yet renamed)."""
    partial = into / f".{dirname}.partial-{secrets.token_hex(4)}"
    try:
        _git(into, "clone", "--no-checkout", "--quiet", "--", url, str(partial))
        why = _problem(partial, ours=True)
        if why:
            raise RepositoryError(f"the new clone is not usable: {why}")
        _write_marker(partial, repo, url)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)  # ours; a killed run's leftovers go next run
        raise
    return partial


def _update(path: Path, ours: bool, repo: str) -> str:
    """``git fetch`` new commits and re-read the remote default branch; a one-line summary."""
    old = _rev(path, "refs/remotes/origin/HEAD") or _rev(path, "HEAD")
    _git(path, "-c", "gc.auto=0", "fetch", "--quiet", "--tags", "origin")  # no --prune: keep old commits
    _git(path, "remote", "set-head", "origin", "--auto")
    new = _rev(path, "refs/remotes/origin/HEAD")
    if new is None:
        raise RepositoryError("the remote names no default branch (refs/remotes/origin/HEAD)")
    branch = _git(path, "symbolic-ref", "refs/remotes/origin/HEAD").removeprefix("refs/remotes/origin/")
    if ours:  # a --no-checkout clone of ours: no working files, moving HEAD's branch is safe
        _git(path, "update-ref", f"refs/heads/{branch}", new)
        _git(path, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
        data = _marker(path) or {}
        _write_marker(path, repo, data.get("source", ""))
    if old == new:
        return f"no new commits on {branch}"
    count = _git(path, "rev-list", "--count", f"{old}..{new}") if old else "?"
    return f"{count} new commit(s) on {branch}"


def _missing_commits(path: Path, commits: Iterable[str]) -> tuple[str, ...]:
    wanted = sorted({c for c in commits if c and "\n" not in c})
    if not wanted:
        return ()
    proc = _run(path, ("cat-file", "--batch-check"), "".join(f"{c}^{{commit}}\n" for c in wanted).encode())
    if proc.returncode != 0:
        raise RepositoryError(f"git cat-file failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    gone = [ln.rpartition(" ")[0].removesuffix("^{commit}") for ln in proc.stdout.decode().splitlines()
            if ln.endswith(" missing")]
    return tuple(gone)


def _fetch_one(repo: str, into: Path, template: str, update: bool, dry_run: bool,
               commits: Iterable[str]) -> FetchResult:
    t0 = time.perf_counter()
    dirname = repo_dir_name(repo)
    url = source_url(template, repo)
    final = into / dirname
    notes: list[str] = []
    partials = [p for p in (into.glob(f".{dirname}.partial-*") if into.is_dir() else ()) if p.is_dir()]
    if partials:
        if not dry_run:
            for p in partials:
                shutil.rmtree(p)
        notes.append(f"{'would remove' if dry_run else 'removed'} {len(partials)} half-written "
                     "clone(s) of an interrupted run")
    marker = _marker(final)
    ours = marker is not None
    present = final.exists() or final.is_symlink()
    why = _problem(final, ours=ours) if present else None
    if marker is not None and marker.get("repo", repo) != repo:
        why = f"benchchecker's clone of {marker.get('repo')!r}"

    def done(status: FetchStatus, *more: str, missing: tuple[str, ...] = ()) -> FetchResult:
        return FetchResult(repo, status, final, url, "; ".join([*notes, *more]),
                           round(time.perf_counter() - t0, 3), missing)

    if present and why is None:
        kept = "" if ours else "a clone without benchchecker's marker, kept as is"
        if not update:
            return done(FetchStatus.SKIPPED, *filter(None, [kept]), missing=_missing_commits(final, commits))
        if dry_run:
            return done(FetchStatus.WOULD_UPDATE, *filter(None, [kept]))
        summary = _update(final, ours, repo)
        return done(FetchStatus.UPDATED, summary, missing=_missing_commits(final, commits))
    if present and why is not None:   # never deleted nor moved aside: the user may have worked there
        refused = _not_fetchable(final, why, url)
        if refused is not None:
            return done(FetchStatus.FAILED, f"{final}: {refused}; left as it is (move it away to "
                                            "clone afresh)")
        if dry_run:
            return done(FetchStatus.WOULD_UPDATE, f"{final} is {why}: would fetch into it")
        _fetch_into(final, why)
        still = _problem(final, ours=ours)
        if still is not None:
            return done(FetchStatus.FAILED, f"{final}: still {still} after fetching into it; left "
                                            "as it is (move it away to clone afresh)")
        return done(FetchStatus.UPDATED, f"{final} was {why}: fetched into it",
                    missing=_missing_commits(final, commits))
    if dry_run:
        return done(FetchStatus.WOULD_CLONE)
    partial = _clone(url, into, dirname, repo)
    partial.rename(final)
    return done(FetchStatus.CLONED, missing=_missing_commits(final, commits))


@contextlib.contextmanager
def locked(into: Path) -> Iterator[None]:
    """Hold ``into/.benchchecker-fetch.lock`` (one fetch, of clones or releases, per folder)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        yield
        return
    with open(into / _LOCK, "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise RepositoryError(f"{into}: another 'benchchecker repos fetch' is working in this "
                                  "folder (wait for it to finish)") from exc
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def fetch_repos(repos: Iterable[str], into: str | os.PathLike[str], *, source: str = DEFAULT_SOURCE,
                jobs: int = 1, update: bool = False, dry_run: bool = False,
                commits: Mapping[str, Iterable[str]] | None = None) -> list[FetchResult]:
    """Clone (or update, or skip) every distinct repository of ``repos`` into ``into/owner__name``.

    ``source`` is the URL template (see :func:`source_url`); ``jobs`` clones run at once (threads);
    ``dry_run`` changes nothing and reports ``would-clone`` / ``would-update`` / ``skipped``;
    ``commits`` maps a repository to commits it must hold (reported in ``missing_commits``).
    One result per distinct repository, in first-seen order; a bad name or a git failure is a
    ``failed`` result and the others go on. :class:`InputError` for a bad template or ``jobs``.
    """
    if jobs < 1:
        raise InputError(f"jobs must be at least 1, got {jobs}")
    source_url(source, "owner/name")  # a bad template fails once, up front
    root = Path(into).absolute()
    if root.exists() and not root.is_dir():
        raise InputError(f"{root}: not a folder")
    names = list(dict.fromkeys(repos))
    results: dict[int, FetchResult] = {}
    todo: dict[int, str] = {}
    seen: dict[str, str] = {}
    for i, repo in enumerate(names):
        try:
            dirname = repo_dir_name(repo)
        except InputError as exc:
            results[i] = FetchResult(repo, FetchStatus.FAILED, detail=str(exc))
            continue
        if dirname in seen:
            results[i] = FetchResult(repo, FetchStatus.FAILED, root / dirname,
                                     detail=f"folder {dirname} is already that of {seen[dirname]!r}")
            continue
        seen[dirname] = repo
        todo[i] = repo
    if not dry_run:
        root.mkdir(parents=True, exist_ok=True)
    with (contextlib.nullcontext() if dry_run else locked(root)):
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(_fetch_one, repo, root, source, update, dry_run,
                                   (commits or {}).get(repo, ())): i for i, repo in todo.items()}
            for fut in progress(as_completed(futures), desc="fetch repos", total=len(futures)):
                i = futures[fut]
                try:
                    results[i] = fut.result()
                except (BenchcheckerError, OSError) as exc:
                    results[i] = FetchResult(names[i], FetchStatus.FAILED, root / repo_dir_name(names[i]),
                                             detail=str(exc))
    return [results[i] for i in range(len(names))]
