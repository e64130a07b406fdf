"""Issue 27: ``patch-presence --cutoffs`` redoes all its work after a kill (18-22 s of 21 s). The
flags are written once, at the end (atomically), so a killed run leaves the previous output whole
and resuming from a partial one is not offered; ``--help`` and the README say so."""

from __future__ import annotations

import re

from click.testing import CliRunner

from benchchecker_plugin.cli import main
from tests.helpers.docs import docs_text

SENTENCE = ("The flags are written once, when every instance is done: a killed run leaves the "
            "previous output as it was and the next run does all the work again")


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_help_and_readme_say_a_killed_run_starts_over() -> None:
    res = CliRunner().invoke(main, ["patch-presence", "--help"], terminal_width=100)
    assert res.exit_code == 0
    assert SENTENCE in _flat(res.output)
    assert SENTENCE.replace("a killed run", "a run that is killed") in _flat(docs_text())
