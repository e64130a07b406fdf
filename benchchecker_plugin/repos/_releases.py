"""Release snapshots: a package's released sdists as a git repository, one commit per release.

>>> res = fetch_releases("requests", "psf/requests", "repos/", cutoffs=["2023-04"])  # doctest: +SKIP
>>> hist = ReleaseHistory.open("repos/psf__requests.releases")                       # doctest: +SKIP
>>> hist.at(parse_cutoff("2023-04")).version                                         # doctest: +SKIP

For projects too large to clone (django, matplotlib, scikit-learn), the package registry holds
every release, and an sdist's package files are its release tag's tree. ``DIR/owner__name.releases``
(beside the clones, so a folder can hold both; git is preferred where both exist) is a git
repository whose commit per release holds the sdist's files (its top folder stripped), dated
with the index's exact upload time (PEP 700, rounded *up* to the second, so a release is never
taken for one uploaded before a cutoff it followed). The marker ``.git/benchchecker-releases.json``
lists every sdist on the index with its upload time, and which were fetched. Because the snapshots
are commits, Stage II reads them with :class:`~.snapshot.Snapshot` like any clone (rename
detection between releases included).

"The release at a cutoff" is the *highest version* uploaded at or before it (pre-releases
included): a backport release of an old line uploaded after a newer release (django 3.2.19 after
4.2) is not the project's newest code. Only the releases a run needs are downloaded (``cutoffs``:
the release at each cutoff and the next one after it, for the lag correction; ``instances``: the
stand-in bases of :func:`base_candidates`); asking for a cutoff whose release was not fetched is a
one-line error naming it.

Never half-written: a new repository is built in ``DIR/.owner__name.releases.partial-*`` and
renamed when complete; an existing one gets new objects first, then its marker (atomically) and
its branch. A corrupt or missing sdist stops that package with one error naming the file and
leaves the folder as it was.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol, TypeVar

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from ..atomic import write_text_atomic
from ..cutoff import parse_cutoff
from ..errors import DataError, RepositoryError
from ._archive import ExtractLimits
from ._fetch import locked, repo_dir_name
from ._git import git
from ._index import PackageIndex, ReleaseFile, SimpleIndex, project_name, release_version
from ._sdist_tree import store_tree, unpack_sdist
from ._snapshot import Snapshot

RELEASES_SUFFIX = ".releases"
RELEASES_MARKER = "benchchecker-releases.json"
_BRANCH = "refs/heads/releases"
_CANDIDATES = 6


@dataclass(frozen=True)
class Release:
    """One sdist on the index; ``commit`` is ``None`` when it was listed but not fetched."""

    version: str
    uploaded_at: datetime
    filename: str
    sha256: str
    commit: str | None = None
    tree: str | None = None

    @property
    def parsed_version(self) -> Version:
        return version_key(self.version)

    def to_evidence(self, package: str) -> dict[str, str]:
        return {"kind": "release", "package": package, "release": self.version,
                "uploaded_at": self.uploaded_at.isoformat()}


def version_key(text: str) -> Version:
    """``text`` as a version to sort by (an unparsable legacy version sorts first)."""
    try:
        return Version(text)
    except InvalidVersion:
        return Version("0.dev0")  # an unparsable legacy version sorts first


def releases_dir_name(repo: str) -> str:
    """``owner__name.releases`` for ``owner/name``."""
    return repo_dir_name(repo) + RELEASES_SUFFIX


def is_release_repo(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a release repository this module wrote (it has the marker)."""
    return (Path(path) / ".git" / RELEASES_MARKER).is_file()


def find_releases(releases_dir: str | os.PathLike[str], repo: str) -> Path:
    """``releases_dir/owner__name.releases``; :class:`RepositoryError` naming it when absent."""
    path = Path(releases_dir) / releases_dir_name(repo)
    if not is_release_repo(path):
        raise RepositoryError(f"no release snapshots of {repo} at {path} (run 'benchchecker repos "
                              f"fetch --from-releases PACKAGE')")
    return path


class _Dated(Protocol):
    @property
    def version(self) -> str: ...
    @property
    def uploaded_at(self) -> datetime: ...


D = TypeVar("D", bound=_Dated)


def _at(items: Sequence[D], when: datetime) -> D | None:
    before = [r for r in items if r.uploaded_at <= when]
    return max(before, key=lambda r: (version_key(r.version), r.uploaded_at)) if before else None


def _after(items: Sequence[D], when: datetime, above: str | None) -> D | None:
    floor = version_key(above) if above else None
    later = [r for r in items if r.uploaded_at > when and (floor is None or version_key(r.version) > floor)]
    return min(later, key=lambda r: r.uploaded_at) if later else None


def base_candidates(items: Sequence[D], *, version: str | None, created_at: datetime | None,
                    most: int = _CANDIDATES) -> list[D]:
    """The releases to try, in order, as the stand-in of an instance's base commit.

    With the fix's creation date: the releases uploaded before it, newest version first (none
    can hold the fix), then the first ones uploaded after it with a higher version (the next
    releases of the newest line, not backports of old ones). Else with the instance's version
    ``X.Y`` (SWE-bench's ``version``: the package's version at the base commit): that line's
    releases, oldest first (closest to its development), the first release above the line (a
    development tree labelled ``X.Y`` may hold files first released in the next line), then the
    highest releases below it uploaded before the line's first release. Else the newest releases."""
    pool = list(items)
    out: list[D] = []
    if created_at is not None:
        before = sorted((r for r in pool if r.uploaded_at <= created_at),
                        key=lambda r: version_key(r.version), reverse=True)
        top = version_key(before[0].version) if before else None
        after = sorted((r for r in pool if r.uploaded_at > created_at and (top is None or version_key(r.version) > top)),
                       key=lambda r: r.uploaded_at)
        out = before[:most - 2] + after[:2]
        out += [r for r in before[most - 2:] if len(out) < most]
    elif version:
        line = version_key(version).release
        same = sorted((r for r in pool if version_key(r.version).release[:len(line)] == line),
                      key=lambda r: version_key(r.version))
        floor = Version(".".join(map(str, line)) + ".dev0") if line else None
        below_all = [r for r in pool if floor is not None and version_key(r.version) < floor]
        first = min((r.uploaded_at for r in same), default=None)
        below = sorted((r for r in below_all if first is None or r.uploaded_at <= first),
                       key=lambda r: version_key(r.version), reverse=True)
        above = sorted((r for r in pool if r not in same and r not in below_all), key=lambda r: version_key(r.version))
        out = same[:most - 3] + above[:1] + below[:2]
        out += [r for r in same[most - 3:] + below[2:] if len(out) < most]
    else:
        out = sorted(pool, key=lambda r: version_key(r.version), reverse=True)[:most]
    return list(dict.fromkeys(out))[:most]


@dataclass(frozen=True)
class ReleaseHistory:
    """A release repository: every listed release (sorted by upload time), fetched or not."""

    path: Path
    package: str
    repo: str
    index: str
    releases: tuple[Release, ...]

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> ReleaseHistory:
        root = Path(path)
        marker = root / ".git" / RELEASES_MARKER
        try:
            data = json.loads(marker.read_text(encoding="utf-8"))
            rels = tuple(Release(r["version"], datetime.fromisoformat(r["uploaded_at"]), r["filename"],
                                 r["sha256"], r.get("commit"), r.get("tree")) for r in data["releases"])
            return cls(root, str(data["package"]), str(data["repo"]), str(data["index"]), rels)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RepositoryError(f"{root}: not a release repository (its marker {marker.name} is "
                                  f"missing or unreadable: {exc})") from exc

    @property
    def fetched(self) -> tuple[Release, ...]:
        return tuple(r for r in self.releases if r.commit)

    def at(self, cutoff: object) -> Release:
        """The release at ``cutoff`` (highest version uploaded at or before it), fetched;
        :class:`RepositoryError` naming the package and cutoff when there is none or it was not
        fetched."""
        when = parse_cutoff(cutoff)  # type: ignore[arg-type]
        rel = _at(self.releases, when)
        if rel is None:
            first = min(self.releases, key=lambda r: r.uploaded_at, default=None)
            since = f" (the first, {first.version}, was uploaded {first.uploaded_at:%Y-%m-%d})" if first else ""
            raise RepositoryError(f"package {self.package!r}: no release uploaded before the cutoff "
                                  f"{when.isoformat()}{since}")
        if not rel.commit:
            raise RepositoryError(f"package {self.package!r}: release {rel.version} (the one at the "
                                  f"cutoff {when.isoformat()}) was not fetched; run 'benchchecker repos "
                                  "fetch --from-releases' with this cutoff")
        return rel

    def after(self, cutoff: object, above: Release) -> Release | None:
        """The first release uploaded after ``cutoff`` with a higher version than ``above`` (the
        next release of the project's newest line, not a backport), fetched or not."""
        return _after(self.releases, parse_cutoff(cutoff), above.version)  # type: ignore[arg-type]

    def of_commit(self, commit: str) -> Release | None:
        return next((r for r in self.releases if r.commit == commit), None)

    def snapshot(self, release: Release, cutoff: object = None) -> Snapshot:
        if not release.commit:
            raise RepositoryError(f"package {self.package!r}: release {release.version} was not fetched")
        return Snapshot.of_commit(self.path, release.commit, cutoff=cutoff)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ReleaseFetch:
    """What :func:`fetch_releases` did: ``added`` releases newly stored, ``kept`` already there."""

    package: str
    repo: str
    path: Path
    added: tuple[str, ...]
    kept: tuple[str, ...]
    listed: int


# ---------------------------------------------------------------------------------- building
def _ceil_second(when: datetime) -> int:
    return math.ceil(when.timestamp())


def _chain(repo: Path, package: str, releases: Sequence[Release],
           omitted: dict[str, list[str]]) -> list[Release]:
    """One commit per fetched release, in version order (parent = previous version), dated at
    its upload time (its message names the ``.git`` entries left out); the releases with their
    commits."""
    parent: str | None = None
    out = []
    for rel in sorted(releases, key=lambda r: (r.parsed_version, r.uploaded_at)):
        assert rel.tree
        stamp = f"@{_ceil_second(rel.uploaded_at)} +0000"
        msg = (f"release {package} {rel.version}\n\nuploaded-at: {rel.uploaded_at.isoformat()}\n"
               f"sdist: {rel.filename}\nsha256: {rel.sha256}\n")
        if omitted.get(rel.version):
            msg += f"{_OMITTED}{', '.join(omitted[rel.version])}{_OMITTED_WHY}\n"
        args = ["-c", "user.name=benchchecker", "-c", "user.email=benchchecker@localhost",
                "commit-tree", rel.tree, "-m", msg] + (["-p", parent] if parent else [])
        parent = git(repo, args, env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}).decode().strip()
        out.append(Release(rel.version, rel.uploaded_at, rel.filename, rel.sha256, parent, rel.tree))
    return out


_OMITTED = "omitted: "
_OMITTED_WHY = " (git cannot store a path named .git)"


def _omitted_before(repo: Path, releases: Sequence[Release]) -> dict[str, list[str]]:
    """The ``.git`` entries an earlier run left out of ``releases`` (from their commit messages),
    so that chaining them again gives the same commits."""
    commits = {r.commit: r.version for r in releases if r.commit}
    if not commits:
        return {}
    out = git(repo, ["show", "-s", "--format=%H%x01%B%x02", *commits]).decode("utf-8", "replace")
    found: dict[str, list[str]] = {}
    for record in out.split("\x02"):
        sha, _, body = record.strip().partition("\x01")
        for line in body.splitlines():
            if line.startswith(_OMITTED) and line.endswith(_OMITTED_WHY) and sha in commits:
                found[commits[sha]] = [line[len(_OMITTED):-len(_OMITTED_WHY)]]
    return found


def _wanted(files: Sequence[ReleaseFile], cutoffs: Iterable[object],
            bases: Iterable[tuple[str | None, datetime | None]]) -> set[str]:
    want: set[str] = set()
    for c in cutoffs:
        when = parse_cutoff(c)  # type: ignore[arg-type]
        at = _at(files, when)
        nxt = _after(files, when, at.version if at else None)
        want |= {r.version for r in (at, nxt) if r is not None}
    for version, created in bases:
        want |= {r.version for r in base_candidates(files, version=version, created_at=created)}
    return want


def wanted_versions(package: str, files: Sequence[ReleaseFile], index_url: str,
                    versions: Iterable[str] | None, cutoffs: Iterable[object] | None,
                    bases: Sequence[tuple[str | None, datetime | None]]) -> set[str]:
    """The versions of ``files`` a fetch stores (see :func:`fetch_releases`)."""
    if versions is not None:
        want = set(versions)
        unknown = sorted(want - {f.version for f in files})
        if unknown:
            raise DataError(f"package {package!r}: no sdist of version(s) {', '.join(unknown)} on {index_url}")
        return want
    if cutoffs is not None or bases:
        return _wanted(files, cutoffs or (), bases)
    return {f.version for f in files}


def listed_sdists(package: str, index: PackageIndex) -> list[ReleaseFile]:
    """The sdists of ``package`` on ``index``; :class:`DataError` when it lists none."""
    project_name(package)   # a name with path or host characters never reaches a URL or a path
    files = index.sdists(package)
    if not files:
        raise DataError(f"package {package!r} on {index.url}: no source distribution with an upload time")
    return files


def fetch_releases(package: str, repo: str, into: str | os.PathLike[str], *,
                   index: PackageIndex | None = None, cutoffs: Iterable[object] | None = None,
                   bases: Iterable[tuple[str | None, datetime | None]] = (),
                   versions: Iterable[str] | None = None,
                   limits: ExtractLimits | None = None) -> ReleaseFetch:
    """Store the releases of ``package`` (the project ``repo``) in ``into/owner__name.releases``.

    Which: ``versions`` when given; else those ``cutoffs`` and ``bases`` (pairs of an instance's
    version and creation date) need (see the module doc); with neither, every sdist on the index.
    :class:`InputError` for an unknown package, :class:`DataError`/:class:`RepositoryError` for a
    corrupt or missing sdist, or one that unpacks past ``limits`` (the folder is left as it was)."""
    versions = None if versions is None else [release_version(v) for v in versions]
    index = index or SimpleIndex()
    files = listed_sdists(package, index)
    want = wanted_versions(package, files, index.url, versions, cutoffs, list(bases))
    root = Path(into).absolute()
    root.mkdir(parents=True, exist_ok=True)
    with locked(root):  # one writer per folder, as for clones
        return _fetch_locked(package, repo, root, index, files, want, limits or ExtractLimits())


def _fetch_locked(package: str, repo: str, root: Path, index: PackageIndex, files: Sequence[ReleaseFile],
                  want: set[str], limits: ExtractLimits) -> ReleaseFetch:
    for stale in root.glob(".sdists-*"):  # scratch of a run that was killed
        shutil.rmtree(stale, ignore_errors=True)
    final = root / releases_dir_name(repo)
    old = ReleaseHistory.open(final) if final.exists() else None
    if old is not None and canonicalize_name(old.package) != canonicalize_name(package):
        raise RepositoryError(f"{final}: holds the releases of {old.package!r}, not {package!r}")
    have = {(r.version, r.sha256): r for r in (old.fetched if old else ())}
    work = final
    if old is None:
        if final.exists():
            raise RepositoryError(f"{final}: exists and is not a release repository (move it away)")
        for stale in root.glob(f".{final.name}.partial-*"):
            shutil.rmtree(stale, ignore_errors=True)
        work = root / f".{final.name}.partial-{secrets.token_hex(4)}"
        git(root, ["init", "--quiet", str(work)])
    added: list[str] = []
    stored: dict[str, Release] = {}
    omitted: dict[str, list[str]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix=".sdists-", dir=root) as scratch_name:
            scratch = Path(scratch_name)
            for f in files:
                if f.version not in want:
                    continue
                got = have.get((f.version, f.sha256))
                if got is not None:
                    stored[f.version] = got
                    continue
                label = f"package {package!r} {f.version}"
                archive = index.download(f, scratch / "dl")
                tree_dir, dropped = unpack_sdist(archive, Path(tempfile.mkdtemp(dir=scratch)), label, limits)
                tree = store_tree(work, tree_dir, scratch)
                omitted[f.version] = dropped
                shutil.rmtree(tree_dir, ignore_errors=True)
                archive.unlink(missing_ok=True)
                stored[f.version] = Release(f.version, f.uploaded_at, f.filename, f.sha256, None, tree)
                added.append(f.version)
        for r in have.values():  # releases stored by an earlier run stay
            stored.setdefault(r.version, r)
        omitted.update(_omitted_before(work, [r for r in stored.values() if r.version not in omitted]))
        chained = {r.version: r for r in _chain(work, package, list(stored.values()), omitted)}
        listing = [chained.get(f.version) or Release(f.version, f.uploaded_at, f.filename, f.sha256)
                   for f in files]
        marker = {"package": package, "repo": repo, "index": index.url,
                  "updated_at": datetime.now(UTC).isoformat(timespec="seconds"),
                  "releases": [{"version": r.version, "uploaded_at": r.uploaded_at.isoformat(),
                                "filename": r.filename, "sha256": r.sha256, "commit": r.commit,
                                "tree": r.tree} for r in listing]}
        write_text_atomic(work / ".git" / RELEASES_MARKER, json.dumps(marker, indent=1) + "\n")
        tip = max(chained.values(), key=lambda r: (r.parsed_version, r.uploaded_at), default=None)
        if tip is not None:
            git(work, ["update-ref", _BRANCH, tip.commit or ""])
            git(work, ["symbolic-ref", "HEAD", _BRANCH])
        if work != final:
            work.rename(final)
    except BaseException:
        if work != final:
            shutil.rmtree(work, ignore_errors=True)
        raise
    kept = tuple(sorted(set(stored) - set(added), key=version_key))
    return ReleaseFetch(package, repo, final, tuple(sorted(added, key=version_key)), kept, len(files))

