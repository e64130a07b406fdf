"""Issue 27: an unknown lm-eval task with ``--contamination-detect`` gave a traceback (lm-eval's
``ValueError: Tasks not found``); it is one ``Error:`` line naming the task, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import InputError

TASKS = Path(__file__).resolve().parents[2] / "tasks" / "lm_eval"
EXPECT = ("--tasks no_such_task: Tasks not found: no_such_task (no such task in lm-eval or under "
          f"--include_path {TASKS}; `lm_eval ls tasks` lists them)")


class _Config:
    """lm-eval's EvaluatorConfig as far as the task lookup uses it, answering as lm-eval does
    for a task it does not know (indexing every built-in task takes seconds)."""

    tasks = ["no_such_task"]
    include_path = str(TASKS)
    metadata: dict[str, str] = {}

    def process_tasks(self, metadata: dict[str, str]) -> None:
        raise ValueError("Tasks not found: no_such_task")


def test_the_task_lookup_names_an_unknown_task() -> None:
    pytest.importorskip("lm_eval")
    from harness_adapters.lm_eval._cli import _task_manager

    with pytest.raises(InputError) as err:
        _task_manager(_Config())
    assert str(err.value) == EXPECT


@pytest.mark.slow
def test_an_unknown_task_with_detection_is_one_error_line(tmp_path: Path) -> None:
    pytest.importorskip("lm_eval")
    res = CliRunner().invoke(main, ["lm-eval", "run", "--model", "hf", "--model_args",
                                    "pretrained=unused", "--tasks", "no_such_task", "--include_path",
                                    str(TASKS), "--output_path", str(tmp_path / "out"),
                                    "--contamination-detect"])
    assert res.exit_code == 2, res.output
    assert [ln for ln in res.output.splitlines() if ln.startswith("Error:")] == [f"Error: {EXPECT}"]
    assert "Traceback" not in res.output and not (tmp_path / "out").exists()
