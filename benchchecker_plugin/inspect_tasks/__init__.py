"""Inspect tasks of benchchecker (imports ``inspect_ai``; the core package does not)."""

from ._mmlu import mmlu_local
from ._modelapi import BenchcheckerModelAPI, benchchecker_provider, provider_identity
from ._scorer import PROBE_KEY, ts_guessing_scorer
from ._tasks import (
                    ts_guessing_mmlu_multichoice,
                    ts_guessing_mmlu_question,
                    ts_guessing_task,
                    ts_guessing_truthfulqa_multichoice,
                    ts_guessing_truthfulqa_question,
)

__all__ = [
    "BenchcheckerModelAPI",
    "PROBE_KEY",
    "benchchecker_provider",
    "mmlu_local",
    "provider_identity",
    "ts_guessing_mmlu_multichoice",
    "ts_guessing_mmlu_question",
    "ts_guessing_scorer",
    "ts_guessing_task",
    "ts_guessing_truthfulqa_multichoice",
    "ts_guessing_truthfulqa_question",
]
