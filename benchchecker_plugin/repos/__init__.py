"""Git access for benchchecker: repository snapshots at a cutoff, file reads, language detection,
the full clones they read (:func:`fetch_repos`, found by :func:`find_repo`), release snapshots
made from a package index's sdists (:func:`fetch_releases`), and where a fix landed
(:func:`fix_landed`).

This package is the only place that talks to git; stage I and stage II share :class:`Snapshot`.
"""

from ._archive import ExtractLimits
from ._clones import find_repo
from ._fetch import DEFAULT_SOURCE, FetchResult, FetchStatus, fetch_repos, repo_dir_name, source_url
from ._fixes import (
    FixCommit,
    added_lines,
    first_holding,
    first_landing,
    first_unapplying,
    fix_landed,
    holds_line,
    is_ancestor,
    unapplies,
)
from ._git import BlobReader, apply_diff, export_tree, git, is_shallow, refs_state, resolve_commit
from ._index import PackageIndex, ReleaseFile, SimpleIndex
from ._language import EXTENSIONS, detect_language
from ._release_plan import plan_releases
from ._releases import (
    RELEASES_MARKER,
    Release,
    ReleaseFetch,
    ReleaseHistory,
    base_candidates,
    fetch_releases,
    find_releases,
    is_release_repo,
    releases_dir_name,
)
from ._snapshot import Snapshot, default_ref

__all__ = [
    "BlobReader",
    "DEFAULT_SOURCE",
    "EXTENSIONS",
    "ExtractLimits",
    "FetchResult",
    "FetchStatus",
    "FixCommit",
    "PackageIndex",
    "RELEASES_MARKER",
    "Release",
    "ReleaseFetch",
    "ReleaseFile",
    "ReleaseHistory",
    "SimpleIndex",
    "Snapshot",
    "added_lines",
    "apply_diff",
    "base_candidates",
    "default_ref",
    "detect_language",
    "export_tree",
    "fetch_releases",
    "fetch_repos",
    "find_releases",
    "find_repo",
    "first_holding",
    "first_landing",
    "first_unapplying",
    "fix_landed",
    "git",
    "holds_line",
    "is_ancestor",
    "is_release_repo",
    "is_shallow",
    "plan_releases",
    "refs_state",
    "releases_dir_name",
    "repo_dir_name",
    "resolve_commit",
    "source_url",
    "unapplies",
]
