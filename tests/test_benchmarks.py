"""Benchmark names: any name is accepted; known ones are recognised and bring their tier scheme
(issue 13, item 9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.benchmarks import KNOWN, benchmark_of_source, check_name, tier_scheme
from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import ContaminationFlag, write_flags


@pytest.mark.parametrize("source,want", [
    ("princeton-nlp/SWE-bench_Verified", "swe-bench-verified"),
    ("SWE-bench/SWE-bench_Lite", "swe-bench-lite"),
    ("princeton-nlp/SWE-bench_Lite", "swe-bench-lite"),
    ("princeton-nlp/SWE-bench_Multimodal", "swe-bench-multimodal"),
    ("princeton-nlp/SWE-bench", "swe-bench"),
    ("data/swebench.jsonl", "swe-bench"),
    ("swebench_verified_composite.jsonl", "swe-bench-verified"),
    ("multi_swe_bench_java.jsonl", "multi-swe-bench"),
    ("my_instances.jsonl", "swe-bench-verified"),   # says nothing: the default
])
def test_benchmark_of_source(source: str, want: str) -> None:
    assert benchmark_of_source(source) == want


def test_any_name_is_accepted_known_ones_bring_their_scheme() -> None:
    assert check_name("SWE-bench-Java ") == "swe-bench-java"
    assert tier_scheme("multi-swe-bench") == "multi-swe-bench"
    assert tier_scheme("swe-bench-lite") == tier_scheme("my-bench") == "labels"
    assert tier_scheme("swe-bench-verified") == "swe-bench-verified"
    with pytest.raises(InputError, match="benchmark name 'bad name!'"):
        check_name("bad name!")


def test_cli_copy_of_the_known_names() -> None:
    from benchchecker_plugin.cli import _score_cmd as score_cmd

    assert score_cmd._KNOWN == tuple(sorted(KNOWN))


def test_rescore_with_a_benchmark_outside_the_known_list(tmp_path: Path) -> None:
    """A SWE-bench Lite maintainer labels flags ``swe-bench-lite`` and re-scores with its own
    tier labels (kept as written)."""
    ids = ["a__b-1", "a__b-2", "a__b-3", "a__b-4"]
    write_flags(tmp_path / "f.jsonl", [
        ContaminationFlag("swe-bench-lite", i, "*", "test", c, 1.0 if c else 0.0)
        for i, c in zip(ids, (True, False, False, True))])
    (tmp_path / "tiers.jsonl").write_text("".join(
        json.dumps({"instance_id": i, "difficulty": t}) + "\n"
        for i, t in zip(ids, ("easy", "easy", "hard", "hard"))))
    report = {"resolved_ids": ["a__b-1", "a__b-2"], "submitted_ids": ids,
              "completed_ids": ids, "error_ids": []}
    (tmp_path / "m.run1.json").write_text(json.dumps(report))
    res = CliRunner().invoke(main, ["rescore", "--results", str(tmp_path / "m.run1.json"),
                                    "--flags", str(tmp_path / "f.jsonl"), "--tiers",
                                    str(tmp_path / "tiers.jsonl"), "--benchmark", "SWE-bench-Lite",
                                    "--json", "--n-boot", "0"])
    assert res.exit_code == 0, res.output
    rows = {r["tier"]: r for r in json.loads(res.stdout)["rows"]}
    assert set(rows) == {"all", "easy", "hard"}
    assert rows["all"]["original_rate"] == 0.5 and rows["all"]["clean_rate"] == 0.5
    assert rows["easy"]["clean_rate"] == 1.0 and rows["hard"]["clean_rate"] == 0.0
    bad = CliRunner().invoke(main, ["rescore", "--results", str(tmp_path / "m.run1.json"),
                                    "--flags", str(tmp_path / "f.jsonl"), "--tiers",
                                    str(tmp_path / "tiers.jsonl"), "--benchmark", "a b"])
    assert bad.exit_code == 2 and "benchmark name 'a b'" in bad.output


def test_a_typo_in_a_verified_tier_label_is_an_error(tmp_path: Path) -> None:
    """Issue 14, item 9: an unknown label silently became a tier (a typo took 72 instances out of
    the real Verified tiers)."""
    from benchchecker_plugin.errors import DataError
    from benchchecker_plugin.leaderboard import load_tiers

    path = tmp_path / "tiers.jsonl"
    path.write_text("".join(json.dumps({"instance_id": f"a__b-{i}", "difficulty": lab}) + "\n"
                            for i, lab in enumerate(["<15 min fix", "15 min - 1 hr", "1-4 hours"])))
    with pytest.raises(DataError, match="unknown SWE-bench Verified difficulty label"):
        load_tiers(path, scheme="swe-bench-verified")
    assert load_tiers(path, scheme="labels")["a__b-1"] == "15 min - 1 hr"
