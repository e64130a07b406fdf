"""Where the clone of an instance's repository is in a folder of clones (``--repos-dir``): the
layout ``benchchecker repos fetch`` writes (``owner__name``), or ``name`` alone."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import RepositoryError

if TYPE_CHECKING:
    from ..instances import BugInstance


def find_repo(repos_dir: str | os.PathLike[str], inst: BugInstance) -> Path:
    """``repos_dir/owner__name`` or ``repos_dir/name`` (GitHub names ignore case, so a folder
    that differs only in case is found too: Multi-SWE-bench writes ``fasterxml`` for
    ``FasterXML``); :class:`RepositoryError` names both."""
    for name in inst.repo_dir_names:
        cand = Path(repos_dir) / name
        if cand.is_dir():
            return cand
    folded = {n.lower() for n in inst.repo_dir_names}
    root = Path(repos_dir)
    if root.is_dir():
        for cand in sorted(root.iterdir()):
            if cand.name.lower() in folded and cand.is_dir():
                return cand
    tried = " or ".join(str(Path(repos_dir) / n) for n in inst.repo_dir_names)
    raise RepositoryError(f"instance {inst.instance_id!r}: no clone of {inst.repo} at {tried}")
