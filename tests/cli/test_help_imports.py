"""``--help`` imports nothing heavy, and the short help listed without importing stays true.

Regression (issue 13, item 10): ``benchchecker --help`` took 5-13 s because listing the commands
imported each command module (Inspect's CLI, TS-Guessing with scikit-learn, the scorers with
numba and pandas). Measured by imports, not time: a fresh interpreter runs each ``--help`` and
reports which heavy packages appeared in ``sys.modules`` after each.
"""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from benchchecker_plugin.cli import _COMMANDS, _SHORT_HELP, main

HEAVY = ("torch", "transformers", "inspect_ai", "lm_eval", "swebench", "numba", "pandas", "sklearn",
         "datasets")
# these help pages are the harness's own command, or live in modules outside the CLI
_HEAVY_BY_NATURE = {"inspect eval", "lm-eval run", "flags from-lm-eval", "flags from-inspect"}

_PROBE = """
import json, sys
import click
from benchchecker_plugin.cli import main

HEAVY = {heavy!r}
SKIP = {skip!r}
report = []

def run(args):
    try:
        main.main(list(args) + ["--help"], prog_name="benchchecker", standalone_mode=False)
    except SystemExit:
        pass
    report.append((" ".join(args) or "(top)", sorted(m for m in HEAVY if m in sys.modules)))

run([])
ctx = click.Context(main)
for name in main.list_commands(ctx):
    run([name])
    cmd = main.get_command(ctx, name)
    if isinstance(cmd, click.Group):
        for sub in cmd.list_commands(click.Context(cmd)):
            if f"{{name}} {{sub}}" not in SKIP:
                run([name, sub])
print(json.dumps(report))
"""


def test_help_imports_nothing_heavy() -> None:
    """Every ``--help`` in order, in one fresh interpreter: the first page that pulls a heavy
    package in is named (modules only accumulate, so an empty set at the end covers every page)."""
    code = _PROBE.format(heavy=HEAVY, skip=sorted(_HEAVY_BY_NATURE))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    pages = [page for page, _ in report]
    assert "(top)" in pages and set(_COMMANDS) <= set(pages) and "cache stats" in pages
    first_heavy = next(((page, heavy) for page, heavy in report if heavy), None)
    assert first_heavy is None, f"`benchchecker {first_heavy[0]} --help` imported {first_heavy[1]}"


def test_listed_short_help_is_each_commands_own() -> None:
    """The listing's strings (given so that listing imports nothing) equal the commands' own."""
    ctx = click.Context(main)
    assert set(_SHORT_HELP) == set(_COMMANDS)
    for name in _COMMANDS:
        cmd = main.get_command(ctx, name)
        assert cmd is not None, name
        assert _SHORT_HELP[name] == cmd.get_short_help_str(limit=10**6), name
    flags = main.get_command(ctx, "flags")
    assert isinstance(flags, click.Group)
    for name, text in flags.lazy_help.items():  # type: ignore[attr-defined]
        assert text == flags.get_command(click.Context(flags), name).get_short_help_str(limit=10**6)


def test_inspect_eval_short_help_is_inspects() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai._cli.eval import eval_command

    from harness_adapters.inspect._cli import _EVAL_HELP, inspect_group

    assert _EVAL_HELP == eval_command.get_short_help_str(limit=10**6)
    assert inspect_group.get_command(click.Context(inspect_group), "eval") is not None


def test_ts_guess_option_copies_match_tsguessing() -> None:
    from benchchecker_plugin import tsguessing
    from benchchecker_plugin.cli import _tsguess_cmd as tsguess_cmd

    assert tsguess_cmd.BENCHMARKS == tsguessing.BENCHMARKS
    assert tsguess_cmd.MODES == tuple(m.value for m in tsguessing.Mode)
    assert tsguess_cmd.MULTICHOICE_THRESHOLD == tsguessing.MULTICHOICE_THRESHOLD


def test_listing_equals_clicks_own() -> None:
    """The listing written from the given short help is the one click writes after importing."""
    from benchchecker_plugin.cli import LazyGroup

    def listing(render) -> str:  # type: ignore[no-untyped-def]
        group = LazyGroup("benchchecker", lazy_commands=_COMMANDS, lazy_help=_SHORT_HELP)
        ctx = click.Context(group, max_content_width=100)
        formatter = ctx.make_formatter()
        render(group, ctx, formatter)
        return formatter.getvalue()

    ours = listing(LazyGroup.format_commands)
    assert ours.startswith("Commands:") and all(f"  {name}  " in ours for name in _COMMANDS)
    assert ours == listing(click.Group.format_commands)
