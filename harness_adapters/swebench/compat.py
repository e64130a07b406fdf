"""The swebench names benchchecker uses: the core's :mod:`benchchecker_plugin.swebench_compat`,
re-exported for the adapter (the adapter imports the core, never the reverse)."""

from benchchecker_plugin.swebench_compat import (
    SWEBENCH,
    WHAT,
    get_eval_report,
    load_swebench_dataset,
    log_parser,
    make_test_spec,
    predictions_from_file,
    run_instance,
    test_log_path,
    test_spec_class,
)

__all__ = ["SWEBENCH", "WHAT", "get_eval_report", "load_swebench_dataset", "log_parser",
           "make_test_spec", "predictions_from_file", "run_instance", "test_log_path", "test_spec_class"]
