"""Issue 37: a leaderboard journal (``.leaderboard.commit``) that names a staging folder outside
``--out``, or a file ``../notes.txt``, made the next run move a file from outside into ``--out``
or out of it. A journal is now obeyed only when it names a staging folder of ours inside the
folder and plain file names; anything else is refused by name and left as it is."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.atomic import atomic_file_set
from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import ContaminationFlag, write_flags

IDS = [f"a__b-{i}" for i in range(6)]
STAGE = ".leaderboard.staging-0123abcd"


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _journal(out: Path, staging: object, files: object) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / ".leaderboard.commit"
    path.write_text(json.dumps({"staging": staging, "files": files}) + "\n")
    return path


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    out, outside = tmp_path / "published", tmp_path / "outside"
    (out / STAGE).mkdir(parents=True)
    (out / STAGE / "leaderboard.csv").write_text("staged\n")
    (out / "keep.txt").write_text("mine\n")
    outside.mkdir()
    (outside / "notes.txt").write_text("private notes\n")
    (outside / "leaderboard.csv").write_text("from outside\n")
    return out, outside


@pytest.mark.parametrize(("staging", "files", "says"), [
    ("../outside", ["leaderboard.csv"], "names the staging folder '../outside', which is not one of ours"),
    (str(Path("/tmp")), ["leaderboard.csv"], "names the staging folder '/tmp', which is not one of ours"),
    (".leaderboard.staging-xyz", ["leaderboard.csv"], "names the staging folder '.leaderboard.staging-xyz'"),
    (STAGE, ["../outside/notes.txt"], "names the file '../outside/notes.txt', which is not a plain file name"),
    (STAGE, ["../keep.txt"], "names the file '../keep.txt', which is not a plain file name"),
    (STAGE, [".."], "names the file '..', which is not a plain file name"),
    (STAGE, [3], "names the file 3, which is not a plain file name"),
    (STAGE, "leaderboard.csv", "not a journal of benchchecker's ('staging' must be a string and 'files' a list)"),
])
def test_a_journal_naming_anything_else_is_refused_and_left_as_it_is(
        tmp_path: Path, staging: str, files: object, says: str) -> None:
    out, outside = _setup(tmp_path)
    journal = _journal(out, staging, files)
    before_out, before_outside = _tree(out), _tree(outside)
    with pytest.raises(InputError, match=r"published/\.leaderboard\.commit: ") as err:
        with atomic_file_set(out, tag="leaderboard") as stage:
            (stage / "leaderboard.csv").write_text("new\n")
    assert says in str(err.value)
    assert _tree(out) == before_out and _tree(outside) == before_outside and journal.is_file()


def test_a_staging_folder_that_is_a_link_out_is_refused(tmp_path: Path) -> None:
    out, outside = _setup(tmp_path)
    (out / STAGE / "leaderboard.csv").unlink()
    (out / STAGE).rmdir()
    os.symlink(outside, out / STAGE)
    _journal(out, STAGE, ["notes.txt"])
    before = _tree(outside)
    with pytest.raises(InputError, match=r"names the staging folder '\.leaderboard\.staging-0123abcd', which "
                       r"is not one of ours"):
        with atomic_file_set(out, tag="leaderboard"):
            pass
    assert _tree(outside) == before and not (out / "notes.txt").exists()


def test_a_good_journal_is_still_finished(tmp_path: Path) -> None:
    out, _ = _setup(tmp_path)
    _journal(out, STAGE, ["leaderboard.csv"])
    with atomic_file_set(out, tag="leaderboard") as stage:
        (stage / "leaderboard.md").write_text("md\n")
    assert (out / "leaderboard.csv").read_text() == "staged\n" and (out / "leaderboard.md").read_text() == "md\n"
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt", "leaderboard.csv", "leaderboard.md"]


@pytest.mark.slow   # ~6 s: the leaderboard command's first import (pandas, the report stack)
def test_the_leaderboard_command_refuses_a_hostile_journal_in_one_line(tmp_path: Path) -> None:
    sub = tmp_path / "verified" / "20240101_agent"
    (sub / "results").mkdir(parents=True)
    (sub / "results" / "results.json").write_text(json.dumps({"resolved": IDS[:3]}))
    (sub / "metadata.yaml").write_text("info:\n  name: Agent\ntags:\n  model: m\n")
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag("swe-bench-verified", iid, "m", "test", i % 2 == 0, 1.0) for i, iid in enumerate(IDS)])
    (tmp_path / "ids.json").write_text(json.dumps(IDS))
    out, outside = _setup(tmp_path)
    _journal(out, "../outside", ["notes.txt"])
    before = _tree(outside)
    res = CliRunner().invoke(main, ["leaderboard", "--submissions", str(tmp_path / "verified"), "--flags",
                                    str(flags), "--instances", str(tmp_path / "ids.json"), "--n-boot", "5",
                                    "--out", str(out)])
    assert res.exit_code == 2, res.output
    errors = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and "names the staging folder '../outside', which is not one of ours" in errors[0]
    assert _tree(outside) == before and not (out / "notes.txt").exists()
