"""TS-Guessing (Deng et al. 2024): can a model fill in a hidden part of a benchmark item?

A model that reproduces a hidden *wrong* option of a multiple-choice question (multichoice mode),
or a hidden content word of the question (question mode), has probably seen the item. Modules:
``data`` (MMLU, TruthfulQA loaders and instance ids), ``filters`` (which items are usable),
``masking`` (what to hide), ``prompts`` (templates and hints), ``rules`` (per-benchmark wording
and probe rules, data in ``task_rules.yaml``), ``choices`` (any multiple-choice document, read from
what its task shows the model), ``scoring`` (EM, Rouge-L and thresholds), ``probes`` (item -> probe
-> flag) and ``guess`` (:func:`ts_guess` through the model layer); ``finetune`` and ``controlled``
(the controlled check: a small model trained on half of some items until verified to have
memorised them, then asked).
"""

from ._choices import answer_index, mc_item, option_texts
from ._controlled import (
    CONTROLLED,
    CONTROLLED_QUICK,
    ControlledConfig,
    ControlledResult,
    controlled_check,
    draw_probes,
    run_controlled,
)
from ._data import (
    BENCHMARKS,
    BenchmarkItem,
    load_items,
    load_mmlu,
    load_truthfulqa,
    text_sha1,
)
from ._filters import (
    SIMILARITY_THRESHOLD,
    DropReason,
    option_filter,
    option_in_question,
    question_filter,
    similar,
)
from ._finetune import FinetuneConfig, Finetuned, encode_examples, finetune, reproduced
from ._guess import DEFAULT_PARAMS, MAX_TOKENS, TSGuessResult, generation_params, run_probes, ts_guess
from ._masking import (
    MASK,
    MaskedOption,
    MaskedWord,
    content_key,
    content_words,
    mask_option,
    mask_word,
    select_options,
    stop_words,
)
from ._probes import Preparation, Probe, prepare_probes, probe_flag
from ._prompts import LETTERS, Mode, benchmark_hint, multichoice_prompt, question_prompt
from ._rules import TaskRules, task_rules
from ._sandbox import render_budgeted, sandboxed_environment
from ._scoring import (
    MULTICHOICE_THRESHOLD,
    GuessScore,
    clean_answer,
    exact_match,
    normalize,
    rouge_l_f1,
    score_guess,
)

__all__ = [
    "BENCHMARKS",
    "BenchmarkItem",
    "CONTROLLED",
    "CONTROLLED_QUICK",
    "ControlledConfig",
    "ControlledResult",
    "DEFAULT_PARAMS",
    "DropReason",
    "FinetuneConfig",
    "Finetuned",
    "GuessScore",
    "LETTERS",
    "MASK",
    "MAX_TOKENS",
    "MULTICHOICE_THRESHOLD",
    "MaskedOption",
    "MaskedWord",
    "Mode",
    "Preparation",
    "Probe",
    "SIMILARITY_THRESHOLD",
    "STOP_WORDS",
    "TSGuessResult",
    "TaskRules",
    "answer_index",
    "benchmark_hint",
    "clean_answer",
    "content_key",
    "content_words",
    "controlled_check",
    "draw_probes",
    "encode_examples",
    "exact_match",
    "finetune",
    "generation_params",
    "load_items",
    "load_mmlu",
    "load_truthfulqa",
    "mask_option",
    "mask_word",
    "mc_item",
    "multichoice_prompt",
    "normalize",
    "option_filter",
    "option_in_question",
    "option_texts",
    "prepare_probes",
    "probe_flag",
    "question_filter",
    "question_prompt",
    "render_budgeted",
    "reproduced",
    "rouge_l_f1",
    "run_controlled",
    "run_probes",
    "sandboxed_environment",
    "score_guess",
    "select_options",
    "similar",
    "stop_words",
    "task_rules",
    "text_sha1",
    "ts_guess",
]


def __getattr__(name: str) -> frozenset[str]:
    """``STOP_WORDS`` (:func:`stop_words`): scikit-learn is imported on first use, not with the package."""
    if name == "STOP_WORDS":
        return stop_words()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
