"""The model options are declared once (``cli/_options.py``): every command that builds a model has
the same options with the defaults of ``ModelOptions``, and ``--max-tokens`` keeps each command's
own default."""

from __future__ import annotations

import click
import pytest

from benchchecker_plugin.cli import main
from benchchecker_plugin.cli._options import ModelOptions, max_tokens_option, model_options

MODEL_COMMANDS = (("ts-guess",), ("check",), ("repo-presence",), ("repo-presence", "calibrate"),
                  ("baselines",))
FIELD_OF = {"model": "spec", "base_url": "base_url", "device": "device", "cache_dir": "cache_dir",
            "no_cache": "no_cache", "batch_size": "batch_size", "max_concurrency": "max_concurrency",
            "dry_run": "dry_run"}


def _command(path: tuple[str, ...]) -> click.Command:
    ctx = click.Context(main)
    command: click.Command = main
    for name in path:
        assert isinstance(command, click.Group)
        found = command.get_command(ctx, name)
        assert found is not None, name
        command = found
    return command


@pytest.mark.parametrize("path", MODEL_COMMANDS, ids=" ".join)
def test_every_model_command_has_the_options_with_the_records_defaults(path: tuple[str, ...]) -> None:
    command = _command(path)
    params = {p.name: p for p in command.params}
    ctx = click.Context(command)
    for name, field in FIELD_OF.items():
        assert params[name].get_default(ctx) == getattr(ModelOptions(), field), (path, name)
    assert "threads" in params and params["threads"].expose_value is False


def test_the_command_gets_one_model_options_record() -> None:
    seen: list[ModelOptions] = []

    @click.command()
    @model_options
    @max_tokens_option(7)
    def probe(model_opts: ModelOptions, max_tokens: int) -> None:
        seen.append(model_opts)
        click.echo(str(max_tokens))

    from click.testing import CliRunner

    result = CliRunner().invoke(probe, ["--model", "hf/x", "--batch-size", "3", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "7"
    assert seen == [ModelOptions(spec="hf/x", batch_size=3, no_cache=True)]


@pytest.mark.parametrize("path, default", [(("ts-guess",), 32), (("repo-presence",), 16),
                                           (("repo-presence", "calibrate"), 16)])
def test_max_tokens_keeps_each_commands_default(path: tuple[str, ...], default: int) -> None:
    [option] = [p for p in _command(path).params if p.name == "max_tokens"]
    assert option.default == default
