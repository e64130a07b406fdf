"""benchchecker: per-instance contamination flags for benchmarks, and re-scoring without them.

The core imports no evaluation harness (lm-eval, inspect_ai, swebench) at import time; the
``harness_adapters`` package does, lazily.
"""

from ._version import __version__
from .errors import BenchcheckerError
from .flags import ContaminationFlag, Verdict, merge_flags, read_flags, write_flags

__all__ = [
    "BenchcheckerError",
    "ContaminationFlag",
    "Verdict",
    "__version__",
    "merge_flags",
    "read_flags",
    "write_flags",
]
