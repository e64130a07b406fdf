"""Git access for benchchecker: repository snapshots at a cutoff, file reads, language detection,
the full clones they read (:func:`fetch_repos`, found by :func:`find_repo`), release snapshots
made from a package index's sdists (:func:`fetch_releases`), and where a fix landed
(:func:`fix_landed`).

This package is the only place that talks to git; stage I and stage II share :class:`Snapshot`.
"""

from .clones import find_repo
from .fetch import DEFAULT_SOURCE, FetchResult, FetchStatus, fetch_repos, repo_dir_name, source_url
from .fixes import FixCommit, fix_landed
from .git import BlobReader, apply_diff, export_tree, is_shallow, resolve_commit
from .index import PackageIndex, ReleaseFile, SimpleIndex
from .language import EXTENSIONS, detect_language
from .releases import Release, ReleaseFetch, ReleaseHistory, fetch_releases, find_releases, releases_dir_name
from .snapshot import Snapshot, default_ref, parse_cutoff

__all__ = [
    "BlobReader",
    "DEFAULT_SOURCE",
    "EXTENSIONS",
    "FetchResult",
    "FetchStatus",
    "FixCommit",
    "PackageIndex",
    "Release",
    "ReleaseFetch",
    "ReleaseFile",
    "ReleaseHistory",
    "SimpleIndex",
    "Snapshot",
    "apply_diff",
    "default_ref",
    "detect_language",
    "export_tree",
    "fetch_releases",
    "fetch_repos",
    "find_releases",
    "find_repo",
    "fix_landed",
    "is_shallow",
    "parse_cutoff",
    "releases_dir_name",
    "repo_dir_name",
    "resolve_commit",
    "source_url",
]
