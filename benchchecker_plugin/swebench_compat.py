"""The swebench names benchchecker uses, and only here (see :mod:`benchchecker_plugin.private_api`).

===============================================  ==================================================
``swebench.harness.utils``                       ``make_test_spec``, ``load_swebench_dataset``,
                                                 ``get_predictions_from_file``
``swebench.types``                               ``TestSpec``
``swebench.harness.log_parsers.python``          ``MAP_REPO_TO_PARSER_PY``: a repository's log parser
``swebench.harness.grading``                     ``get_eval_report``: grades a test log
``swebench.harness.run_evaluation``              ``run_instance``, ``LOG_TEST_OUTPUT``,
                                                 ``RUN_EVALUATION_LOG_DIR``: one instance in Docker
===============================================  ==================================================

Each function imports swebench when called, never at import time. The core
(:mod:`benchchecker_plugin.testrun._swebench`) reaches swebench only through here, and so does the adapter
(:mod:`harness_adapters.swebench`), which imports this module, never the reverse.
"""

from __future__ import annotations

import importlib
from typing import Any

from .private_api import Harness

__all__ = ["SWEBENCH", "WHAT", "get_eval_report", "load_swebench_dataset", "log_parser",
           "make_test_spec", "predictions_from_file", "run_instance", "test_log_path", "test_spec_class"]

#: the extra's range in pyproject.toml
SWEBENCH = Harness("swebench", "swebench", ">=5.0,<6")
#: the command named in errors
WHAT = "--verify swebench"


def make_test_spec(row: dict[str, Any], what: str = WHAT) -> Any:
    """swebench's ``TestSpec`` of a full SWE-bench row (``make_test_spec``)."""
    return SWEBENCH.private("swebench.harness.utils", "make_test_spec", what)(row)


def test_spec_class(what: str = WHAT) -> Any:
    """swebench's ``TestSpec`` dataclass."""
    return SWEBENCH.private("swebench.types", "TestSpec", what)


def log_parser(repo: str, what: str = WHAT) -> Any:
    """swebench's log parser of ``repo`` (``None`` when swebench has none for it, or is not
    installed)."""
    if SWEBENCH.version() is None:
        return None
    try:
        table = importlib.import_module("swebench.harness.log_parsers.python")
    except ImportError:
        return None
    return SWEBENCH.attribute(table, "MAP_REPO_TO_PARSER_PY",
                              "swebench.harness.log_parsers.python.MAP_REPO_TO_PARSER_PY", what).get(repo)


def get_eval_report(what: str = WHAT, **kwargs: Any) -> dict[str, Any]:
    """swebench's ``get_eval_report(**kwargs)``."""
    report: dict[str, Any] = SWEBENCH.private("swebench.harness.grading", "get_eval_report", what)(**kwargs)
    return report


def run_instance(spec: Any, prediction: dict[str, Any], client: Any, run_id: str, timeout: int,
                 what: str = WHAT) -> None:
    """swebench's ``run_instance``: one prediction through the harness, in Docker."""
    SWEBENCH.private("swebench.harness.run_evaluation", "run_instance", what)(spec, prediction, client, run_id,
                                                                              timeout)


def test_log_path(run_id: str, model: str, instance_id: str, what: str = WHAT) -> str:
    """Where ``run_instance`` writes the test output of one instance."""
    base = SWEBENCH.private("swebench.harness.run_evaluation", "RUN_EVALUATION_LOG_DIR", what)
    name = SWEBENCH.private("swebench.harness.run_evaluation", "LOG_TEST_OUTPUT", what)
    return "/".join([str(base), run_id, model, instance_id, str(name)])


def load_swebench_dataset(name: str, split: str, what: str = WHAT) -> Any:
    """swebench's ``load_swebench_dataset(name, split)``."""
    return SWEBENCH.private("swebench.harness.utils", "load_swebench_dataset", what)(name, split)


def predictions_from_file(path: str, dataset_name: str, split: str, what: str = WHAT) -> Any:
    """swebench's ``get_predictions_from_file``."""
    return SWEBENCH.private("swebench.harness.utils", "get_predictions_from_file", what)(path, dataset_name, split)
