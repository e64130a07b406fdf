"""Issue 14, item 3: an output path equal to an input path destroyed the input with exit 0.

Each case runs the command as a user would, with the output pointed at one of its inputs (by the
same path or through a symlink); it must end in one line naming both, exit 2, and leave every
input byte-identical (hashes before and after). Issue 31: every command that writes is a case
(walked from the CLI itself, so a new writing command without a case fails here), and the check is
not opt-in (one place: the CLI's command loader)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.cli._outputs import OUTPUT_PARAMS
from benchchecker_plugin.flags import ContaminationFlag, write_flags


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag("swe-bench-verified", "a__b-1", "*", "test", True, 1.0),
        ContaminationFlag("swe-bench-verified", "a__b-2", "*", "test", False, 0.0)])
    report = tmp_path / "m.run1.json"
    report.write_text(json.dumps({"resolved_ids": ["a__b-1"], "submitted_ids": ["a__b-1", "a__b-2"]}))
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(["a__b-1", "a__b-2"]))
    instances = tmp_path / "instances.jsonl"
    instances.write_text(json.dumps({"instance_id": "a__b-1", "repo": "a/b", "base_commit": "0" * 40,
                                     "patch": "", "created_at": "2023-01-01T00:00:00Z"}) + "\n")
    (tmp_path / "repos").mkdir()
    (tmp_path / "repos" / "a.py").write_text("x = 1\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(flags)
    cutoffs = tmp_path / "cutoffs.json"
    cutoffs.write_text(json.dumps({"m": "2024-01-01"}))
    return {"flags": flags, "report": report, "ids": ids, "instances": instances,
            "repos": tmp_path / "repos", "link": link, "cutoffs": cutoffs}


CASES = {
    "flags merge F -o F": (["flags", "merge", "{flags}", "-o", "{flags}"], "flags"),
    "flags merge F -o link-to-F": (["flags", "merge", "{flags}", "-o", "{link}"], "flags"),
    "rescore --out over the flags": (["rescore", "--results", "{report}", "--flags", "{flags}",
                                      "--instances", "{ids}", "--out", "{flags}"], "flags"),
    "rescore --out over the results": (["rescore", "--results", "{report}", "--flags", "{flags}",
                                        "--instances", "{ids}", "--out", "{report}"], "report"),
    "patch-presence -o over the instances": (["patch-presence", "--instances", "{instances}",
                                              "--repos-dir", "{repos}", "--cutoff", "2024-01-01",
                                              "-o", "{instances}"], "instances"),
    "patch-presence -o over the cutoffs": (["patch-presence", "--instances", "{instances}",
                                            "--repos-dir", "{repos}", "--cutoffs", "{cutoffs}",
                                            "-o", "{cutoffs}"], "cutoffs"),
    "flags patch-dates -o over the instances": (["flags", "patch-dates", "{instances}", "--cutoffs",
                                                 "{cutoffs}", "-o", "{instances}"], "instances"),
    "flags from-lm-eval -o over the samples": (["flags", "from-lm-eval", "{flags}", "-o", "{flags}"],
                                               "flags"),
    "flags from-inspect -o over the log": (["flags", "from-inspect", "{flags}", "-o", "{link}"], "flags"),
    "ts-guess -o over the data": (["ts-guess", "--benchmark", "truthfulqa", "--dry-run", "--data", "{flags}",
                                   "-o", "{flags}"], "flags"),
    "repo-presence -o over the instances": (["repo-presence", "--repo", "{repos}", "--dry-run",
                                             "--cutoff", "2024-01-01", "--instances", "{instances}",
                                             "--repo-name", "a/b", "-o", "{instances}"], "instances"),
    "repo-presence calibrate -o over the repository": (["repo-presence", "calibrate", "--repo", "{repos}",
                                                        "--dry-run", "-o", "{repos}"], "repos"),
    "baselines -o over the repository": (["baselines", "--repo", "{repos}", "-o", "{repos}"], "repos"),
    "leaderboard --out over the submissions": (["leaderboard", "--submissions", "{repos}", "--flags",
                                                "{flags}", "--out", "{repos}"], "repos"),
    "republish --out over the bundle it rebuilds": (["republish", "--rebuild", "{repos}", "--out",
                                                     "{repos}"], "repos"),
    "check -o over the repositories": (["check", "--cutoff", "2024-01-01", "--repos-dir", "{repos}",
                                        "-o", "{repos}"], "repos"),
    "demo -o over the data folder": (["demo", "--data-dir", "{repos}", "-o", "{repos}"], "repos"),
    "eval overlap --out over the data folder": (["eval", "overlap", "--quick", "--data-dir", "{repos}",
                                                 "--out", "{repos}"], "repos"),
    "eval ts-guess --out over the data folder": (["eval", "ts-guess", "--quick", "--data", "{repos}",
                                                  "--out", "{repos}"], "repos"),
    "overlap -o over the corpus": (["overlap", "--benchmark", "mine", "--data", "{instances}", "--corpus",
                                    "{flags}", "-o", "{flags}"], "flags"),
    "repos fetch --into over the instances": (["repos", "fetch", "--instances", "{repos}", "--into", "{repos}"],
                                              "repos"),
}
#: writing commands that read no file or folder (nothing an output could overwrite)
NO_INPUTS = {"eval membership"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_output_over_an_input_is_refused(case: str, files: dict[str, Path]) -> None:
    argv, victim = CASES[case]
    before = {k: _sha(p) for k, p in files.items() if p.is_file()}
    res = CliRunner().invoke(main, [a.format(**files) for a in argv])
    assert res.exit_code == 2, res.output
    [line] = [ln for ln in res.stderr.splitlines() if ln.startswith("Error:")]
    assert f"is the input {files[victim]}" in line and "would destroy it" in line
    assert {k: _sha(p) for k, p in files.items() if p.is_file()} == before


def _writing_commands() -> set[str]:
    found: set[str] = set()

    def walk(cmd: click.Command, path: list[str], ctx: click.Context) -> None:
        if any(p.name in OUTPUT_PARAMS for p in cmd.params):
            found.add(" ".join(path))
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None:
                    walk(sub, [*path, name], click.Context(sub, parent=ctx))

    walk(main, [], click.Context(main))
    return found


def test_every_writing_command_has_a_case() -> None:
    covered = set()
    for argv, _ in CASES.values():
        words = []
        for arg in argv:
            if arg.startswith(("-", "{")):
                break
            words.append(arg)
        covered.add(" ".join(words))
    commands = _writing_commands()
    assert commands - NO_INPUTS - covered == set()
    assert len(commands) >= 15
