"""The pre-release check for model teams: every detector on every benchmark, one report."""

from ._page import verdict_summary, write_check_report
from ._pipeline import (
                       BUG_BENCHMARKS,
                       QA_BENCHMARKS,
                       STAGE1_INCONCLUSIVE,
                       CheckConfig,
                       CheckResult,
                       RepoEvidence,
                       parse_data_options,
                       run_check,
)
from ._rates import ExactRate, exact_rate, queries_to_rule_out
from ._sampling import parse_limits, stratified_sample
from ._summary import check_summary, write_check_summary

__all__ = [
    "BUG_BENCHMARKS",
    "CheckConfig",
    "CheckResult",
    "ExactRate",
    "QA_BENCHMARKS",
    "RepoEvidence",
    "STAGE1_INCONCLUSIVE",
    "check_summary",
    "exact_rate",
    "parse_data_options",
    "parse_limits",
    "queries_to_rule_out",
    "run_check",
    "stratified_sample",
    "verdict_summary",
    "write_check_report",
    "write_check_summary",
]
