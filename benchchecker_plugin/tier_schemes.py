"""Difficulty tiers, in one place: each scheme's labels, how its labels map to tiers, and the
order tables show them in.

* ``swe-bench-verified``: the four time-to-fix labels, checked (a typo is an error, not a fifth
  tier); rate tables may group the two longest as ``hard``;
* ``multi-swe-bench``: easy / medium / hard; time-to-fix labels mapped as its paper does (easy:
  < 15 min, medium: 15 min - 1 hour, hard: >= 1 hour);
* ``labels``: every other benchmark's labels as written.

A known benchmark names its scheme (:mod:`benchchecker_plugin.benchmarks`); the tier loader
(:mod:`benchchecker_plugin.leaderboard._tiers`) and the rate tables
(:mod:`benchchecker_plugin.scoring._rates`) read it from here. This module imports nothing of ours
but the errors, so both can.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .errors import DataError

__all__ = ["ALL_TIER", "HARD_MEMBERS", "HARD_TIER", "MSB_TIER_OF_TIME", "MULTI_SWE_BENCH_TIERS", "SCHEMES",
           "SWE_BENCH_VERIFIED_TIERS", "TIER_ORDER", "is_empty_label", "map_labels"]

#: the row of every instance together
ALL_TIER = "all"
#: SWE-bench Verified's two longest tiers grouped (``group_hard``), and Multi-SWE-bench's hardest
HARD_TIER = "hard"
SWE_BENCH_VERIFIED_TIERS = ("<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours")
MULTI_SWE_BENCH_TIERS = ("easy", "medium", "hard")
#: the SWE-bench Verified labels grouped as ``hard``
HARD_MEMBERS = frozenset({"1-4 hours", ">4 hours"})
#: display order of the known tiers (unknown labels come after, alphabetically)
TIER_ORDER = {t: i for i, t in enumerate(
    (ALL_TIER, *SWE_BENCH_VERIFIED_TIERS[:2], HARD_TIER, *SWE_BENCH_VERIFIED_TIERS[2:], "easy",
     "medium"))}
MSB_TIER_OF_TIME = {
    "<15 min fix": "easy", "15 min - 1 hour": "medium", "1-4 hours": "hard", ">4 hours": "hard",
    "easy": "easy", "medium": "medium", "hard": "hard",
}
SCHEMES = ("swe-bench-verified", "multi-swe-bench", "labels")
_EMPTY = ("", "nan", "None")


def is_empty_label(label: str) -> bool:
    """Whether a tier cell holds no label (empty, or a missing value written out)."""
    return label in _EMPTY


def map_labels(scheme: str, labels: Sequence[str], source: Any) -> list[str]:
    """``labels`` (stripped cells of ``source``'s tier column) as tiers of ``scheme``;
    :class:`DataError` for a label the scheme does not know, or an unknown scheme."""
    labels = list(labels)
    if scheme == "multi-swe-bench":
        unknown = sorted({lab for lab in labels if lab not in MSB_TIER_OF_TIME})
        if unknown:
            raise DataError(f"{source}: unknown Multi-SWE-bench difficulty labels: "
                            f"{', '.join(unknown[:5])}")
        return [MSB_TIER_OF_TIME[lab] for lab in labels]
    if scheme == "swe-bench-verified":
        unknown = sorted({lab for lab in labels if lab not in SWE_BENCH_VERIFIED_TIERS
                          and not is_empty_label(lab)})
        if unknown:   # a typo would silently become a tier of its own
            raise DataError(f"{source}: unknown SWE-bench Verified difficulty label(s) "
                            f"{', '.join(repr(u) for u in unknown[:5])} (known: "
                            f"{', '.join(SWE_BENCH_VERIFIED_TIERS)}); for another benchmark's "
                            "labels use --benchmark NAME")
        return labels
    if scheme != "labels":
        raise DataError(f"unknown tier scheme {scheme!r} (swe-bench-verified, multi-swe-bench, "
                        "labels)")
    return labels
