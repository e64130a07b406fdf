"""Shared options: --threads reaches torch as soon as it is read; bad values are usage errors."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.cli._options import threads_option


@click.command()
@threads_option
def _report() -> None:
    import torch

    click.echo(f"threads={torch.get_num_threads()}")


@pytest.fixture()
def restore_threads():
    import torch

    before = torch.get_num_threads()
    yield before
    torch.set_num_threads(before)


def test_threads_sets_torch_threads(restore_threads) -> None:
    import torch

    target = 1 if restore_threads != 1 else 2
    res = CliRunner().invoke(_report, ["--threads", str(target)])
    assert res.exit_code == 0 and res.output.strip() == f"threads={target}"
    torch.set_num_threads(restore_threads)
    res = CliRunner().invoke(_report, [])  # no --threads: torch's own choice is left alone
    assert res.output.strip() == f"threads={restore_threads}"


@pytest.mark.parametrize("command", [["ts-guess", "--benchmark", "mmlu"], ["repo-presence"], ["baselines"],
                                     ["check"]])
def test_every_local_model_command_has_threads(command) -> None:
    """Every command that calls a model has the model options (issue 13, item 4)."""
    res = CliRunner().invoke(main, command + ["--threads", "0"])
    assert res.exit_code == 2
    assert "Invalid value for '--threads': 0 is not in the range x>=1" in res.output
    help_text = " ".join(CliRunner().invoke(main, command[:1] + ["--help"]).output.split())
    assert "--threads" in help_text and "busy with other work" in help_text
    for option in ("--dry-run", "--no-cache", "--cache-dir", "--device", "--batch-size"):
        assert option in help_text, option
