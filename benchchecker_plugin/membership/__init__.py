"""The controlled membership evaluation: Stage I vs logit baselines on a GPT-2 trained here."""

from ._corpus import CANDIDATE_PACKAGES, Corpus, Repo, build_corpus, folder_repo, package_repo
from ._evaluate import (
    MEMBERSHIP_FULL,
    MEMBERSHIP_QUICK,
    EvalConfig,
    method_metrics,
    run_membership,
    score_repos,
)
from ._local_lm import LocalCausalLM
from ._train import TrainConfig, Trained, train_gpt2

__all__ = [
    "CANDIDATE_PACKAGES",
    "Corpus",
    "EvalConfig",
    "LocalCausalLM",
    "MEMBERSHIP_FULL",
    "MEMBERSHIP_QUICK",
    "Repo",
    "TrainConfig",
    "Trained",
    "build_corpus",
    "folder_repo",
    "method_metrics",
    "package_repo",
    "run_membership",
    "score_repos",
    "train_gpt2",
]
