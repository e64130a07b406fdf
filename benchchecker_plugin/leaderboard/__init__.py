"""Leaderboard and harness results: loaders per format, the instance list, tiers, model mapping,
and the pipelines that re-score one run or a whole leaderboard."""

from ..rescore_options import MIN_CLEAN, MIN_RESOLVED_CLEAN
from ..tier_schemes import MSB_TIER_OF_TIME
from ._harness_logs import lm_eval_run_model, load_inspect_log, load_lm_eval_samples
from ._hygiene import Screened, cap_cutoffs, official_percentages, screen_submissions
from ._load import RESULTS_FORMATS, detect_format, load_submissions
from ._model_map import apply_model_map, read_model_map, submission_verdicts, verdicts_by_submission
from ._multi_swe_bench import load_final_report, load_multi_swe_bench_results, msb_instance_id
from ._pipeline import (
    Rescored,
    build_leaderboard,
    rate_submissions,
    refuse_empty_submission,
    rescore_run,
    summary_groups,
    write_leaderboard,
)
from ._submission import Submission
from ._swebench import load_experiments, load_instance_logs, load_run_report
from ._tiers import load_instance_ids, load_tiers

__all__ = [
    "MIN_CLEAN",
    "MIN_RESOLVED_CLEAN",
    "MSB_TIER_OF_TIME",
    "RESULTS_FORMATS",
    "Rescored",
    "Screened",
    "Submission",
    "apply_model_map",
    "build_leaderboard",
    "cap_cutoffs",
    "detect_format",
    "lm_eval_run_model",
    "load_experiments",
    "load_final_report",
    "load_inspect_log",
    "load_instance_ids",
    "load_instance_logs",
    "load_lm_eval_samples",
    "load_multi_swe_bench_results",
    "load_run_report",
    "load_submissions",
    "load_tiers",
    "msb_instance_id",
    "official_percentages",
    "rate_submissions",
    "read_model_map",
    "refuse_empty_submission",
    "rescore_run",
    "screen_submissions",
    "submission_verdicts",
    "summary_groups",
    "verdicts_by_submission",
    "write_leaderboard",
]
