"""One small real-data case per sweep (issue 26): a test that checks every item of a real data set
runs whole in the slow tier and, in the fast tier, on a sample drawn with a fixed seed, so a
regression in the data path still fails the fast tier.

    @SWEEP
    def test_every_patch_parses(whole: bool) -> None:
        for inst in sweep(load_instances(src), whole):
            ...
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

import pytest

__all__ = ["SAMPLE_SEED", "SAMPLE_SIZE", "SWEEP", "seeded_sample", "sweep"]

T = TypeVar("T")
SAMPLE_SEED = 26
SAMPLE_SIZE = 12

SWEEP = pytest.mark.parametrize("whole", [pytest.param(False, id="sample"),
                                          pytest.param(True, id="whole", marks=pytest.mark.slow)])
"""Parametrize a sweep as ``whole=False`` (fast tier: a seeded sample) and ``whole=True`` (slow tier)."""


def seeded_sample(items: Sequence[T], k: int = SAMPLE_SIZE, *, seed: int = SAMPLE_SEED) -> list[T]:
    """``k`` of ``items`` (all of them when there are no more), drawn with ``seed``, in their order."""
    if k < 1:
        raise ValueError(f"seeded_sample: k must be >= 1, got {k}")
    if k >= len(items):
        return list(items)
    return [items[i] for i in sorted(random.Random(seed).sample(range(len(items)), k))]


def sweep(items: Sequence[T], whole: bool, k: int = SAMPLE_SIZE) -> list[T]:
    """Every item when ``whole``, else ``seeded_sample(items, k)``."""
    return list(items) if whole else seeded_sample(items, k)
