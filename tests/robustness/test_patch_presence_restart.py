"""``patch-presence`` after a kill: the flags are written once, at the end (atomically), so a killed
run leaves the previous output whole; with ``--state DIR`` the finished tasks are kept as they
finish and the same command run again takes them from there (tests/cli/test_stage2_state.py kills
one). ``--help`` and the README say both."""

from __future__ import annotations

import re

from click.testing import CliRunner

from benchchecker_plugin.cli import main
from tests.helpers.docs import docs_text

HELP = ("The flags are written once, when every instance is done: a killed run leaves the previous "
        "output as it was. With --state DIR each finished task is kept as it finishes, and the same "
        "command run again takes them from there")
README = ("The flags are written once, when every instance is done; with `--state DIR` each finished "
          "task (up to 20 instances of a repository, `--instances-per-task`) is kept as it finishes, "
          "and the same command run again after a kill takes the kept tasks and writes the same flags")


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_help_and_readme_say_a_killed_run_resumes_with_state() -> None:
    res = CliRunner().invoke(main, ["patch-presence", "--help"], terminal_width=100)
    assert res.exit_code == 0
    assert HELP in _flat(res.output)
    assert README in _flat(docs_text())
