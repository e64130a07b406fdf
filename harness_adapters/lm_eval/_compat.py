"""The private lm-eval APIs the wrapper uses, and only here (see :mod:`harness_adapters.private_api`).

- ``lm_eval._cli.HarnessCLI``: lm-eval's command-line parser and runner (``lm-eval run``);
- its ``_subparsers`` (the ``run`` sub-parser our options are added to) and ``_parser`` (the top
  parser that parses ``run ARGS``);
- ``lm_eval.utils.env`` and ``apply_template``: lm-eval renders every Jinja template of a task
  with ``apply_template``, unsandboxed, compiling the template on every call; while we load a
  task and TS-Guessing reads its documents (:func:`compiled_templates`) each template is
  compiled once in a budgeted sandbox with lm-eval's settings and filters (~20x faster).

lm-eval is imported only when one of these is asked for.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any

from benchchecker_plugin.private_api import Harness

#: the extra's range in pyproject.toml (tests/harness_adapters/lm_eval/test_compat.py keeps them equal)
LM_EVAL = Harness("lm_eval", "lm-eval", ">=0.4.13,<0.5")
#: the command named in errors
WHAT = "`benchchecker lm-eval`"


def harness_cli(what: str = WHAT) -> Any:
    """A new ``lm_eval._cli.HarnessCLI`` (lm-eval's own ``lm-eval`` command line)."""
    return LM_EVAL.private("lm_eval._cli", "HarnessCLI", what)()


def run_parser(cli: Any, what: str = WHAT) -> argparse.ArgumentParser:
    """The ``run`` sub-parser of ``cli`` (``HarnessCLI._subparsers.choices["run"]``)."""
    subparsers = LM_EVAL.attribute(cli, "_subparsers", "lm_eval._cli.HarnessCLI._subparsers", what)
    parser = getattr(subparsers, "choices", {}).get("run")
    if not isinstance(parser, argparse.ArgumentParser):
        raise LM_EVAL.incompatible("the 'run' sub-command of lm_eval._cli.HarnessCLI", what)
    return parser


def parse_run(cli: Any, argv: Sequence[str], what: str = WHAT) -> argparse.Namespace:
    """``lm-eval run ARGV`` parsed by ``cli``'s top parser (``HarnessCLI._parser``)."""
    parser = LM_EVAL.attribute(cli, "_parser", "lm_eval._cli.HarnessCLI._parser", what)
    return parser.parse_args(["run", *argv])


@contextlib.contextmanager
def compiled_templates(what: str = WHAT) -> Iterator[None]:
    """While inside, ``lm_eval.utils.apply_template`` renders in a budgeted sandbox
    (:mod:`benchchecker_plugin.tsguessing._sandbox`: no unsafe attributes, a time and size budget)
    with ``lm_eval.utils.env``'s settings and filters, compiling each template once instead of on
    every call (~20x faster). Used while we load and read a task: lm-eval's own run renders as
    it always does."""
    import lm_eval.utils as utils

    from benchchecker_plugin.tsguessing import render_budgeted, sandboxed_environment

    env = sandboxed_environment(LM_EVAL.private("lm_eval.utils", "env", what))
    original: Callable[[str, dict], str] = LM_EVAL.private("lm_eval.utils", "apply_template", what)
    compile_once = lru_cache(maxsize=256)(env.from_string)

    def apply_template(template: str, doc: dict) -> str:
        return render_budgeted(env, compile_once(template), doc)

    utils.apply_template = apply_template
    try:
        yield
    finally:
        utils.apply_template = original
