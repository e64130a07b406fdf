"""What ``repos fetch --from-releases --dry-run`` prints: the releases a fetch would download
and those an earlier run stored, read from the index listing and the folder's marker alone."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from packaging.utils import canonicalize_name

from ..errors import RepositoryError
from ._index import PackageIndex, SimpleIndex, release_version
from ._releases import (
    ReleaseHistory,
    is_release_repo,
    listed_sdists,
    releases_dir_name,
    version_key,
    wanted_versions,
)


@dataclass(frozen=True)
class ReleasePlan:
    """What :func:`fetch_releases` would do: download ``fetch``, keep ``kept`` (stored by an
    earlier run), of ``listed`` sdists on the index, into ``path``."""

    package: str
    repo: str
    path: Path
    fetch: tuple[str, ...]
    kept: tuple[str, ...]
    listed: int


def plan_releases(package: str, repo: str, into: str | os.PathLike[str], *,
                  index: PackageIndex | None = None, cutoffs: Iterable[object] | None = None,
                  bases: Iterable[tuple[str | None, datetime | None]] = (),
                  versions: Iterable[str] | None = None) -> ReleasePlan:
    """:func:`fetch_releases`'s choice of releases, read from the index listing and the folder's
    marker: nothing is downloaded, created or written (the same errors as a fetch)."""
    versions = None if versions is None else [release_version(v) for v in versions]
    index = index or SimpleIndex()
    files = listed_sdists(package, index)
    want = wanted_versions(package, files, index.url, versions, cutoffs, list(bases))
    final = Path(into).absolute() / releases_dir_name(repo)
    old = None
    if final.exists():
        if not is_release_repo(final):
            raise RepositoryError(f"{final}: exists and is not a release repository (move it away)")
        old = ReleaseHistory.open(final)
        if canonicalize_name(old.package) != canonicalize_name(package):
            raise RepositoryError(f"{final}: holds the releases of {old.package!r}, not {package!r}")
    stored = old.fetched if old else ()
    have = {(r.version, r.sha256) for r in stored}
    chosen = [f for f in files if f.version in want]
    fetch = {f.version for f in chosen if (f.version, f.sha256) not in have}
    # releases stored by an earlier run stay, whether this run wants them or not
    kept = ({f.version for f in chosen} | {r.version for r in stored}) - fetch
    return ReleasePlan(package, repo, final, tuple(sorted(fetch, key=version_key)),
                       tuple(sorted(kept, key=version_key)), len(files))
