"""SWE-bench (and Multi-SWE-bench report) wrapper: ``benchchecker swebench run_evaluation`` and
``benchchecker swebench rescore`` (see :mod:`harness_adapters.swebench._cli`). Nothing is imported
at package import."""
