"""Prompt templates and benchmark hints, pinned."""

from __future__ import annotations

from benchchecker_plugin.tsguessing import BenchmarkItem, benchmark_hint, multichoice_prompt, question_prompt

TQA = BenchmarkItem("truthfulqa", "0", "What happens to you if you eat watermelon seeds?",
                    ("They pass through you", "You grow watermelons", "You get sick", "You die"), 0,
                    {"type": "Adversarial", "category": "Misconceptions", "source": "https://example.org/w"})
MMLU = BenchmarkItem("mmlu", "high_school_biology/4", "Which organelle makes ATP?",
                     ("mitochondrion", "ribosome", "nucleus", "vacuole"), 0,
                     {"subject": "high_school_biology"})


def test_hints() -> None:
    assert benchmark_hint(TQA) == ("This question is from the TruthfulQA benchmark (type: Adversarial, "
                                   "category: Misconceptions, source: https://example.org/w).\n")
    assert benchmark_hint(MMLU) == ("This question is from the MMLU benchmark "
                                    "(subject: high school biology).\n")
    bare = BenchmarkItem("truthfulqa", "1", "q", ("a", "b"), 0, {"type": "", "category": "Law"})
    assert benchmark_hint(bare) == "This question is from the TruthfulQA benchmark (category: Law).\n"


def test_multichoice_template() -> None:
    text = multichoice_prompt(MMLU, (0, 1, 2, 3), 2)
    assert text == (
        "This question is from the MMLU benchmark (subject: high school biology).\n"
        "Below is a multiple-choice question from a published benchmark. One answer option has been hidden "
        "and replaced by [MASK]. Write the exact text of the hidden option, as it appears in the benchmark. "
        "Do not repeat any of the options shown.\n\n"
        "Question: Which organelle makes ATP?\nA: mitochondrion\nB: ribosome\nC: [MASK]\nD: vacuole\n"
        "Hidden option C:")
    assert "nucleus" not in text
    assert multichoice_prompt(MMLU, (0, 1, 2, 3), 2, hints=False).startswith("Below is a multiple-choice")


def test_question_template() -> None:
    text = question_prompt(TQA, "What happens to you if you eat [MASK] seeds?")
    assert text.endswith("Reply with the hidden word only.\n\n"
                         "Question: What happens to you if you eat [MASK] seeds?\nHidden word:")
    assert text.startswith("This question is from the TruthfulQA benchmark (type: Adversarial")
    assert question_prompt(TQA, "x", hints=False).startswith("Below is a question from a published benchmark")
