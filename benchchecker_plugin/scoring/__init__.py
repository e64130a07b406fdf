"""Scoring: ROC / AUC kernels equal to scikit-learn, bootstrap intervals, resolution-rate tables,
and pooled tier-stratified drops over groups of submissions."""

from ..rescore_options import MIN_CLEAN, MIN_RESOLVED_CLEAN, RescoreOptions
from ..tier_schemes import ALL_TIER, HARD_TIER, MULTI_SWE_BENCH_TIERS, SWE_BENCH_VERIFIED_TIERS
from ._bootstrap import BootstrapInterval, DetectionMetrics, bootstrap_auc, detection_metrics, wilson_interval
from ._flag_scores import read_labels, score_flags
from ._pooled import POOLED_COLUMNS, mantel_haenszel_ratio
from ._power import MDE_SENTENCE, MdeConfig, minimum_detectable_drop
from ._rates import (
    LEADERBOARD_COLUMNS,
    TOO_FEW_CLEAN,
    ResolvedMatrix,
    bootstrap_draws,
    pooled_summary,
    rate_and_pool,
    rate_table,
    rescore,
)
from ._roc import (
    Rates,
    RocCurve,
    UndefinedMetricWarning,
    rates_at_threshold,
    roc_auc_score,
    roc_curve,
    tpr_at_fpr,
)
from ._strata import BootstrapDraws, draw_threads
from ._verdict_codes import NO_VERDICT, CodedVerdicts

__all__ = [
    "ALL_TIER",
    "BootstrapDraws",
    "BootstrapInterval",
    "CodedVerdicts",
    "DetectionMetrics",
    "HARD_TIER",
    "LEADERBOARD_COLUMNS",
    "MDE_SENTENCE",
    "MIN_CLEAN",
    "MIN_RESOLVED_CLEAN",
    "MULTI_SWE_BENCH_TIERS",
    "MdeConfig",
    "NO_VERDICT",
    "POOLED_COLUMNS",
    "Rates",
    "RescoreOptions",
    "ResolvedMatrix",
    "RocCurve",
    "SWE_BENCH_VERIFIED_TIERS",
    "TOO_FEW_CLEAN",
    "UndefinedMetricWarning",
    "bootstrap_auc",
    "bootstrap_draws",
    "detection_metrics",
    "draw_threads",
    "mantel_haenszel_ratio",
    "minimum_detectable_drop",
    "pooled_summary",
    "rate_and_pool",
    "rate_table",
    "rates_at_threshold",
    "read_labels",
    "rescore",
    "roc_auc_score",
    "roc_curve",
    "score_flags",
    "tpr_at_fpr",
    "wilson_interval",
]
