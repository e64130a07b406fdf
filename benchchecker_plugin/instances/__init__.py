"""Bug-fixing benchmark instances (SWE-bench, Multi-SWE-bench, BugsInPy, Defects4J) as one
:class:`BugInstance`."""

from ._bug import BugInstance
from ._bugsinpy import load_bugsinpy
from ._defects4j import PROJECT_REPOS, load_defects4j, reverse_diff
from ._load import INSTANCE_FORMATS, load_instances
from ._multi_swe_bench import (
    instance_from_multi_swe_bench,
    is_multi_swe_bench,
    load_multi_swe_bench_instances,
)
from ._multi_swe_bench_tiers import load_multi_swe_bench_tiers
from ._swebench import instance_from_swebench, load_swebench

__all__ = [
    "BugInstance",
    "INSTANCE_FORMATS",
    "PROJECT_REPOS",
    "instance_from_multi_swe_bench",
    "instance_from_swebench",
    "is_multi_swe_bench",
    "load_bugsinpy",
    "load_defects4j",
    "load_instances",
    "load_multi_swe_bench_instances",
    "load_multi_swe_bench_tiers",
    "load_swebench",
    "reverse_diff",
]
