"""BenchChecker stage II: was an instance's gold patch in the repository at the training cutoff?

Pipeline: :mod:`._patch` (diff -> logical-line blocks) -> :mod:`._normalize` (both sides) ->
:mod:`._localize` (same name, moved, GumTree-style subtree match; line alignment with a pluggable
:mod:`._similarity`) -> :mod:`._decide` -> optional tests of the spliced patch (:mod:`._splice`, run
by :mod:`benchchecker_plugin.testrun`); :mod:`._judge` judges one instance against one snapshot, and
:mod:`._engine`'s :func:`run_stage2`, the one entry, runs instances x {model: cutoff} on an executor
(one task per repository), one cutoff or many; each instance at each snapshot is a
:class:`PresenceVerdict` before it becomes a flag.

The test runners live in :mod:`benchchecker_plugin.testrun`.
"""

from ._config import PresenceConfig
from ._decide import DEFAULT_THRESHOLD, BlockResult, Category, PresenceVerdict, decide
from ._engine import run_stage2
from ._languages import LanguageSpec, get_language, language_names, register_language
from ._localize import LineMatch, Location, SnapshotIndex, align, localize
from ._normalize import LogicalLine, ParsedSource, Scope, normalize_code, parse_source
from ._own_fix import OwnFix, own_fix_snapshot, pr_dates
from ._patch import PatchBlock, parse_patch
from ._similarity import (
                         EmbeddingSimilarity,
                         ExactSimilarity,
                         LexicalSimilarity,
                         RerankSimilarity,
                         Similarity,
                         get_similarity,
)
from ._sources import locate
from ._splice import SpliceError, modified_patch
from ._summary import summary_line
from ._synthetic import build_history
from ._units import GridRun
from ._why_clean import CleanKind, why_clean

__all__ = [
    "BlockResult",
    "Category",
    "CleanKind",
    "DEFAULT_THRESHOLD",
    "EmbeddingSimilarity",
    "ExactSimilarity",
    "GridRun",
    "LanguageSpec",
    "LexicalSimilarity",
    "LineMatch",
    "Location",
    "LogicalLine",
    "OwnFix",
    "ParsedSource",
    "PatchBlock",
    "PresenceConfig",
    "PresenceVerdict",
    "RerankSimilarity",
    "Scope",
    "Similarity",
    "SnapshotIndex",
    "SpliceError",
    "align",
    "build_history",
    "decide",
    "get_language",
    "get_similarity",
    "language_names",
    "localize",
    "locate",
    "modified_patch",
    "normalize_code",
    "own_fix_snapshot",
    "parse_patch",
    "parse_source",
    "pr_dates",
    "register_language",
    "run_stage2",
    "summary_line",
    "why_clean",
]
