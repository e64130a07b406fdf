"""Issue 37: names from the user's files reached the published tables as they were. A
``leaderboard.csv`` cell starting with ``=``, ``+``, ``-`` or ``@`` is a formula a spreadsheet
runs (OWASP's CSV-injection rule); a name holding a newline, a pipe or raw HTML broke or injected
into ``leaderboard.md`` (Markdown renderers pass raw HTML through). Text cells are now escaped,
numbers are not, and :func:`read_csv` reads every text back as it was."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import ContaminationFlag, write_flags
from benchchecker_plugin.report import (
    csv_escape,
    csv_unescape,
    markdown_cell,
    read_csv,
    to_markdown,
    write_csv,
)

IDS = [f"a__b-{i}" for i in range(30)]
HOSTILE_MODEL = "=HYPERLINK(\"http://x\",\"y\")"
HOSTILE_FOLDERS = ["@SUM(1+1)", "+1", "-2+3"]


@pytest.mark.parametrize(("cell", "written"), [
    ("=1+1", "'=1+1"), ("+1", "'+1"), ("-x", "'-x"), ("@a", "'@a"), ("\tx", "'\tx"),
    ("\rx", "'\rx"), ("'=x", "''=x"), ("plain", "plain"), ("'quoted", "'quoted"), ("", ""),
    ("a=b", "a=b")])
def test_the_owasp_rule(cell: str, written: str) -> None:
    assert csv_escape(cell) == written
    assert csv_unescape(written) == cell


@given(st.text())
def test_escaping_round_trips(text: str) -> None:
    assert csv_unescape(csv_escape(text)) == text
    assert csv_escape(text)[:1] not in ("=", "+", "-", "@", "\t", "\r")


def test_text_cells_are_escaped_and_numbers_are_not(tmp_path: Path) -> None:
    frame = pd.DataFrame({"submission": ["=1+1", "-x", "ok"], "drop": [-0.05, 0.5, float("nan")],
                          "n": [-1, 2, 3]})
    path = write_csv(frame, tmp_path / "t.csv")
    rows = list(csv.reader(path.open(newline="")))
    assert rows[1] == ["'=1+1", "-0.05", "-1"] and rows[2][0] == "'-x"
    back = read_csv(path)
    pd.testing.assert_frame_equal(back, frame)


@pytest.mark.parametrize(("text", "rendered"), [
    ("a|b", "a\\|b"), ("a\nb\r\nc", "a b c"), ("<script>alert(1)</script>",
                                                "&lt;script&gt;alert(1)&lt;/script&gt;"),
    ("[x](javascript:alert(1))", "\\[x\\](javascript:alert(1))"),
    ("![i](http://t/p.png)", "!\\[i\\](http://t/p.png)"), ("*b* _i_ `c`", "\\*b\\* \\_i\\_ \\`c\\`"),
    ("a & b", "a &amp; b"), ("[/]", "[/]"), ("12.3% [-4.0%, 28.1%]", "12.3% [-4.0%, 28.1%]")])
def test_markdown_cells(text: str, rendered: str) -> None:
    assert markdown_cell(text) == rendered


def test_a_markdown_table_keeps_one_line_per_row() -> None:
    md = to_markdown(pd.DataFrame({"model": ["x\n| evil | row |", "<img src=x onerror=alert(1)>"],
                                   "rate": [0.5, -0.05]}))
    lines = md.splitlines()
    assert len(lines) == 4 and all(ln.count("|") - ln.count("\\|") == 3 for ln in lines)
    assert "<" not in md and "-0.0500" in md


def _board(tmp_path: Path) -> list[str]:
    root = tmp_path / "verified"
    for k, folder in enumerate(HOSTILE_FOLDERS):
        sub = root / folder
        (sub / "results").mkdir(parents=True)
        (sub / "results" / "results.json").write_text(json.dumps({"resolved": IDS[k:12 + k]}))
        (sub / "metadata.yaml").write_text(
            f"info:\n  name: Agent {k}\ntags:\n  model: '{HOSTILE_MODEL}'\n")
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag("swe-bench-verified", iid, HOSTILE_MODEL, "test", i % 3 == 0, 1.0)
        for i, iid in enumerate(IDS)])
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(IDS))
    return ["leaderboard", "--submissions", str(root), "--flags", str(flags), "--instances",
            str(ids), "--n-boot", "20", "--out", str(tmp_path / "out")]


def test_the_published_leaderboard_holds_no_formula(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, _board(tmp_path))
    assert res.exit_code == 0, res.output
    out = tmp_path / "out"
    for name in ("leaderboard.csv", "summary.csv"):
        for row in csv.DictReader((out / name).open(newline="")):
            for key, cell in row.items():
                try:
                    float(cell)
                    continue   # a number (-0.05) is no formula
                except ValueError:
                    assert cell[:1] not in ("=", "+", "-", "@", "\t", "\r"), (name, key, cell)
    table = read_csv(out / "leaderboard.csv")
    assert set(table["submission"]) == set(HOSTILE_FOLDERS)
    assert set(table["model"]) == {HOSTILE_MODEL}
    md = (out / "leaderboard.md").read_text()
    assert "=HYPERLINK(\"http://x\",\"y\")" in md   # Markdown is no spreadsheet: shown as it is
