"""The README a newcomer reads in ten minutes, the reference in docs/: the README stays short, every
relative link of the README and of docs/ reaches a file (and a heading, for an anchor), and every
``benchchecker`` command the README shows names a real command whose options exist."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from benchchecker_plugin.cli import main
from tests.helpers.docs import ROOT, doc_pages

README_MAX_LINES = 300
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {_slug(line.lstrip("#")) for line in page.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")}


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` that reach no file, or no heading of it."""
    out = []
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        for target in _LINK.findall(line):
            if re.match(r"^[a-z]+:", target):   # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            where = (page.parent / path).resolve() if path else page
            if not where.exists():
                out.append(f"{page.name}: {target} (no such file)")
            elif anchor and where.suffix == ".md" and anchor not in _anchors(where):
                out.append(f"{page.name}: {target} (no such heading)")
    return out


def test_the_readme_is_short() -> None:
    n = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert n < README_MAX_LINES, f"README.md has {n} lines; the reference belongs in docs/"


@pytest.mark.parametrize("page", doc_pages(), ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# A heading\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[ok](there.md#a-heading) [no file](gone.md) [no heading](there.md#nope)\n"
                    "```\n[in code](ignored.md)\n```\n[web](https://example.org)\n", encoding="utf-8")
    assert broken_links(page) == ["page.md: gone.md (no such file)", "page.md: there.md#nope (no such heading)"]


def _readme_commands() -> list[list[str]]:
    """Each ``benchchecker ...`` command in the README's bash blocks, continuation lines joined."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].strip()
            for part in re.split(r"&&|;", line):
                words = shlex.split(part.replace("$(", "'").replace(")", "'"))
                if words[:1] == ["benchchecker"]:
                    out.append(words[1:])
    return out


#: commands that hand their own options to a harness (its parser, not ours, reads them)
PASSTHROUGH = {("lm-eval", "run"), ("inspect", "eval"), ("swebench", "run_evaluation")}


def test_every_readme_command_exists_with_its_options() -> None:
    commands = _readme_commands()
    assert len(commands) >= 8
    for words in commands:
        cmd: click.Command = main
        path = []
        ctx = click.Context(main)
        while isinstance(cmd, click.Group) and words and not words[0].startswith("-"):
            sub = cmd.get_command(ctx, words[0])
            assert sub is not None, f"benchchecker {' '.join(path + words[:1])}: no such command"
            path.append(words.pop(0))
            cmd = sub
        assert not isinstance(cmd, click.Group), f"benchchecker {' '.join(path)}: a group, not a command"
        if tuple(path) in PASSTHROUGH:
            continue
        known = {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}
        used = {w.split("=", 1)[0] for w in words if w.startswith("--")}
        assert used <= known, f"benchchecker {' '.join(path)}: unknown {sorted(used - known)}"
