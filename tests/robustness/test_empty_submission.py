"""Issue 37: a run report with ``submitted_ids: []`` was rated over the tiers file's ids (every
instance counted as attempted and failed). SWE-bench lists in ``submitted_ids`` the instances it
had predictions for: an empty list is a run of nothing, refused with one line unless
``--instances`` names what to rate it over."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import ContaminationFlag, write_flags

IDS = [f"a__b-{i}" for i in range(30)]


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    run = tmp_path / "gpt-4o.run1.json"
    run.write_text(json.dumps({"resolved_ids": [], "submitted_ids": [], "model_name_or_path": "m"}))
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag("swe-bench-verified", iid, "m", "t", i % 3 == 0, 1.0)
        for i, iid in enumerate(IDS)])
    tiers = tmp_path / "tiers.jsonl"
    tiers.write_text("".join(json.dumps({"instance_id": i, "difficulty": "<15 min fix"}) + "\n"
                             for i in IDS))
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(IDS))
    return {"run": run, "flags": flags, "tiers": tiers, "ids": ids}


@pytest.mark.parametrize("command", [["rescore", "--results"], ["swebench", "rescore"]])
def test_an_empty_submission_is_refused(inputs: dict[str, Path], command: list[str]) -> None:
    res = CliRunner().invoke(main, [*command, str(inputs["run"]), "--flags", str(inputs["flags"]),
                                    "--tiers", str(inputs["tiers"]), "--model", "m",
                                    "--n-boot", "20"])
    assert res.exit_code == 2, res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert errors == [f"Error: {inputs['run']}: submitted_ids is empty: the run submitted no "
                      "instance, so there is nothing to rate (give --instances to rate it over a "
                      "list)"]


def test_with_instances_it_is_rated_over_them(inputs: dict[str, Path]) -> None:
    res = CliRunner().invoke(main, ["rescore", "--results", str(inputs["run"]), "--flags",
                                    str(inputs["flags"]), "--tiers", str(inputs["tiers"]),
                                    "--instances", str(inputs["ids"]), "--model", "m",
                                    "--n-boot", "20", "--json"])
    assert res.exit_code == 0, res.output
