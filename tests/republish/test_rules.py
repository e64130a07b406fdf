"""The republication's rules read from small cases: a submission's verdict over its models, the
repository of an instance id, explicit model families, the paper-vs-ours verdicts from the
interval, the plausible interval of a submission without a published cutoff, and the reason given
for each repository not covered."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.republish import repo_of, submission_verdict, verdict_against
from benchchecker_plugin.republish._cutoffs import band_dates
from benchchecker_plugin.republish._groups import groups_of
from benchchecker_plugin.republish._words import not_covered


def test_a_submission_verdict_combines_its_models() -> None:
    assert submission_verdict(["clean", "contaminated"]) == "contaminated"
    assert submission_verdict(["clean", "clean"]) == "clean"
    assert submission_verdict(["clean", "undecided"]) == "undecided"
    assert submission_verdict([]) == "undecided"
    assert repo_of("scikit-learn__scikit-learn-10297") == "scikit-learn/scikit-learn"
    assert repo_of("fasterxml__jackson-core-1016") == "fasterxml/jackson-core"
    with pytest.raises(DataError, match="instance id 'mmlu-17' is not owner__name-NUMBER"):
        repo_of("mmlu-17")


def test_model_families_are_explicit_lists_and_boards_pool() -> None:
    subs = pd.DataFrame({"submission": ["a", "b", "c", "d", "e", "f"],
                         "models": ["claude-4-sonnet-20250514", "claude-4-opus-20250514",
                                    "claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101",
                                    "claude-3-7-sonnet-20250219", "gpt-4o"],
                         "date": ["2025-05-20"] * 6, "resolved_of_500": [1, 2, 3, 4, 5, 6]})
    groups = groups_of(subs)
    assert groups["Claude 4 (Sonnet 4, Opus 4)"] == ["a", "b"]
    assert groups["Claude 4.5 (Sonnet 4.5, Opus 4.5)"] == ["c", "d"]
    assert groups["top 10 of the 6 scored submissions (by resolved of 500)"] == ["f", "e", "d", "c",
                                                                                  "b", "a"]
    boards = groups_of(subs.assign(board=["x", "x", "y", "y", "y", "x"],
                                   resolved_of_all=[1, 2, 3, 4, 5, 6]), "all")
    assert boards["board x"] == ["a", "b", "f"] and boards["all boards (pooled)"] == list("abcdef")
    assert "board x" not in groups


def test_paper_vs_ours_verdicts_come_from_the_interval() -> None:
    row = pd.Series({"drop_ci_low": -0.12, "drop_ci_high": 0.13})
    assert verdict_against(row, 0.052, 0.052).startswith("consistent")
    assert verdict_against(row, 0.20, 10.0).startswith("inconsistent")
    assert verdict_against(pd.Series({"drop_ci_low": float("nan"), "drop_ci_high": 0.1}),
                           0.08, 0.11).startswith("not testable")
    assert verdict_against(pd.Series({"drop_ci_low": 0.02, "drop_ci_high": 0.09}), 0.08,
                           0.11) == "consistent (our interval excludes 0 and meets the paper's)"


def test_a_band_runs_from_the_floor_to_the_submission_date_over_computed_snapshots() -> None:
    dates = ["2023-04-30", "2023-08-31", "2024-04-30", "2024-06-01", "2025-03-31"]
    assert band_dates(SimpleNamespace(date="2024-06-17"), dates, "2023-07-24") == ("2023-08-31", "2024-06-01")
    # no computed snapshot inside the interval: not scored (the caller says why)
    assert band_dates(SimpleNamespace(date="2023-08-01"), dates, "2023-07-24") is None


def test_the_page_gives_each_uncovered_repository_its_reason() -> None:
    facts = SimpleNamespace(missing_repos=["astropy/astropy", "sympy/sympy"], unfinished=["sympy/sympy"],
                            left_out_repos=["django/django", "pallets/flask"])
    assert not_covered(facts) == (  # type: ignore[arg-type]
        "astropy/astropy (no clone under --repos-dir); sympy/sympy (Stage II not run); "
        "django/django, pallets/flask (left out by --repos)")
    assert not_covered(SimpleNamespace(missing_repos=[], unfinished=[], left_out_repos=[])) == "none"  # type: ignore[arg-type]
