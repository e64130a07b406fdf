"""`ts-guess --tasks` (lm-eval's spelling) is the same option as `--task`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main


@pytest.mark.slow   # lm-eval import and task index (~10 s)
def test_tasks_is_an_alias_of_task(tmp_path: Path) -> None:
    (tmp_path / "self.yaml").write_text("include: self.yaml\ntask: selfy\n")
    for spelling in ("--task", "--tasks"):
        res = CliRunner().invoke(main, ["ts-guess", spelling, "selfy", "--include_path", str(tmp_path),
                                        "--dry-run"])
        assert res.exit_code == 2, res.output
        assert "its include: chain comes back to itself" in res.stderr
