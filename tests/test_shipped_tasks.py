"""Where the shipped task files are: the same folder from the API and `benchchecker tasks path`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.shipped_tasks import tasks_dir


def test_lm_eval_tasks_folder_holds_the_tasks() -> None:
    folder = tasks_dir("lm-eval")
    assert (folder / "mmlu_local" / "mmlu_local_astronomy.yaml").is_file()
    assert (folder / "ts_guessing").is_dir()
    assert folder == (Path(__file__).resolve().parents[1] / "tasks" / "lm_eval")   # a checkout


def test_cli_prints_the_folder_and_refuses_other_harnesses() -> None:
    res = CliRunner().invoke(main, ["tasks", "path"])
    assert res.exit_code == 0 and res.output.strip() == str(tasks_dir())
    assert CliRunner().invoke(main, ["tasks", "path", "inspect"]).exit_code == 2
    with pytest.raises(InputError, match="no shipped tasks for harness 'helm' \\(have: lm-eval\\)"):
        tasks_dir("helm")
