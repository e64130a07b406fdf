from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import ContaminationFlag, read_flags, write_flags


def _flags(method: str, values) -> list[ContaminationFlag]:
    return [ContaminationFlag(benchmark="swe-bench-verified", instance_id=f"astropy__astropy-{i}",
                              model="m", method=method, contaminated=v, score=float(i))
            for i, v in enumerate(values)]


def test_validate_merge_show(tmp_path: Path) -> None:
    a = write_flags(tmp_path / "a.jsonl", _flags("benchchecker.stage1", [True, False, None, False]))
    b = write_flags(tmp_path / "b.jsonl", _flags("benchchecker.stage2", [False, False, None, True]))
    runner = CliRunner()
    res = runner.invoke(main, ["flags", "validate", str(a), str(b)])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == [f"{a}: 4 valid records", f"{b}: 4 valid records"]

    out = tmp_path / "m.jsonl"
    res = runner.invoke(main, ["flags", "merge", str(a), str(b), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert ("8 records from 2 file(s) -> 4 merged verdicts (2 contaminated, 1 clean, 1 undecided)"
            in res.output)
    assert [m.contaminated for m in read_flags(out)] == [True, False, None, True]

    res = runner.invoke(main, ["flags", "show", str(a), str(b)])
    assert res.exit_code == 0, res.output
    assert "benchchecker.stage1" in res.output and "benchchecker.stage2" in res.output


def test_bad_file_exits_non_zero_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema_version": 1}\n')
    res = CliRunner().invoke(main, ["flags", "validate", str(bad)])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        f"Error: {bad}:1: field 'benchmark': 'benchmark' is a required property"]


def test_help_of_every_command_works() -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["--help"])
    assert res.exit_code == 0
    commands = [line.split()[0] for line in res.output.split("Commands:")[1].splitlines() if line.strip()]
    assert {"demo", "flags", "cache"} <= set(commands) or {"demo", "flags"} <= set(commands)
    for name in commands:
        sub = runner.invoke(main, [name, "--help"])
        assert sub.exit_code == 0, (name, sub.output)
        assert "Usage:" in sub.output
