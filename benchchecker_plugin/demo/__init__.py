"""``benchchecker demo``: the whole pipeline, offline, on shipped defaults and real data."""

from ._page import format_value, write_demo_report
from ._steps import REPUBLISHED, STEPS, DemoContext, StepResult, run_step

__all__ = [
    "DemoContext",
    "REPUBLISHED",
    "STEPS",
    "StepResult",
    "format_value",
    "run_step",
    "write_demo_report",
]
