"""Logit membership-inference baselines (loss, zlib, Min-K%, Min-K%++) from one forward pass."""

from ._logit import RepoLogitScores, baseline_flags, head, logit_scores, repo_logit_scores
from ._scores import METHODS, LogitScores, logit_scores_of, min_k, min_k_plus_plus

__all__ = [
    "LogitScores",
    "METHODS",
    "RepoLogitScores",
    "baseline_flags",
    "head",
    "logit_scores",
    "logit_scores_of",
    "min_k",
    "min_k_plus_plus",
    "repo_logit_scores",
]
