"""The bootstrap's draw counts made in one piece: the slow, obviously-correct reference the block
draws of ``benchchecker_plugin.scoring._strata`` are checked against."""

from __future__ import annotations

import numpy as np

__all__ = ["resample_counts"]


def resample_counts(tier_idx: np.ndarray, n_tiers: int, n_boot: int, seed: int) -> list[np.ndarray]:
    """Per tier, (1 + n_boot) x the tier's instances draw counts: row 0 all ones (the data), then
    one row per resample, the tier's instances drawn with replacement within the tier (a
    stratified cluster bootstrap). float32: every weighted sum is an integer below 2**24, exact.
    The whole-array reference for ``scoring.strata.strata_sums``, which draws the same numbers a
    block at a time."""
    rng = np.random.default_rng(np.random.SeedSequence(int(seed)))
    out = []
    for t in range(n_tiers):
        m = int((tier_idx == t).sum())
        counts = np.ones((1 + n_boot, m), np.float32)
        if n_boot and m:
            counts[1:] = rng.multinomial(m, np.full(m, 1.0 / m), size=n_boot)
        out.append(counts)
    return out
