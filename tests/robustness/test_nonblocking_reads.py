"""Issue 37: a FIFO where a ``report.json``, ``results.json``, flags, tiers, cutoffs or
``leaderboards.json`` is expected hung the command (``open`` waits for a writer); ``/dev/zero``
as the official counts never ended; ``NaN`` or ``1e308`` there was a traceback. Every reader of a
path we did not create now opens it through :func:`benchchecker_plugin.safe_io.open_input`: one
line naming the path and what it is."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import DataError
from benchchecker_plugin.flags import ContaminationFlag, write_flags
from benchchecker_plugin.safe_io import open_input, read_input_bytes, read_input_text

pytestmark = [pytest.mark.timeout(30),
              pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")]

IDS = [f"a__b-{i}" for i in range(30)]


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _error(argv: list[str]) -> str:
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == 2, (res.output, res.exception)
    errors = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and "Traceback" not in res.output, res.output
    return errors[0]


def test_open_input(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path / "report.json")
    with pytest.raises(DataError, match=r"report.json: is a FIFO \(named pipe\), not a regular file"):
        open_input(fifo)
    with pytest.raises(DataError, match="/dev/zero: is a character device, not a regular file"):
        read_input_bytes("/dev/zero")
    with pytest.raises(IsADirectoryError):
        open_input(tmp_path)
    with pytest.raises(FileNotFoundError):
        open_input(tmp_path / "missing")
    (tmp_path / "a.txt").write_bytes(b"x\r\ny")
    assert read_input_text(tmp_path / "a.txt") == "x\ny"
    with pytest.raises(DataError, match="a.txt: larger than 2 bytes"):
        read_input_bytes(tmp_path / "a.txt", limit=2)


@pytest.fixture
def board(tmp_path: Path) -> dict[str, Path]:
    sub = tmp_path / "verified" / "20240101_agent"
    (sub / "results").mkdir(parents=True)
    (sub / "results" / "results.json").write_text(json.dumps({"resolved": IDS[:12]}))
    (sub / "metadata.yaml").write_text("info:\n  name: Agent\ntags:\n  model: m\n")
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag("swe-bench-verified", iid, "m", "test", i % 3 == 0, 1.0)
        for i, iid in enumerate(IDS)])
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(IDS))
    tiers = tmp_path / "tiers.jsonl"
    tiers.write_text("".join(json.dumps({"instance_id": i, "difficulty": "<15 min fix"}) + "\n"
                             for i in IDS))
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"resolved_ids": IDS[:5], "submitted_ids": IDS}))
    return {"root": tmp_path / "verified", "sub": sub, "flags": flags, "ids": ids,
            "tiers": tiers, "run": run, "tmp": tmp_path}


def _leaderboard(b: dict[str, Path], *extra: str) -> list[str]:
    return ["leaderboard", "--submissions", str(b["root"]), "--flags", str(b["flags"]),
            "--instances", str(b["ids"]), "--n-boot", "20", "--out", str(b["tmp"] / "out"), *extra]


def _rescore(b: dict[str, Path], **over: Path) -> list[str]:
    paths = {"results": b["run"], "flags": b["flags"], "tiers": b["tiers"], **over}
    return ["rescore", "--results", str(paths["results"]), "--flags", str(paths["flags"]),
            "--tiers", str(paths["tiers"]), "--model", "m", "--n-boot", "20"]


FIFO = "is a FIFO (named pipe), not a regular file"


def test_fifo_results_json_in_a_submission(board: dict[str, Path]) -> None:
    results = board["sub"] / "results" / "results.json"
    results.unlink()
    _fifo(results)
    assert f"{results}: {FIFO}" in _error(_leaderboard(board))


@pytest.mark.parametrize("which", ["results", "flags", "tiers"])
def test_fifo_inputs_of_rescore(board: dict[str, Path], which: str) -> None:
    fifo = _fifo(board["tmp"] / f"fifo-{which}.json")
    if which == "flags":
        fifo = fifo.rename(fifo.with_suffix(".jsonl"))
    assert f"{fifo}: {FIFO}" in _error(_rescore(board, **{which: fifo}))


def test_fifo_flags_file(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path / "flags.jsonl")
    for argv in (["flags", "validate", str(fifo)], ["flags", "show", str(fifo)]):
        assert f"{fifo}: {FIFO}" in _error(argv)


def test_fifo_flags_file_in_a_folder(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path / "flags" / "a.jsonl")
    assert f"{fifo}: {FIFO}" in _error(["flags", "validate", str(fifo.parent)])


def test_fifo_metadata_yaml(board: dict[str, Path]) -> None:
    yml = board["sub"] / "metadata.yaml"
    yml.unlink()
    _fifo(yml)
    assert f"{yml}: {FIFO}" in _error(_leaderboard(board))


def test_fifo_cutoffs(tmp_path: Path) -> None:
    inst = tmp_path / "instances.jsonl"
    inst.write_text(json.dumps({"instance_id": "a__b-1", "repo": "a/b", "base_commit": "0" * 40,
                                "patch": "", "created_at": "2023-01-01T00:00:00Z"}) + "\n")
    fifo = _fifo(tmp_path / "cutoffs.json")
    line = _error(["flags", "patch-dates", str(inst), "--cutoffs", str(fifo), "-o",
                   str(tmp_path / "o.jsonl")])
    assert f"{fifo}: {FIFO}" in line


@pytest.mark.parametrize("what", ["fifo", "/dev/zero"])
def test_official_counts_that_never_end(board: dict[str, Path], what: str) -> None:
    official = str(_fifo(board["tmp"] / "leaderboards.json")) if what == "fifo" else what
    line = _error(_leaderboard(board, "--official", official))
    assert f"{official}: is a" in line and "not a regular file" in line


@pytest.mark.parametrize("value", ["NaN", "1e308", "-Infinity", '"40"', "101"])
def test_official_counts_that_are_no_percentage(board: dict[str, Path], value: str) -> None:
    official = board["tmp"] / "leaderboards.json"
    official.write_text('{"leaderboards": [{"name": "Verified", "results": [{"folder": '
                        f'"20240101_agent", "resolved": {value}}}]}}]}}')
    line = _error(_leaderboard(board, "--official", str(official)))
    assert f"{official}: leaderboards[0].results[0].resolved:" in line


@pytest.mark.parametrize("value", ["NaN", "1e308"])
def test_a_submission_entry_that_is_no_percentage(board: dict[str, Path], value: str) -> None:
    entry = board["sub"] / "leaderboard_entry.json"
    entry.write_text('{"name": "Agent", "resolved": ' + value + "}")
    assert f"{entry}: field 'resolved':" in _error(_leaderboard(board))


def test_fifo_report_json_in_instance_logs_is_refused_not_counted_unresolved(board: dict[str, Path]) -> None:
    logs = board["tmp"] / "logs" / "run_evaluation" / "r1" / "m"
    (logs / IDS[0]).mkdir(parents=True)
    (logs / IDS[0] / "report.json").write_text(json.dumps({IDS[0]: {"resolved": True}}))
    fifo = _fifo(logs / IDS[1] / "report.json")
    line = _error(_rescore(board, results=board["tmp"] / "logs"))
    assert line == (f"Error: {fifo}: {FIFO}; refused (a harness writes each instance's report.json as "
                    "a file)")


@pytest.mark.parametrize("command", ["ts-guess", "overlap", "lm-eval run", "lm-eval run --contamination-detect"])
def test_a_fifo_named_yaml_in_include_path_is_refused_not_waited_on(tmp_path: Path, command: str) -> None:
    """lm-eval's task index opens every *.yaml under --include_path: a FIFO there made task
    loading wait forever."""
    from tests.helpers.mc_tasks import write_lm_eval_tasks

    tasks = write_lm_eval_tasks(tmp_path / "tasks")
    fifo = _fifo(tasks / "sub" / "evil.yaml")
    dry = ["--model", "openai-compatible/m", "--base-url", "http://127.0.0.1:9/v1", "--no-cache", "--dry-run"]
    argv = {"ts-guess": ["ts-guess", "--task", "arc_local", "--include_path", str(tasks), *dry],
            "overlap": ["overlap", "--task", "arc_local", "--include_path", str(tasks), "--corpus",
                        str(tasks / "arc.jsonl"), "-o", str(tmp_path / "o.jsonl")],
            "lm-eval run": ["lm-eval", "run", "--model", "hf", "--model_args", "pretrained=never-loaded",
                            "--tasks", "arc_local", "--include_path", str(tasks)],
            "lm-eval run --contamination-detect": [
                "lm-eval", "run", "--model", "hf", "--model_args", "pretrained=never-loaded", "--tasks",
                "arc_local", "--include_path", str(tasks), "--output_path", str(tmp_path / "out"),
                "--contamination-detect", "--dry-run"]}[command]
    assert _error(argv) == (f"Error: --include_path {tasks}: {fifo} is {FIFO[3:]}; refused (lm-eval reads "
                            "every *.yaml there and would wait on it)")
