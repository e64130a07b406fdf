"""Republishing a leaderboard without the instances Stage II flags, for any board in the SWE-bench
experiments layout (SWE-bench Verified, Lite, full, Multi-SWE-bench, an in-house board), or several
pooled over their shared instances.

:func:`republish` reads the boards (:class:`BoardSource`), takes the verdicts from Stage II on
clones, from Stage II flags made before or from an earlier bundle, screens the submissions, scores
them at their models' published cutoffs (or over a plausible interval when a model has none) and
writes the bundle (:class:`Bundle`: the inputs of every figure, with its :class:`BuildFacts`);
its page (power, why-clean kinds, sensitivity, cutoff bands) is then :func:`rebuild` of that
folder, which needs nothing but the bundle.
"""

from ._boards import BoardSource
from ._bundle import BUNDLE_FILES, PAGE_FILES, Bundle, read_bundle, repo_of, submission_verdict, write_bundle
from ._config import RepublishConfig
from ._facts import BuildFacts
from ._paper import verdict_against
from ._rebuild import rebuild
from ._republish import make_bundle, republish

__all__ = [
    "BUNDLE_FILES",
    "BoardSource",
    "BuildFacts",
    "Bundle",
    "PAGE_FILES",
    "RepublishConfig",
    "make_bundle",
    "read_bundle",
    "rebuild",
    "repo_of",
    "republish",
    "submission_verdict",
    "verdict_against",
    "write_bundle",
]
