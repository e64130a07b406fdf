"""Per-benchmark wording and probe rules come from task_rules.yaml (issue 30)."""

from __future__ import annotations

from benchchecker_plugin.tsguessing import BenchmarkItem, benchmark_hint, task_rules


def test_published_setting_for_mmlu_and_truthfulqa_default_for_others() -> None:
    assert task_rules("mmlu").min_wrong == 3 and task_rules("mmlu").max_hidden_words == 0
    assert task_rules("truthfulqa").hint_fields == ("type", "category", "source")
    mine = task_rules("my_task")
    assert (mine.name, mine.min_wrong, mine.max_hidden_words) == ("my_task", 1, 24)
    assert task_rules("arc_easy").name == "ARC-Easy" and task_rules("arc_easy").min_wrong == 1


def test_hints_read_the_rules() -> None:
    item = BenchmarkItem("mmlu", "high_school_biology/0", "q", ("a", "b", "c", "d"), 0,
                         {"subject": "high_school_biology"})
    assert benchmark_hint(item) == ("This question is from the MMLU benchmark (subject: high "
                                    "school biology).\n")
    assert benchmark_hint(BenchmarkItem("hellaswag", "0", "q", ("a", "b"), 0)) == (
        "This question is from the HellaSwag benchmark.\n")
    assert benchmark_hint(BenchmarkItem("my_task", "0", "q", ("a", "b"), 0)) == (
        "This question is from the my_task benchmark.\n")
