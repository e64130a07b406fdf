"""Task files shipped with benchchecker for the harnesses: ``lm_eval/`` holds lm-evaluation-harness
YAML tasks (``mmlu_local_*``, ``ts_guessing_*``; pass the folder as ``--include_path``).

In a checkout this is the top-level ``tasks/`` folder; an installed wheel carries it as the package
``benchchecker_plugin.tasks``. ``benchchecker tasks path`` prints where it is.
"""
