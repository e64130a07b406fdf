"""Stage I of BenchChecker: was a model trained on a repository? (text outputs only).

Mine recurring patterns (:mod:`.mining`), instantiate query–target pairs (:mod:`.queries`), rank
targets by a reference model's entropy (:mod:`.entropy`), probe the model (:mod:`.probe`), and test
the hit count against chance (:mod:`.test`). :func:`repo_presence` runs it all.
"""

from .entropy import max_subtoken_loss, score_entropy
from .presence import (
                       METHOD,
                       MiningConfig,
                       PresenceResult,
                       build_queries,
                       mine_repository,
                       presence_flags,
                       repo_presence,
)
from .probe import ProbeResult, probe
from .queries import (
                       Query,
                       drop_near_duplicates,
                       instantiate_queries,
                       is_context_independent,
                       is_distinctive,
                       is_hit,
                       is_repetitive,
                       select_queries,
)
from .sources import LANGUAGE_EXTENSIONS, SourceFile, read_sources
from .test import (
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
    "LANGUAGE_EXTENSIONS",
    "METHOD",
    "MiningConfig",
    "PresenceResult",
    "ProbeResult",
    "Query",
    "SourceFile",
    "TestResult",
    "binomial_test",
    "build_queries",
    "calibrate_p0",
    "drop_near_duplicates",
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
