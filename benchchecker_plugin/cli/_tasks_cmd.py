"""``benchchecker tasks``: where the task files shipped for the harnesses are."""

from __future__ import annotations

import click


@click.group()
def tasks() -> None:
    """Task files shipped for the harnesses (lm-eval YAML tasks), in a checkout or a wheel."""


@tasks.command("path")
@click.argument("harness", type=click.Choice(["lm-eval"]), default="lm-eval")
def path(harness: str) -> None:
    """Print the folder of HARNESS's shipped tasks (default: lm-eval).

    \b
    Example (from any folder, with an installed wheel or a checkout):
      lm-eval run --include_path "$(benchchecker tasks path)" --tasks mmlu_local_astronomy ...
    """
    from ..shipped_tasks import tasks_dir

    click.echo(str(tasks_dir(harness)))
