"""Issue 27: the leaderboard's inputs and outputs. ``--out`` into a submission folder overwrote
its README.md; one results file was named "results"; a run killed mid-write left files of two
runs side by side."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.atomic import atomic_file_set
from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import ContaminationFlag, write_flags
from benchchecker_plugin.leaderboard import load_submissions
from benchchecker_plugin.report import HtmlPage

IDS = [f"a__b-{i}" for i in range(30)]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def board(tmp_path: Path) -> dict[str, Path]:
    """An experiments folder with one submission (results, metadata, its own README.md) and flags."""
    sub = tmp_path / "verified" / "20240101_agent"
    (sub / "results").mkdir(parents=True)
    (sub / "results" / "results.json").write_text(json.dumps({"resolved": IDS[:12]}))
    (sub / "metadata.yaml").write_text("info:\n  name: Agent\ntags:\n  model: m\n")
    (sub / "README.md").write_text("# Agent: how the submission was made\n")
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag("swe-bench-verified", iid, "m", "test", i % 3 == 0, 1.0)
        for i, iid in enumerate(IDS)])
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(IDS))
    return {"root": tmp_path / "verified", "sub": sub, "flags": flags, "ids": ids}


def _argv(board: dict[str, Path], submissions: Path, out: Path) -> list[str]:
    return ["leaderboard", "--submissions", str(submissions), "--flags", str(board["flags"]),
            "--instances", str(board["ids"]), "--n-boot", "20", "--out", str(out)]


@pytest.mark.parametrize("which", ["results/results.json", "results", "."])
def test_one_submission_is_named_after_its_folder(board: dict[str, Path], which: str) -> None:
    subs = load_submissions(board["sub"] / which)
    assert [(s.name, s.model, s.display_name) for s in subs] == [("20240101_agent", "m", "Agent")]


def test_a_lone_results_json_run_report_is_named_after_its_folder(tmp_path: Path) -> None:
    run = tmp_path / "my_run"
    run.mkdir()
    (run / "results.json").write_text(json.dumps({"resolved_ids": IDS[:3]}))
    (tmp_path / "gpt-4.run1.json").write_text(json.dumps({"resolved_ids": IDS[:3]}))
    assert [(s.name, s.model) for s in load_submissions(run / "results.json")] == [("my_run", "")]
    assert [(s.name, s.model) for s in load_submissions(tmp_path / "gpt-4.run1.json")] == [
        ("gpt-4.run1", "gpt-4")]


def _refused(argv: list[str], *inputs: Path, expect: str) -> None:
    before = {p: _sha(p) for p in inputs}
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == 2, (res.output, res.exception)
    errors = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and expect in errors[0], res.output
    assert {p: _sha(p) for p in inputs} == before


def test_out_inside_the_submissions_is_refused(board: dict[str, Path]) -> None:
    readme = board["sub"] / "README.md"
    _refused(_argv(board, board["root"], board["sub"]), readme,
             expect=f"--out {board['sub']}: is inside the input folder {board['root']}")
    _refused(_argv(board, board["root"], board["sub"] / "published"), readme,
             expect=f"--out {board['sub'] / 'published'}: is inside the input folder {board['root']}")
    assert sorted(p.name for p in board["sub"].iterdir()) == ["README.md", "metadata.yaml", "results"]


@pytest.mark.parametrize("name", ["leaderboard.csv", "summary.csv", "leaderboard.md", "README.md",
                                  "index.html"])
def test_out_never_overwrites_an_input_it_holds(board: dict[str, Path], tmp_path: Path, name: str) -> None:
    """Every file the leaderboard writes is checked, not only the folder: an input the folder
    holds under one of those names is refused (here a model map named like an output)."""
    out = tmp_path / "published"
    out.mkdir()
    model_map = out / name
    model_map.write_text("submission,model\n20240101_agent,m\n")
    _refused([*_argv(board, board["root"], out), "--model-map", str(model_map)], model_map,
             expect=f"--out {out / name}: is the input {model_map}")


def test_out_holding_inputs_it_does_not_overwrite_is_fine(board: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "published"
    out.mkdir()
    flags = out / "flags.jsonl"
    flags.write_bytes(board["flags"].read_bytes())
    before = _sha(flags)
    res = CliRunner().invoke(main, [*_argv(board, board["root"], out)[:-4], "--flags", str(flags),
                                    "--n-boot", "20", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert _sha(flags) == before
    written = sorted(p.name for p in out.iterdir())
    assert written == ["README.md", "flags.jsonl", "index.html", "leaderboard.csv", "leaderboard.md",
                       "summary.csv"]


def test_the_cli_declares_every_file_the_report_writes() -> None:
    from benchchecker_plugin.cli._score_cmd import _LEADERBOARD_FILES
    from benchchecker_plugin.report._leaderboard import LEADERBOARD_FILES

    assert _LEADERBOARD_FILES == LEADERBOARD_FILES


def _set(folder: Path) -> dict[str, str]:
    """Each file's hash; the page's without its plots (matplotlib's SVG holds a date, random ids)."""
    return {p.name: hashlib.sha256(re.sub(r"<svg.*?</svg>", "", p.read_text(), flags=re.S).encode())
            .hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _killed_while(argv: list[str], when: str) -> None:
    """Run the leaderboard in a child process that dies (``os._exit``, no cleanup: as SIGKILL)
    while writing the page (``"rendering"``) or after two files of the set moved into place
    (``"renaming"``)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            if when == "rendering":
                HtmlPage.write = lambda self, path: os._exit(9)  # type: ignore[method-assign]
            else:
                moved, real = [], os.replace

                def replace(src: object, dst: object) -> None:
                    staged = [Path(str(p)).parent.name.startswith(".leaderboard.staging-")
                              for p in (src, dst)]
                    if staged == [True, False]:   # a file of the set moving into place
                        moved.append(dst)
                        if len(moved) > 2:
                            os._exit(9)
                    real(src, dst)   # type: ignore[arg-type]
                os.replace = replace  # type: ignore[assignment]
            CliRunner().invoke(main, argv)
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 9


@pytest.mark.parametrize("when", ["rendering", "renaming"])
def test_a_leaderboard_killed_while_writing_never_mixes_two_runs(
        board: dict[str, Path], tmp_path: Path, when: str) -> None:
    out, ref = tmp_path / "published", tmp_path / "reference"
    assert CliRunner().invoke(main, _argv(board, board["root"], out)).exit_code == 0
    old = _set(out)
    write_flags(board["flags"], [ContaminationFlag("swe-bench-verified", iid, "m", "test", False, 1.0)
                                 for iid in IDS])   # new flags: every file of the set changes
    assert CliRunner().invoke(main, _argv(board, board["root"], ref)).exit_code == 0
    new = _set(ref)
    assert all(old[name] != new[name] for name in new if name != "README.md")
    _killed_while(_argv(board, board["root"], out), when)
    now = _set(out)
    if when == "rendering":   # not committed: the old set, whole
        assert now == old
    else:                     # committed, cut mid-rename: marked, and finished by the next write
        assert (out / ".leaderboard.commit").is_file() and now != old
        with pytest.raises(RuntimeError), atomic_file_set(out, tag="leaderboard"):
            raise RuntimeError("a later run that fails")
        assert _set(out) == new
    assert CliRunner().invoke(main, _argv(board, board["root"], out)).exit_code == 0
    assert _set(out) == new and sorted(p.name for p in out.iterdir()) == sorted(new)


def test_a_resolved_id_outside_the_instances_is_noted_by_submission(board: dict[str, Path],
                                                                   tmp_path: Path) -> None:
    """A submission resolving an id that --instances lacks (a typo, another benchmark's id): not
    counted, and the note in the output and the report names the submission and the id."""
    (board["sub"] / "results" / "results.json").write_text(json.dumps({"resolved": [*IDS[:3], "zz__typo-1"]}))
    res = CliRunner().invoke(main, _argv(board, board["root"], tmp_path / "out"))
    assert res.exit_code == 0, res.output
    note = (f"Rated on the subset {board['ids']} (30 instances, the denominator): 1 resolved (submission, "
            "instance) pairs outside it are not counted (20240101_agent: zz__typo-1).")
    assert f"note: {note}" in res.output
    assert f"- {note}" in (tmp_path / "out" / "leaderboard.md").read_text()
