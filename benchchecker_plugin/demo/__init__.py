"""``benchchecker demo``: the whole pipeline, offline, on shipped defaults and real data."""

from .page import format_value, write_demo_report
from .steps import STEPS, DemoContext, StepResult, run_step

__all__ = ["DemoContext", "STEPS", "StepResult", "format_value", "run_step", "write_demo_report"]
