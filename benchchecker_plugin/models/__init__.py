"""Model access: the only place that talks to a model."""

from .base import Completion, GenerationParams, LogprobModel, TextModel, TokenScores
from .executor import Executor, ItemResult, LocalExecutor, get_executor

__all__ = [
    "Completion",
    "Executor",
    "GenerationParams",
    "ItemResult",
    "LocalExecutor",
    "LogprobModel",
    "TextModel",
    "TokenScores",
    "get_executor",
]
