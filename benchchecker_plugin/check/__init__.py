"""The pre-release check for model teams: every detector on every benchmark, one report."""

from .page import verdict_summary, write_check_report
from .pipeline import (
                       BUG_BENCHMARKS,
                       QA_BENCHMARKS,
                       CheckConfig,
                       CheckResult,
                       RepoEvidence,
                       parse_data_options,
                       run_check,
)

__all__ = [
    "BUG_BENCHMARKS",
    "CheckConfig",
    "CheckResult",
    "QA_BENCHMARKS",
    "RepoEvidence",
    "parse_data_options",
    "run_check",
    "verdict_summary",
    "write_check_report",
]
