"""The one atomic writer (issue 14, item 7): a failure mid-write leaves the old file whole and no
temporary file behind; the calibrate output, membership.json and the harness sidecar use it."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.atomic import atomic_file_set, atomic_open, atomic_path, write_text_atomic


def test_a_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = write_text_atomic(tmp_path / "out.json", '{"old": true}\n')
    with pytest.raises(RuntimeError):
        with atomic_open(target) as fh:
            fh.write('{"new": ')
            raise RuntimeError("size limit")
    assert target.read_text() == '{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    assert oct(target.stat().st_mode & 0o777) == "0o644"


def test_a_writer_that_needs_a_file_name_gets_a_temporary_one(tmp_path: Path) -> None:
    """Issue 29: the Inspect hook renamed its own temporary file; ``atomic_path`` gives writers
    that take a file name (Inspect's ``write_eval_log``) the same guarantees."""
    target = write_text_atomic(tmp_path / "run.eval", "old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            assert tmp.parent == tmp_path and tmp.suffix == ".eval" and tmp != target
            tmp.write_bytes(b"half")
            raise RuntimeError("killed")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.eval"]
    with atomic_path(target) as tmp:
        tmp.write_bytes(b"new")
    assert target.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["run.eval"]
    assert oct(target.stat().st_mode & 0o777) == "0o644"


def test_no_module_renames_its_own_temporary_file() -> None:
    root = Path(__file__).resolve().parents[1]
    offenders = [str(p.relative_to(root)) for pkg in ("benchchecker_plugin", "harness_adapters")
                 for p in (root / pkg).rglob("*.py")
                 if "os.replace(" in p.read_text() and p.name != "atomic.py"]
    assert offenders == []


def test_every_json_output_goes_through_it() -> None:
    """No module writes an output with a plain ``write_text`` any more (fixtures building test
    repositories and the git clone marker excepted)."""
    root = Path(__file__).resolve().parents[1]
    allowed = {"benchchecker_plugin/stage2/_synthetic.py", "benchchecker_plugin/repos/_fetch.py",
               "benchchecker_plugin/models/_gguf.py", "harness_adapters/inspect/_cli.py"}
    offenders = [str(p.relative_to(root)) for pkg in ("benchchecker_plugin", "harness_adapters")
                 for p in (root / pkg).rglob("*.py")
                 if ".write_text(" in p.read_text() and str(p.relative_to(root)) not in allowed]
    assert offenders == []


@pytest.mark.parametrize("case", ["parent is a file", "output is a folder", "read-only folder"])
def test_os_errors_on_outputs_are_one_line(case: str, tmp_path: Path) -> None:
    """Issue 14, item 13: OS errors on outputs were tracebacks; now ``Error: <path>: <reason>``,
    exit 2, through every command (here ``flags merge``)."""
    import os

    from click.testing import CliRunner

    from benchchecker_plugin.cli import main
    from benchchecker_plugin.flags import ContaminationFlag, write_flags

    flags = write_flags(tmp_path / "in.jsonl", [ContaminationFlag("mmlu", "x/0", "*", "t", True, 1.0)])
    if case == "parent is a file":
        out = flags / "out.jsonl"
    elif case == "output is a folder":
        out = tmp_path / "folder"
        out.mkdir()
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes into read-only folders")
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        out = ro / "out.jsonl"
    res = CliRunner().invoke(main, ["flags", "merge", str(flags), "-o", str(out)])
    assert res.exit_code == 2, res.output
    [line] = [ln for ln in res.stderr.splitlines() if ln.startswith("Error:")]
    assert line.startswith(f"Error: {out}:") and "Traceback" not in res.output


def test_a_file_set_lands_together_and_leaves_other_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("the user's")
    (out / "a.csv").write_text("old a")
    (out / ".set.staging-dead").mkdir()   # a killed run's, never committed
    with atomic_file_set(out, tag="set") as stage:
        (stage / "a.csv").write_text("new a")
        (stage / "b.md").write_text("new b")
        assert not (out / "b.md").exists() and (out / "a.csv").read_text() == "old a"
    assert {p.name: p.read_text() for p in out.iterdir()} == {
        "mine.txt": "the user's", "a.csv": "new a", "b.md": "new b"}
    with pytest.raises(KeyError), atomic_file_set(out, tag="set") as stage:
        (stage / "a.csv").write_text("newer a")
        raise KeyError("failed while writing")
    assert sorted(p.name for p in out.iterdir()) == ["a.csv", "b.md", "mine.txt"]
    assert (out / "a.csv").read_text() == "new a"
