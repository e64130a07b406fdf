"""Running a benchmark instance's tests on a candidate patch, and judging the result.

:func:`make_runner` builds the runner of a ``--verify`` choice:

* :class:`LocalRunner` (:mod:`._local`): a throw-away export of the base commit, the instance's
  or a given test command, confined (:mod:`._sandbox`);
* :class:`VenvRunner` (:mod:`._venv`): a virtual environment per repository version, built once
  (:mod:`._envs`, with :mod:`._pre_install`'s file edits), outcomes kept (:mod:`._outcomes`);
* :class:`SwebenchRunner` (:mod:`._swebench`): the swebench harness in Docker; every swebench
  name is reached through ``benchchecker_plugin.swebench_compat`` when used.

Every runner decides from the named tests' results (:mod:`._testlog`), never from an exit code
alone, and returns a :class:`VerifyOutcome`.
"""

from ._envs import EnvBuilder, Environment, EnvUnavailable, default_envs_dir, find_python, load_env_specs
from ._factory import RUNNER_KINDS, make_runner
from ._local import LocalRunner
from ._outcome import TestRunner, VerifyOutcome
from ._outcomes import OutcomeStore
from ._sandbox import Step, StepRun, confinement, run_steps, split_command
from ._swebench import SwebenchRunner, grade_swebench_log, swebench_test_spec
from ._testlog import TestVerdict, judge_run
from ._venv import VenvRunner

__all__ = [
    "EnvBuilder",
    "EnvUnavailable",
    "Environment",
    "LocalRunner",
    "OutcomeStore",
    "RUNNER_KINDS",
    "Step",
    "StepRun",
    "SwebenchRunner",
    "TestRunner",
    "TestVerdict",
    "VenvRunner",
    "VerifyOutcome",
    "confinement",
    "default_envs_dir",
    "find_python",
    "grade_swebench_log",
    "judge_run",
    "load_env_specs",
    "make_runner",
    "run_steps",
    "split_command",
    "swebench_test_spec",
]
