"""Issue 37: "an input is nested too deeply to read" did not say which input. The readers of a
run's results, tiers and metadata name their file; the last-resort line names the paths the
command was given."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import ContaminationFlag, write_flags

DEEP = "[" * 300_000 + "]" * 300_000


def _error(argv: list[str]) -> str:
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == 2, (res.output, res.exception)
    errors = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and "Traceback" not in res.output, res.output
    return errors[0]


def test_deep_inputs_name_their_file(tmp_path: Path) -> None:
    flags = write_flags(tmp_path / "flags.jsonl",
                        [ContaminationFlag("swe-bench-verified", "a__b-1", "m", "t", True, 1.0)])
    run = tmp_path / "run.json"
    tiers = tmp_path / "tiers.json"
    run.write_text(json.dumps({"resolved_ids": ["a__b-1"], "submitted_ids": ["a__b-1"]}))
    tiers.write_text(DEEP)
    argv = ["rescore", "--results", str(run), "--flags", str(flags), "--tiers", str(tiers),
            "--model", "m", "--n-boot", "20"]
    assert f"{tiers}: cannot read as json (nested too deeply)" in _error(argv)
    run.write_text(DEEP)
    assert f"{run}: malformed JSON (nested too deeply to read)" in _error(argv)
