"""The ``benchchecker`` command line."""

from __future__ import annotations


import click

from .._version import __version__
from .lazy import LazyGroup

__all__ = ["main"]

_COMMANDS = {
    # spine
    "demo": "benchchecker_plugin.cli.demo_cmd:demo",
    "flags": "benchchecker_plugin.cli.flags_cmd:flags",
    "cache": "benchchecker_plugin.cli.cache_cmd:cache",
    "repos": "benchchecker_plugin.cli.repos_cmd:repos",
    # scorer
    "score": "benchchecker_plugin.cli.score_cmd:score",
    "rescore": "benchchecker_plugin.cli.score_cmd:rescore",
    "leaderboard": "benchchecker_plugin.cli.score_cmd:leaderboard",
    # detectors
    "patch-presence": "benchchecker_plugin.cli.stage2_cmd:patch_presence",
    "repo-presence": "benchchecker_plugin.cli.stage1_cmd:repo_presence",
    "baselines": "benchchecker_plugin.cli.stage1_cmd:baselines",
    "eval": "benchchecker_plugin.cli.eval_cmd:eval_group",
    "ts-guess": "benchchecker_plugin.cli.tsguess_cmd:ts_guess",
    "check": "benchchecker_plugin.cli.check_cmd:check",
    # harness wrappers
    "lm-eval": "harness_adapters.lm_eval.cli:lm_eval",
    "inspect": "harness_adapters.inspect.cli:inspect_group",
    "swebench": "harness_adapters.swebench.cli:swebench",
}


@click.group(cls=LazyGroup, lazy_commands=_COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="benchchecker")
def main() -> None:
    """benchchecker: which benchmark instances has a model probably seen in training?

    Detectors write per-instance contamination flags (one JSON Lines format); scorers and harness
    wrappers read them to re-score results without the instances a model has probably seen.

    \b
    Start here:
      benchchecker demo                 the whole pipeline offline on shipped defaults
      benchchecker flags show F.jsonl   what a flags file says, per benchmark and model
      benchchecker COMMAND --help       each command explains its inputs and outputs
    """
