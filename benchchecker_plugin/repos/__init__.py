"""Git access for benchchecker: repository snapshots at a cutoff, file reads, language detection,
and the full clones they read (:func:`fetch_repos`, found by :func:`find_repo`).

This package is the only place that talks to git; stage I and stage II share :class:`Snapshot`.
"""

from .clones import find_repo
from .fetch import DEFAULT_SOURCE, FetchResult, FetchStatus, fetch_repos, repo_dir_name, source_url
from .git import BlobReader, apply_diff, export_tree, is_shallow, resolve_commit
from .language import EXTENSIONS, detect_language
from .snapshot import Snapshot, parse_cutoff

__all__ = [
    "BlobReader",
    "DEFAULT_SOURCE",
    "EXTENSIONS",
    "FetchResult",
    "FetchStatus",
    "Snapshot",
    "apply_diff",
    "detect_language",
    "export_tree",
    "fetch_repos",
    "find_repo",
    "is_shallow",
    "parse_cutoff",
    "repo_dir_name",
    "resolve_commit",
    "source_url",
]
