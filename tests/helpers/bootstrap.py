"""The bootstrap's draw counts made in one piece: the slow, obviously-correct reference the split
draws of ``benchchecker_plugin.scoring._strata`` are checked against."""

from __future__ import annotations

import numpy as np

__all__ = ["CHUNK", "resample_counts"]

CHUNK = 32   # resamples per generator


def resample_counts(tier_idx: np.ndarray, n_tiers: int, n_boot: int, seed: int) -> list[np.ndarray]:
    """Per tier, (1 + n_boot) x the tier's instances draw counts: row 0 all ones (the data), then
    one row per resample, the tier's instances drawn with replacement within the tier (a
    stratified cluster bootstrap). float32: every weighted sum is an integer below 2**24, exact.

    Rows ``CHUNK * k`` to ``CHUNK * (k + 1)`` of tier ``t`` come from the generator of the
    seed's ``SeedSequence`` spawned child ``t``, spawned child ``k``: each resample picks the
    tier's size of indices uniformly and counts each instance one pick at a time. The whole-array
    reference for ``scoring.strata.strata_sums``, which draws the same numbers a block at a time,
    on several threads."""
    n_rows = 1 + n_boot
    n_chunks = -(-n_rows // CHUNK)
    tiers = np.random.SeedSequence(int(seed)).spawn(n_tiers)
    out = []
    for t in range(n_tiers):
        m = int((tier_idx == t).sum())
        counts = np.ones((n_rows, m), np.float32)
        for k, child in enumerate(tiers[t].spawn(n_chunks)):
            rows = range(max(1, k * CHUNK), min((k + 1) * CHUNK, n_rows))
            if not m or not rows:
                continue
            picks = np.random.default_rng(child).integers(0, m, size=(len(rows), m))
            for r, row in zip(rows, picks, strict=True):
                counts[r] = 0
                for i in row:
                    counts[r, i] += 1
        out.append(counts)
    return out
