"""Scoring: ROC / AUC kernels equal to scikit-learn, bootstrap intervals, resolution-rate tables,
and pooled tier-stratified drops over groups of submissions."""

from ..rescore_options import MIN_CLEAN, MIN_RESOLVED_CLEAN, RescoreOptions
from .bootstrap import BootstrapInterval, DetectionMetrics, bootstrap_auc, detection_metrics
from .flag_scores import read_labels, score_flags
from .pooled import POOLED_COLUMNS, mantel_haenszel_ratio
from .power import MDE_SENTENCE, MdeConfig, minimum_detectable_drop
from .rates import (
    ALL_TIER,
    HARD_TIER,
    LEADERBOARD_COLUMNS,
    MULTI_SWE_BENCH_TIERS,
    SWE_BENCH_VERIFIED_TIERS,
    ResolvedMatrix,
    pooled_summary,
    rate_and_pool,
    rate_table,
    rescore,
)
from .roc import (
    Rates,
    RocCurve,
    UndefinedMetricWarning,
    rates_at_threshold,
    roc_auc_score,
    roc_curve,
    tpr_at_fpr,
)

__all__ = [
    "ALL_TIER",
    "BootstrapInterval",
    "DetectionMetrics",
    "HARD_TIER",
    "LEADERBOARD_COLUMNS",
    "MDE_SENTENCE",
    "MIN_CLEAN",
    "MIN_RESOLVED_CLEAN",
    "MULTI_SWE_BENCH_TIERS",
    "MdeConfig",
    "POOLED_COLUMNS",
    "Rates",
    "RescoreOptions",
    "ResolvedMatrix",
    "RocCurve",
    "SWE_BENCH_VERIFIED_TIERS",
    "UndefinedMetricWarning",
    "bootstrap_auc",
    "detection_metrics",
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
]
