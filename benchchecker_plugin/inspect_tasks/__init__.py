"""Inspect tasks of benchchecker (imports ``inspect_ai``; the core package does not)."""

from .mmlu import mmlu_local
from .modelapi import BenchcheckerModelAPI, benchchecker_provider
from .scorer import PROBE_KEY, ts_guessing_scorer
from .tasks import (
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
    "ts_guessing_mmlu_multichoice",
    "ts_guessing_mmlu_question",
    "ts_guessing_scorer",
    "ts_guessing_task",
    "ts_guessing_truthfulqa_multichoice",
    "ts_guessing_truthfulqa_question",
]
