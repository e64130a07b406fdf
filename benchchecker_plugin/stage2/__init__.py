"""BenchChecker stage II: was an instance's gold patch in the repository at the training cutoff?

Pipeline: :mod:`.patch` (diff -> logical-line blocks) -> :mod:`.normalize` (both sides) ->
:mod:`.localize` (same name, moved, GumTree-style subtree match; line alignment with a pluggable
:mod:`.similarity`) -> :mod:`.decide` -> optional tests of the spliced patch (:mod:`.splice`, run
by :mod:`benchchecker_plugin.testrun`); :mod:`.judge` judges one instance against one snapshot, and
:mod:`.engine`, the one driver, runs instances x {model: cutoff} on an executor (one task per
repository; :mod:`.presence` is it at one cutoff).

The test runners live in :mod:`benchchecker_plugin.testrun`.
"""

from .decide import DEFAULT_THRESHOLD, BlockResult, Category, decide
from .engine import GridRun, patch_presence_grid, run_grid, run_stage2
from .languages import LanguageSpec, get_language, language_names, register_language
from .localize import LineMatch, Location, SnapshotIndex, align, localize
from .normalize import LogicalLine, ParsedSource, Scope, normalize_code, parse_source
from .patch import PatchBlock, parse_patch
from .presence import METHOD, PresenceConfig, patch_presence, summary_line
from .similarity import (
                         EmbeddingSimilarity,
                         ExactSimilarity,
                         LexicalSimilarity,
                         RerankSimilarity,
                         Similarity,
                         get_similarity,
)
from .splice import SpliceError, modified_patch
from .why_clean import CleanKind, why_clean

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
    "METHOD",
    "ParsedSource",
    "PatchBlock",
    "PresenceConfig",
    "RerankSimilarity",
    "Scope",
    "Similarity",
    "SnapshotIndex",
    "SpliceError",
    "align",
    "decide",
    "get_language",
    "get_similarity",
    "language_names",
    "localize",
    "modified_patch",
    "normalize_code",
    "parse_patch",
    "parse_source",
    "patch_presence",
    "patch_presence_grid",
    "register_language",
    "run_grid",
    "run_stage2",
    "summary_line",
    "why_clean",
]
