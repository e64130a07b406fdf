"""What a Stage II run is configured by (:class:`PresenceConfig`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..testrun import TestRunner
from ._decide import DEFAULT_THRESHOLD
from ._similarity import Similarity, get_similarity


@dataclass(frozen=True)
class PresenceConfig:
    """Knobs of stage II. ``similarity``: a :class:`Similarity` or a name for ``get_similarity``.
    ``snapshot_source`` (``auto``, ``git``, ``releases``), ``releases_dir`` (default: the repos
    folder), ``lag_margin_days`` (``None``: no lag correction) and ``merge_dates``: see
    :mod:`._sources`."""

    threshold: float = DEFAULT_THRESHOLD
    preprocess: bool = True
    similarity: Any = "difflib+minilm"
    runner: TestRunner | None = None
    max_files: int = 10
    snapshot_source: str = "auto"
    releases_dir: str | os.PathLike[str] | None = None
    lag_margin_days: float | None = None
    merge_dates: bool = True

    def resolved_similarity(self) -> Similarity:
        return get_similarity(self.similarity) if isinstance(self.similarity, str) else self.similarity
