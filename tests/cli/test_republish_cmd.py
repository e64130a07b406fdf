"""``benchchecker republish``: a board in the experiments layout republished and rebuilt through the
command, per-board options parsed once, each wrong input one line (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.cli._republish_cmd import _FILES, per_board
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.republish import BUNDLE_FILES, PAGE_FILES
from tests.helpers.boards import write_board, write_flags_for, write_models

IDS = [f"own__alpha-{k}" for k in range(1, 25)]


def test_the_files_the_command_names_are_the_bundles_and_the_pages() -> None:
    assert _FILES == BUNDLE_FILES + PAGE_FILES


def test_per_board_values() -> None:
    assert per_board(["a=x.csv", "b=y.csv"], ["a", "b"], "--tiers") == {"a": "x.csv", "b": "y.csv"}
    assert per_board(["x.csv"], ["a", "b"], "--tiers") == {"a": "x.csv", "b": "x.csv"}
    with pytest.raises(InputError, match=r"--tiers c=x.csv: no board named 'c' \(boards: a, b\)"):
        per_board(["c=x.csv"], ["a", "b"], "--tiers")
    with pytest.raises(InputError, match="--tiers: board a given twice"):
        per_board(["a=x.csv", "x.csv"], ["a", "b"], "--tiers")


def test_republish_then_rebuild_in_place_through_the_command(tmp_path: Path) -> None:
    folder, instances = write_board(tmp_path, IDS, {"20240110_a": 0.5, "20240620_b": 0.5},
                                    layout="evaluation", split="verified")
    model_map, cutoffs = write_models(tmp_path, {"20240110_a": "m1", "20240620_b": "m2"},
                                      {"m1": "2023-06", "m2": "2024-01"})
    flags = write_flags_for(tmp_path / "flags.jsonl", IDS, ["m1", "m2"])
    out = tmp_path / "out"
    args = ["republish", "--board", f"verified={folder}", "--instances", str(instances),
            "--model-map", str(model_map), "--cutoffs", str(cutoffs), "--flags", str(flags),
            "--resamples", "40", "--mde-sims", "0", "--min-clean", "3", "--out", str(out)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert "24 instances x 2 cutoffs: 48 Stage II flags read from flags.jsonl" in res.output
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    res = CliRunner().invoke(main, ["republish", "--rebuild", str(out)])
    assert res.exit_code == 0, res.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    facts = (out / "build.json").read_text()
    assert "--board verified=<experiments> --instances <instances.jsonl>" in facts   # paths shortened
    res = CliRunner().invoke(main, ["republish", "--rebuild", str(out), "--out", str(out)])
    assert res.exit_code == 2 and "is the input" in res.stderr


@pytest.mark.parametrize(("args", "says"), [
    ([], "give at least one --board NAME=FOLDER"),
    (["--board", "v"], "--board v: expected NAME=FOLDER"),
    (["--board", "v=.", "--board", "v=."], "--board v: given twice"),
    (["--board", "v=."], "give exactly one source of verdicts"),
])
def test_each_wrong_input_is_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    res = CliRunner().invoke(main, ["republish", *args, "--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    assert says in res.stderr and "Traceback" not in res.stderr
