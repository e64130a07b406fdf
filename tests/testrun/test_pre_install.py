"""swebench's pre_install steps as shell-free file edits: the two shapes understood, everything
else refused (the environment is then reported unavailable, never built half-way)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.testrun._pre_install import Edit, apply_edits, parse_step

SPHINX_41 = ("grep -q 'sphinxcontrib-htmlhelp>=2.0.0' setup.py && sed -i "
             "'s/sphinxcontrib-htmlhelp>=2.0.0/sphinxcontrib-htmlhelp>=2.0.0,<=2.0.4/' setup.py || "
             "sed -i 's/sphinxcontrib-htmlhelp/sphinxcontrib-htmlhelp<=2.0.4/' setup.py")


def test_plain_sed_edits(tmp_path: Path) -> None:
    (tmp_path / "tox.ini").write_text("commands = pytest {posargs}\nx = pytest pytest\n")
    first = parse_step("sed -i 's/pytest/pytest -rA/' tox.ini")
    every = parse_step("sed -i 's/x = /y = /g' tox.ini")
    assert first == Edit("tox.ini", "pytest", "pytest -rA", False)
    assert every is not None and every.every
    apply_edits((first, every), tmp_path)
    # sed without g: the first match of every line
    assert (tmp_path / "tox.ini").read_text() == "commands = pytest -rA {posargs}\ny = pytest -rA pytest\n"


@pytest.mark.parametrize("setup, expected", [
    ("req = ['sphinxcontrib-htmlhelp>=2.0.0', 'a']\n", "req = ['sphinxcontrib-htmlhelp>=2.0.0,<=2.0.4', 'a']\n"),
    ("req = ['sphinxcontrib-htmlhelp', 'a']\n", "req = ['sphinxcontrib-htmlhelp<=2.0.4', 'a']\n"),
])
def test_grep_and_sed_or_sed_picks_the_branch_grep_would(tmp_path: Path, setup: str, expected: str) -> None:
    edit = parse_step(SPHINX_41)
    assert edit is not None and edit.when == "sphinxcontrib-htmlhelp>=2.0.0" and edit.otherwise is not None
    (tmp_path / "setup.py").write_text(setup)
    apply_edits((edit,), tmp_path)
    assert (tmp_path / "setup.py").read_text() == expected


@pytest.mark.parametrize("step", [
    "apt-get update && apt-get install -y graphviz",
    "sed -i 's/a/b/' f || rm -rf /",
    "grep -q a f && rm f || sed -i 's/a/b/' f",
    "grep -q a f && sed -i 's/a/b/' f",                 # no else branch
    "grep -q a g && sed -i 's/a/b/' f || sed -i 's/a/c/' f",   # greps one file, edits another
    "sed -i 's/a/\\1/' f", "sed -i 's/a/&&/' f", "sed -i 's/a/b/w out' f", "sed 's/a/b/' f",
    "sed -i 's/a/b/' 'unterminated",
])
def test_anything_else_is_not_an_edit(step: str) -> None:
    assert parse_step(step) is None


def test_missing_files_and_paths_outside_are_left_alone(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tmp_path / "outside.txt").write_text("a\n")
    apply_edits((Edit("../outside.txt", "a", "b", False), Edit("absent.py", "a", "b", False)), tree)
    assert (tmp_path / "outside.txt").read_text() == "a\n" and not (tree / "absent.py").exists()

