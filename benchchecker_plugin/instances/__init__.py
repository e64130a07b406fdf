"""Bug-fixing benchmark instances (SWE-bench, BugsInPy, Defects4J) as one :class:`BugInstance`."""

from .bug import BugInstance
from .bugsinpy import load_bugsinpy
from .defects4j import PROJECT_REPOS, load_defects4j, reverse_diff
from .load import FORMATS, load_instances
from .swebench import instance_from_swebench, load_swebench

__all__ = [
    "BugInstance",
    "FORMATS",
    "PROJECT_REPOS",
    "instance_from_swebench",
    "load_bugsinpy",
    "load_defects4j",
    "load_instances",
    "load_swebench",
    "reverse_diff",
]
