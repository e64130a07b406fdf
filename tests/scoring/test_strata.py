"""The bootstrap's strata sums: the split draws (a generator per chunk of resamples) are the
reference's numbers in any block and on any number of threads, and the sums (taken once per
distinct verdict row, ``RU`` derived) are the plain sums of the explicit resamples."""

from __future__ import annotations

import numpy as np
import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.scoring._strata import _Draws, strata_sums
from tests.helpers.bootstrap import resample_counts


def test_block_draws_equal_the_whole_draw_and_strata_sums_do_not_depend_on_blocks():
    """The bootstrap's counts are drawn a block of whole chunks at a time (memory, threads); they
    must be the reference's numbers, tier after tier, in any blocks and any order, and the sums
    the same."""
    rng = np.random.default_rng(1)
    tier_idx = rng.integers(0, 3, 97)
    whole = resample_counts(tier_idx, 3, 70, 11)
    draws = _Draws(11)
    for t in (2, 0, 1):
        m = int((tier_idx == t).sum())
        parts = {a: draws.rows(t, m, a, b) for a, b in ((64, 71), (0, 32), (32, 64))}
        assert np.array_equal(np.concatenate([parts[0], parts[32], parts[64]]), whole[t])
        assert (whole[t].sum(axis=1) == m).all()   # each resample keeps the tier's size
    with pytest.raises(InputError, match="start at a multiple of 32"):
        draws.rows(0, 5, 1, 40)
    res = rng.random((4, 97)) < 0.5
    codes = rng.integers(0, 3, (4, 97)).astype(np.int8)
    sums = strata_sums(res, codes, tier_idx, 3, n_boot=70, seed=11)
    q = np.stack([res, codes == 0, res & (codes == 0), codes == 1, res & (codes == 1), codes == 2,
                  res & (codes == 2)], axis=1)   # submissions x quantities x instances
    for t in range(3):
        ref = np.einsum("bi,sqi->bqs", whole[t].astype(np.float64), q[:, :, tier_idx == t])
        assert np.array_equal(sums.q[t], ref)
        assert np.array_equal(sums.n[t], whole[t].sum(axis=1))


def test_strata_sums_of_submissions_sharing_verdicts_equal_the_plain_sums():
    """Submissions on one model share a verdict row: its clean / contaminated / undecided sums are
    taken once and given to each of them, and ``RU`` is derived; the sums are the plain ones."""
    rng = np.random.default_rng(5)
    tier_idx = rng.integers(0, 2, 60)
    whole = resample_counts(tier_idx, 2, 40, 7)
    res = rng.random((6, 60)) < 0.4
    models = rng.integers(0, 3, (3, 60)).astype(np.int8)
    codes = models[[0, 1, 0, 2, 2, 0]]
    sums = strata_sums(res, codes, tier_idx, 2, n_boot=40, seed=7)
    q = np.stack([res, codes == 0, res & (codes == 0), codes == 1, res & (codes == 1), codes == 2,
                  res & (codes == 2)], axis=1)
    for t in range(2):
        ref = np.einsum("bi,sqi->bqs", whole[t].astype(np.float64), q[:, :, tier_idx == t])
        assert np.array_equal(sums.q[t], ref)
    with pytest.raises(InputError, match="verdict codes"):
        strata_sums(res, codes + 2, tier_idx, 2, n_boot=3, seed=7)
    with pytest.raises(InputError, match="resolved an instance outside its own instance list"):
        strata_sums(res, codes + 1, tier_idx, 2, n_boot=3, seed=7)


def test_draws_made_ahead_give_the_same_sums_and_others_are_not_taken():
    """The draws started before the inputs are read (BootstrapDraws, in a thread) are the ones
    strata_sums makes itself; draws of another seed or other tier sizes are closed, not used."""
    from benchchecker_plugin.scoring import BootstrapDraws

    rng = np.random.default_rng(8)
    tier_idx = rng.integers(0, 3, 90)
    tier_idx[tier_idx == 1] = 2   # an empty tier
    res = rng.random((5, 90)) < 0.5
    codes = rng.integers(0, 3, (5, 90)).astype(np.int8)
    plain = strata_sums(res, codes, tier_idx, 3, n_boot=45, seed=21)
    sizes = np.bincount(tier_idx, minlength=3).tolist()
    ahead = BootstrapDraws(21, 45, sizes)
    got = strata_sums(res, codes, tier_idx, 3, n_boot=45, seed=21, draws=ahead)
    assert np.array_equal(got.q, plain.q) and np.array_equal(got.n, plain.n)
    with pytest.raises(InputError, match="taken already"):
        ahead.take(0)
    for other in (BootstrapDraws(22, 45, sizes), BootstrapDraws(21, 45, [90, 0, 0])):
        got = strata_sums(res, codes, tier_idx, 3, n_boot=45, seed=21, draws=other)
        assert np.array_equal(got.q, plain.q)
        with pytest.raises(InputError, match="taken already or never made"):
            other.take(0)   # closed: nothing is kept
    stopped = BootstrapDraws(21, 5000, [10_000], threads=1)
    stopped.close()
    assert sum(job.cancelled() for job in stopped._jobs[0]) > 100   # the chunks not yet started


def test_the_sums_are_the_same_on_any_number_of_threads():
    """Each chunk of resamples has its own generator (SeedSequence.spawn), so the draws made on
    one thread, on three, or ahead (BootstrapDraws) are the same numbers, and so the sums."""
    from benchchecker_plugin.scoring import BootstrapDraws

    rng = np.random.default_rng(3)
    tier_idx = rng.integers(0, 4, 3000)
    res = rng.random((7, 3000)) < 0.5
    codes = rng.integers(0, 3, (7, 3000)).astype(np.int8)
    one = strata_sums(res, codes, tier_idx, 4, n_boot=300, seed=5, threads=1)
    for threads in (2, 3, 8):
        got = strata_sums(res, codes, tier_idx, 4, n_boot=300, seed=5, threads=threads)
        assert np.array_equal(got.q, one.q) and np.array_equal(got.n, one.n)
        ahead = BootstrapDraws(5, 300, np.bincount(tier_idx, minlength=4).tolist(), threads=threads)
        got = strata_sums(res, codes, tier_idx, 4, n_boot=300, seed=5, draws=ahead)
        assert np.array_equal(got.q, one.q)
    assert not np.array_equal(strata_sums(res, codes, tier_idx, 4, n_boot=300, seed=6).q, one.q)
