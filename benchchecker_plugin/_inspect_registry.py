"""The ``inspect_ai`` entry point of benchchecker (``[project.entry-points.inspect_ai]``).

Importing it registers the TS-Guessing tasks (``benchchecker_plugin/ts_guessing_mmlu_multichoice``,
``..._mmlu_question``, ``..._truthfulqa_multichoice``, ``..._truthfulqa_question``) and the model
provider ``benchchecker/<SPEC>``, and ``benchchecker_plugin/mmlu_local`` (MMLU zero-shot from local
CSV files). Inspect prefixes registered names with the package name only
when the distribution name equals the import name (both are ``benchchecker_plugin``).
"""

from .inspect_tasks import (
                            benchchecker_provider,
                            mmlu_local,
                            ts_guessing_mmlu_multichoice,
                            ts_guessing_mmlu_question,
                            ts_guessing_scorer,
                            ts_guessing_truthfulqa_multichoice,
                            ts_guessing_truthfulqa_question,
)

__all__ = [
    "benchchecker_provider",
    "mmlu_local",
    "ts_guessing_mmlu_multichoice",
    "ts_guessing_mmlu_question",
    "ts_guessing_scorer",
    "ts_guessing_truthfulqa_multichoice",
    "ts_guessing_truthfulqa_question",
]
