"""Input screening for a republished leaderboard: official counts, partial lists, capped cutoffs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchchecker_plugin.cutoff import CutoffPeriod
from benchchecker_plugin.errors import DataError
from benchchecker_plugin.leaderboard import (
    Submission,
    cap_cutoffs,
    load_experiments,
    official_percentages,
    screen_submissions,
)


def _sub(name: str, n: int, pct: float | None = None, partial: str = "", model: str = "m",
         date: str = "2024-01-01") -> Submission:
    return Submission(name=name, resolved=frozenset(f"i{k}" for k in range(n)), model=model,
                      date=date, official_pct=pct, partial=partial)


def test_a_count_off_by_more_than_2_percent_is_not_scored():
    subs = [_sub("ok", 100, 20.0), _sub("edge", 110, 20.0), _sub("off", 111, 20.0),
            _sub("broken", 51, 52.8), _sub("unknown", 7)]
    got = screen_submissions(subs, 500)
    assert [s.name for s in got.scored] == ["ok", "edge", "unknown"]
    assert [(s.name, why) for s, why in got.excluded] == [
        ("off", "111 resolved in its per-instance list, 100 (20%) on the official leaderboard: they "
                "differ by more than 2% of the 500 instances"),
        ("broken", "51 resolved in its per-instance list, 264 (52.8%) on the official leaderboard: "
                   "they differ by more than 2% of the 500 instances")]


def test_the_leaderboard_json_overrides_the_entry_and_untrusted_is_excluded(tmp_path: Path):
    path = tmp_path / "leaderboards.json"
    path.write_text(json.dumps({"leaderboards": [
        {"name": "Lite", "results": [{"folder": "a", "resolved": 1.0}]},
        {"name": "Verified", "results": [{"folder": "a", "resolved": 40.0}, {"folder": "b"}]}]}))
    official = official_percentages(path)
    assert official == {"a": 40.0}
    got = screen_submissions([_sub("a", 100, 20.0), _sub("b", 3)], 500, official=official,
                             untrusted={"b": "SOURCE.txt says so"})
    assert [s.name for s in got.scored] == []
    assert got.excluded[1][1] == "marked untrusted by its data: SOURCE.txt says so"
    with pytest.raises(DataError, match="no board named 'Full' \\(it has: Lite, Verified\\)"):
        official_percentages(path, board="Full")


def test_partial_lists_are_scored_and_marked():
    got = screen_submissions([_sub("p", 10, 2.0, partial="partial resolved list: 2 ambiguous")], 500)
    assert [s.name for s in got.scored] == ["p"] and got.marks == {"p": "partial resolved list: 2 ambiguous"}


def test_real_submissions_untrusted_and_partial(shared_data: Path):
    subs = load_experiments(shared_data / "swebench_experiments")
    official = official_percentages(shared_data / "swebench_leaderboard" / "leaderboards.json")
    got = screen_submissions(subs, 500, official=official)
    assert [s.name for s, _ in got.excluded] == ["20250720_mini-v0.0.0-claude-3-7-sonnet-20250219"]
    assert sorted(got.marks) == ["20241028_agentless-1.5_gpt4o",
                                 "20241202_agentless-1.5_claude-3.5-sonnet-20241022"]
    assert got.marks["20241028_agentless-1.5_gpt4o"].startswith(
        "partial resolved list: 11 ambiguous ids left out")


def test_a_year_cutoff_is_capped_at_the_earliest_submission():
    """claude-2's "Early 2023" read as all of 2023 put its snapshot after its own submission."""
    cutoffs = {"claude-2": CutoffPeriod.parse("2023"), "gpt-4": CutoffPeriod.parse("2023-04")}
    subs = [_sub("rag", 1, model="claude-2", date="2023-10-10"),
            _sub("later", 1, model="claude-2;gpt-4", date="2024-02-01"),
            _sub("undated", 1, model="claude-2", date="")]
    capped, notes = cap_cutoffs(cutoffs, subs)
    assert capped["claude-2"].last_moment.strftime("%Y-%m-%d") == "2023-10-10"
    assert capped["gpt-4"] is cutoffs["gpt-4"] and "gpt-4" not in notes
    assert notes["claude-2"] == ("cutoff '2023' (until 2023-12-31) capped at 2023-10-10, the date "
                                 "of its earliest submission: a model is not trained on data after "
                                 "a run that used it")
