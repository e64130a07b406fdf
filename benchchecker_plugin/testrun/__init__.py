"""Running a benchmark instance's tests on a candidate patch, and judging the result.

:func:`make_runner` builds the runner of a ``--verify`` choice:

* :class:`LocalRunner` (:mod:`.local`): a throw-away export of the base commit, the instance's
  or a given test command, confined (:mod:`.sandbox`);
* :class:`VenvRunner` (:mod:`.venv`): a virtual environment per repository version, built once
  (:mod:`.envs`, with :mod:`.pre_install`'s file edits), outcomes kept (:mod:`.outcomes`);
* :class:`SwebenchRunner` (:mod:`.swebench`): the swebench harness in Docker; every swebench
  name is reached through ``benchchecker_plugin.swebench_compat`` when used.

Every runner decides from the named tests' results (:mod:`.testlog`), never from an exit code
alone, and returns a :class:`VerifyOutcome`.
"""

from .envs import EnvBuilder, Environment, EnvUnavailable, default_envs_dir, find_python, load_env_specs
from .factory import RUNNER_KINDS, make_runner
from .local import LocalRunner
from .outcome import TestRunner, VerifyOutcome
from .outcomes import OutcomeStore
from .sandbox import Step, StepRun, confinement, run_steps, split_command
from .swebench import SwebenchRunner, grade_swebench_log, swebench_test_spec
from .testlog import TestVerdict, judge_run
from .venv import VenvRunner

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
