"""Leaderboard and harness results: loaders per format, the instance list, tiers, model mapping,
and the pipelines that re-score one run or a whole leaderboard."""

from .harness_logs import load_inspect_log, load_lm_eval_samples
from .hygiene import Screened, cap_cutoffs, official_percentages, screen_submissions
from .load import FORMATS, detect_format, load_submissions
from .model_map import apply_model_map, read_model_map, submission_verdicts, verdicts_by_submission
from .multi_swe_bench import load_final_report, load_multi_swe_bench, msb_instance_id
from .pipeline import (
    MIN_CLEAN,
    MIN_RESOLVED_CLEAN,
    Rescored,
    build_leaderboard,
    rate_submissions,
    rescore_run,
    summary_groups,
    write_leaderboard,
)
from .submission import Submission
from .swebench import load_experiments, load_instance_logs, load_run_report
from .tiers import MSB_TIER_OF_TIME, load_instance_ids, load_tiers

__all__ = [
    "FORMATS",
    "MIN_CLEAN",
    "MIN_RESOLVED_CLEAN",
    "MSB_TIER_OF_TIME",
    "Rescored",
    "Screened",
    "Submission",
    "apply_model_map",
    "build_leaderboard",
    "cap_cutoffs",
    "detect_format",
    "load_experiments",
    "load_final_report",
    "load_inspect_log",
    "load_instance_ids",
    "load_instance_logs",
    "load_lm_eval_samples",
    "load_multi_swe_bench",
    "load_run_report",
    "load_submissions",
    "load_tiers",
    "msb_instance_id",
    "official_percentages",
    "rate_submissions",
    "read_model_map",
    "rescore_run",
    "screen_submissions",
    "submission_verdicts",
    "summary_groups",
    "verdicts_by_submission",
    "write_leaderboard",
]
