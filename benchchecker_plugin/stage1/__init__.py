"""Stage I of BenchChecker: was a model trained on a repository? (text outputs only).

Mine recurring patterns (:mod:`.mining`), instantiate query–target pairs (:mod:`._queries`), rank
targets by a reference model's entropy (:mod:`._entropy`), probe the model (:mod:`._probe`), and test
the hit count against chance (:mod:`._test`). :func:`repo_presence` runs it all. Beside the exact-hit
test, :mod:`._graded` scores partial memorisation: how close each sample comes to the file's
continuation, against non-member references, with a null calibrated on excluded repositories.
"""

from ._entropy import max_subtoken_loss, score_entropy
from ._graded import (
                       GRADED_METHOD,
                       GradedNull,
                       GradedQuery,
                       GradedResult,
                       continuations,
                       edit_similarity,
                       effective_queries,
                       graded_flags,
                       graded_queries,
                       graded_result,
                       graded_score,
)
from ._presence import (
                       MiningConfig,
                       PresenceResult,
                       build_queries,
                       mine_repository,
                       presence_flags,
                       repo_presence,
)
from ._probe import ProbeResult, probe
from ._queries import (
                       Query,
                       drop_near_duplicates,
                       instantiate_queries,
                       is_context_independent,
                       is_distinctive,
                       is_hit,
                       is_repetitive,
                       select_queries,
)
from ._sources import LANGUAGE_EXTENSIONS, SourceFile, read_sources
from ._test import (
                       DEFAULT_P0,
                       Calibration,
                       TestResult,
                       binomial_test,
                       calibrate_p0,
                       presence_test,
                       weighted_binomial_test,
)

__all__ = [
    "Calibration",
    "DEFAULT_P0",
    "GRADED_METHOD",
    "GradedNull",
    "GradedQuery",
    "GradedResult",
    "LANGUAGE_EXTENSIONS",
    "MiningConfig",
    "PresenceResult",
    "ProbeResult",
    "Query",
    "SourceFile",
    "TestResult",
    "binomial_test",
    "build_queries",
    "calibrate_p0",
    "continuations",
    "drop_near_duplicates",
    "edit_similarity",
    "effective_queries",
    "graded_flags",
    "graded_queries",
    "graded_result",
    "graded_score",
    "instantiate_queries",
    "is_context_independent",
    "is_distinctive",
    "is_hit",
    "is_repetitive",
    "max_subtoken_loss",
    "mine_repository",
    "presence_flags",
    "presence_test",
    "probe",
    "read_sources",
    "repo_presence",
    "score_entropy",
    "select_queries",
    "weighted_binomial_test",
]
