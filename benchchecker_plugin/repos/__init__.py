"""Git access for benchchecker: repository snapshots at a cutoff, file reads, language detection.

This package is the only place that talks to git; stage I and stage II share :class:`Snapshot`.
"""

from .git import BlobReader, apply_diff, export_tree, is_shallow, resolve_commit
from .language import EXTENSIONS, detect_language
from .snapshot import Snapshot, parse_cutoff

__all__ = [
    "BlobReader",
    "EXTENSIONS",
    "Snapshot",
    "apply_diff",
    "detect_language",
    "export_tree",
    "is_shallow",
    "parse_cutoff",
    "resolve_commit",
]
