"""The ``benchchecker`` command line."""

from __future__ import annotations

import click

from .._version import __version__
from ._lazy import LazyGroup

__all__ = [
    "LazyGroup",
    "main",
]

_COMMANDS = {
    # spine
    "demo": "benchchecker_plugin.cli._demo_cmd:demo",
    "flags": "benchchecker_plugin.cli._flags_cmd:flags",
    "cache": "benchchecker_plugin.cli._cache_cmd:cache",
    "repos": "benchchecker_plugin.cli._repos_cmd:repos",
    "models": "benchchecker_plugin.cli._models_cmd:models",
    "tasks": "benchchecker_plugin.cli._tasks_cmd:tasks",
    # scorer
    "score": "benchchecker_plugin.cli._score_cmd:score",
    "rescore": "benchchecker_plugin.cli._score_cmd:rescore",
    "leaderboard": "benchchecker_plugin.cli._score_cmd:leaderboard",
    "republish": "benchchecker_plugin.cli._republish_cmd:republish",
    # detectors
    "patch-presence": "benchchecker_plugin.cli._stage2_cmd:patch_presence",
    "repo-presence": "benchchecker_plugin.cli._stage1_cmd:repo_presence",
    "baselines": "benchchecker_plugin.cli._stage1_cmd:baselines",
    "eval": "benchchecker_plugin.cli._eval_cmd:eval_group",
    "ts-guess": "benchchecker_plugin.cli._tsguess_cmd:ts_guess",
    "overlap": "benchchecker_plugin.cli._overlap_cmd:overlap",
    "check": "benchchecker_plugin.cli._check_cmd:check",
    # harness wrappers
    "lm-eval": "harness_adapters.lm_eval._cli:lm_eval",
    "inspect": "harness_adapters.inspect._cli:inspect_group",
    "swebench": "harness_adapters.swebench._cli:swebench",
}

# what `benchchecker --help` lists, without importing each command (tests/cli/test_help_imports.py
# keeps each equal to its command's own short help: change both together)
_SHORT_HELP = {
    "demo": "Run the whole pipeline offline and write an HTML report.",
    "flags": "Read, check, combine and convert contamination flags files.",
    "cache": "Inspect or empty the model response cache.",
    "repos": "Clones of the repositories benchmark instances name (for patch-presence --repos-dir).",
    "models": "Show the plain model folder of a local model, for other harnesses.",
    "tasks": "Task files shipped for the harnesses (lm-eval YAML tasks), in a checkout or a wheel.",
    "score": "How well flags find the truly contaminated instances: AUC, TPR, FPR, TPR@FPR, with "
             "intervals.",
    "rescore": "Re-score one run without its contaminated instances, per difficulty tier.",
    "leaderboard": "Re-score every submission of a leaderboard and publish the filtered leaderboard.",
    "republish": "Republish a leaderboard without the instances Stage II flags, for any board.",
    "patch-presence": "Was each instance's gold patch already in its repository at the training cutoff?",
    "repo-presence": "Stage I: was the model trained on this repository? (text outputs only)",
    "baselines": "Logit membership-inference scores of repositories: loss, zlib, Min-K% and Min-K%++.",
    "eval": "Controlled evaluations: how well do the detectors separate known members from non-members?",
    "ts-guess": "Ask a model to fill in a hidden part of each benchmark item (TS-Guessing).",
    "overlap": "Which benchmark items occur in a training corpus you have.",
    "check": "Check a model before release: which benchmark instances has it probably seen?",
    "lm-eval": "lm-evaluation-harness commands with contamination filtering.",
    "inspect": "Inspect commands with contamination filtering.",
    "swebench": "SWE-bench harness with contamination filtering; re-scoring of its reports.",
}


@click.group(cls=LazyGroup, lazy_commands=_COMMANDS, lazy_help=_SHORT_HELP,
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
    _warnings_in_words()


def _warnings_in_words() -> None:
    """For this command: warnings raised by benchchecker's own code are printed as one line in
    words (:mod:`benchchecker_plugin.warnings_text`)."""
    from ..warnings_text import show_warnings_in_words

    click.get_current_context().call_on_close(show_warnings_in_words())
