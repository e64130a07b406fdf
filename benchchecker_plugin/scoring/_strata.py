"""The per-stratum sums the pooled estimator rests on, for the data and every cluster-bootstrap
resample: the costly part of a leaderboard (1001 resamples x 1e5 instances x 100 submissions).

A resample draws each tier's instances with replacement (a stratified cluster bootstrap); its
sums are a product of the draw counts (resamples x instances) with the instances' 0/1 data
(instances x quantities), exact in float32 (every sum is an integer below 2**24). The product
is taken only over what is not already known: per submission ``R``, ``RC`` and ``RX``; ``C``,
``X`` and ``U`` once per *distinct* verdict row (the submissions of one model share theirs);
``RU = R - RC - RX`` after it.

The draws are split: the counts of each chunk of :data:`CHUNK` resamples of a tier come from
their own generator, a child of the seed's :class:`numpy.random.SeedSequence`
(``SeedSequence(seed).spawn`` per tier, then per chunk), so the chunks are drawn in parallel, on
any number of threads, in any order, and give the same numbers: the sums are identical whatever
the thread count. A chunk's resample draws ``m`` instance indices uniformly (``m`` the tier's
size) and counts them (a multinomial draw, made as ``m`` uniform integers and a count: a tenth of
the cost of ``Generator.multinomial``'s binomials). The draws are made a block of rows ahead of
the product, on a pool of threads (numpy draws without the GIL), with BLAS on one thread (several
thread pools, ours and BLAS's, only wait on each other); or, started before the inputs are read
(:class:`BootstrapDraws`), while the caller reads them.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing, contextmanager
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

#: the per-instance quantities summed per stratum, in this order along axis 2 of StrataSums.q
QUANTITIES = ("R", "C", "RC", "X", "RX", "U", "RU")
CLEAN, CONTAMINATED, UNDECIDED = 0, 1, 2
#: the code of an instance outside a submission's own instance list (several boards pooled): in
#: none of C, X, U, so the submission's stratum size ``C + X + U`` leaves it out
OUTSIDE = 3
#: resamples per generator: the unit of the split draws (the product's blocks are whole chunks)
CHUNK = 32


def draw_threads() -> int:
    """The threads the draws are made on by default: the CPUs this process may use, at most 4
    (the draws of a 1e5-instance board take under a second of CPU)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:   # (not on every platform)
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


@dataclass(frozen=True)
class StrataSums:
    """Weighted per-stratum sums: ``q[t, b, j, s]`` for tier ``t``, resample ``b`` (0: the data
    itself), quantity ``QUANTITIES[j]``, submission ``s``; ``n[t, b]`` the tier's instance count."""

    q: np.ndarray
    n: np.ndarray

    def get(self, name: str) -> np.ndarray:
        """(tiers x resamples x submissions) sums of ``name`` (``R``, ``C``, ``RC``, ...)."""
        return self.q[:, :, QUANTITIES.index(name), :]


class _Draws:
    """The bootstrap's draw counts of one seed: row 0 of every tier all ones (the data), row
    ``b`` >= 1 a resample of the tier's instances with replacement. Rows ``[CHUNK * k, CHUNK *
    (k + 1))`` of tier ``t`` come from the generator of ``SeedSequence(seed)``'s child ``t``'s
    child ``k``: any block of whole chunks is drawn alone, on any thread, the same numbers."""

    def __init__(self, seed: int) -> None:
        self._seed = int(seed)

    def rows(self, t: int, m: int, start: int, stop: int) -> np.ndarray:
        """Rows ``start`` to ``stop`` (float32) of tier ``t`` of ``m`` instances; ``start`` a
        multiple of :data:`CHUNK`, ``stop`` one too or the tier's last row + 1."""
        if start % CHUNK:
            raise InputError(f"draw rows start at a multiple of {CHUNK}, got {start}")
        counts = np.ones((stop - start, m), np.float32)
        if not m:
            return counts
        for c0 in range(start, stop, CHUNK):
            c1 = min(c0 + CHUNK, stop)
            self._chunk(t, m, c0, counts[c0 - start:c1 - start])
        return counts

    def _chunk(self, t: int, m: int, c0: int, out: np.ndarray) -> None:
        """Chunk ``c0 // CHUNK`` of tier ``t`` into ``out`` (its rows; row 0 of the tier stays ones)."""
        seq = np.random.SeedSequence(self._seed, spawn_key=(t, c0 // CHUNK))
        rng = np.random.default_rng(seq)
        first = 1 if c0 == 0 else 0
        picks = rng.integers(0, m, size=(out.shape[0] - first, m))
        for r, row in enumerate(picks, start=first):
            out[r] = np.bincount(row, minlength=m)


class BootstrapDraws:
    """The draw counts :func:`strata_sums` makes for ``n_boot`` resamples of tiers of ``sizes``
    instances (``seed``), made on a pool of ``threads`` threads from construction on, while the
    caller reads its other inputs (numpy draws without the GIL): the same chunks, the same
    numbers, held as uint8 (1001 x 1e5 counts: 100 MB) until :func:`strata_sums` takes them, a
    tier at a time. :meth:`close` stops the drawing (an error before the sums)."""

    def __init__(self, seed: int, n_boot: int, sizes: Sequence[int], *, threads: int | None = None) -> None:
        self.key = (int(seed), int(n_boot), tuple(int(m) for m in sizes))
        n_rows = 1 + self.key[1]
        self._tiers: list[np.ndarray | None] = [np.empty((n_rows, m), np.uint8) for m in self.key[2]]
        draws = _Draws(self.key[0])
        self._pool = ThreadPoolExecutor(threads or draw_threads(), thread_name_prefix="bootstrap-draws")
        self._jobs: list[list[Future[None]]] = [
            [self._pool.submit(self._fill, draws, t, m, b0, min(b0 + CHUNK, n_rows))
             for b0 in range(0, n_rows, CHUNK)] if m else []
            for t, m in enumerate(self.key[2])]
        self._pool.shutdown(wait=False)   # the submitted chunks still run; the threads end after

    def _fill(self, draws: _Draws, t: int, m: int, b0: int, b1: int) -> None:
        out = self._tiers[t]
        if out is None:   # closed, or taken already
            return
        block = draws.rows(t, m, b0, b1)
        if block.max() > 255:   # (a count of 256 draws of one instance: never seen)
            raise OverflowError("a draw count does not fit in a byte")
        out[b0:b1] = block

    def take(self, t: int) -> np.ndarray:
        """Tier ``t``'s counts (resamples x instances, uint8), waiting for them; given once."""
        for job in self._jobs[t]:
            job.result()   # a chunk's error is raised here, in the caller's thread
        out, self._tiers[t] = self._tiers[t], None
        if out is None:
            raise InputError(f"the draws of tier {t} were taken already or never made")
        return out

    def close(self) -> None:
        """Stop drawing (what was drawn is dropped)."""
        for jobs in self._jobs:
            for job in jobs:
                job.cancel()
        self._tiers = [None] * len(self._tiers)


def strata_sums(resolved: np.ndarray, codes: np.ndarray, tier_idx: np.ndarray, n_tiers: int, *,
                n_boot: int, seed: int, draws: BootstrapDraws | None = None,
                threads: int | None = None) -> StrataSums:
    """Per-stratum sums of the data (resample 0) and of ``n_boot`` cluster-bootstrap resamples.

    ``resolved`` (submissions x instances, bool), ``codes`` (same shape; 0 clean, 1 contaminated,
    2 undecided, 3 outside the submission's instance list), ``tier_idx`` (instances; 0 ..
    ``n_tiers`` - 1). ``draws``: the counts already
    being drawn (:class:`BootstrapDraws`), taken when they are of this seed, ``n_boot`` and
    tier sizes (else drawn here, on ``threads`` threads: the same sums on any number)."""
    res = np.asarray(resolved, dtype=bool)
    codes = np.asarray(codes)
    tier_idx = np.asarray(tier_idx, dtype=np.intp)
    if res.shape != codes.shape or tier_idx.shape != res.shape[1:]:
        raise InputError(f"resolved {res.shape}, codes {codes.shape} and tiers {tier_idx.shape} "
                         "do not match (submissions x instances)")
    if codes.size and not _valid_codes(codes):
        raise InputError("verdict codes must be 0 (clean), 1 (contaminated), 2 (undecided) or 3 "
                         "(outside the submission's instances)")
    if codes.size and bool((res & (codes == OUTSIDE)).any()):
        raise InputError("a submission resolved an instance outside its own instance list")
    s, n_rows = res.shape[0], 1 + int(n_boot)
    distinct, row_of = _distinct_rows(codes)
    q = np.zeros((n_tiers, n_rows, len(QUANTITIES), s), np.float64)
    n = np.zeros((n_tiers, n_rows), np.float64)
    # few large products: many small ones cost far more than their arithmetic (BLAS start-up);
    # a block's draws hold at most 8M counts (32 MB)
    block = CHUNK * max(1, 8_000_000 // max(1, len(QUANTITIES) * s, int(tier_idx.size)) // CHUNK)
    tiers = [(t, np.flatnonzero(tier_idx == t)) for t in range(n_tiers)]
    tiers = [(t, cols) for t, cols in tiers if cols.size]
    spans = [(t, cols.size, b0, min(b0 + block, n_rows)) for t, cols in tiers
             for b0 in range(0, n_rows, block)]
    threads = threads or draw_threads()
    sizes = tuple(np.bincount(tier_idx, minlength=n_tiers).tolist()) if tier_idx.size \
        else (0,) * n_tiers
    ready = draws is not None and draws.key == (int(seed), int(n_boot), sizes)
    if draws is not None and not ready:
        draws.close()   # of other inputs: drawn here instead
    with (_one_blas_thread(), ThreadPoolExecutor(threads, thread_name_prefix="draws") as pool,
          closing(_taken(draws, spans) if ready and draws else _ahead(pool, _Draws(seed), spans, threads))
          as blocks):
        for t, cols in tiers:
            stack = _per_instance(res[:, cols], codes[:, cols], distinct[:, cols])
            for b0 in range(0, n_rows, block):
                w = next(blocks)
                b1 = b0 + w.shape[0]
                n[t, b0:b1] = w.sum(axis=1, dtype=np.float64)
                _unpack(w @ stack, row_of, q[t, b0:b1])
                del w
            del stack
    return StrataSums(q, n)


def _taken(draws: BootstrapDraws, spans: list[tuple[int, int, int, int]]
           ) -> Generator[np.ndarray, None, None]:
    """The blocks of ``spans`` from counts drawn ahead, as float32 (a tier's counts dropped once
    its blocks are given)."""
    counts, tier = None, -1
    for t, _, b0, b1 in spans:
        if t != tier:
            counts, tier = draws.take(t), t
        assert counts is not None
        yield counts[b0:b1].astype(np.float32)


def _valid_codes(codes: np.ndarray) -> bool:
    if np.issubdtype(codes.dtype, np.integer):   # (a bound check: no 1e7-element isin)
        return bool(codes.min() >= CLEAN and codes.max() <= OUTSIDE)
    return bool(np.isin(codes, (CLEAN, CONTAMINATED, UNDECIDED, OUTSIDE)).all())


def _ahead(pool: ThreadPoolExecutor, draws: _Draws, spans: list[tuple[int, int, int, int]],
           threads: int) -> Generator[np.ndarray, None, None]:
    """The draw blocks of ``spans`` (tier, instances, first row, end row) in order, made in
    ``pool``'s ``threads`` threads, as many ahead as there are threads, while the ones before
    them are used (each block is its own chunks' numbers, whichever thread draws it)."""
    pending: deque[Future[np.ndarray]] = deque()
    try:
        for t, m, b0, b1 in spans:
            pending.append(pool.submit(draws.rows, t, m, b0, b1))
            if len(pending) > threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for f in pending:   # the consumer stopped early (an error): nothing more is drawn
            f.cancel()


def _distinct_rows(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``codes`` (in order of first appearance) and each row's index into
    them: submissions on the same model share their verdicts."""
    if codes.shape[0] == 0:
        return codes, np.zeros(0, np.intp)
    first: dict[bytes, int] = {}
    row_of = np.array([first.setdefault(np.ascontiguousarray(r).tobytes(), len(first))
                       for r in codes], dtype=np.intp)
    keep = np.unique(row_of, return_index=True)[1]
    return codes[np.sort(keep)], row_of


def _per_instance(res: np.ndarray, codes: np.ndarray, distinct: np.ndarray) -> np.ndarray:
    """The (instances x columns) float32 0/1 matrix of one tier: ``R``, ``RC``, ``RX`` of every
    submission (``res``, ``codes``), then ``C``, ``X``, ``U`` of every distinct verdict row
    (``distinct``), built one quantity at a time (no copy of all tiers at once)."""
    s, d = res.shape[0], distinct.shape[0]
    out = np.empty((res.shape[1], 3 * s + 3 * d), np.float32)
    out[:, :s] = res.T
    out[:, s:2 * s] = (res & (codes == CLEAN)).T
    out[:, 2 * s:3 * s] = (res & (codes == CONTAMINATED)).T
    for j, code in enumerate((CLEAN, CONTAMINATED, UNDECIDED)):
        out[:, 3 * s + j * d:3 * s + (j + 1) * d] = (distinct == code).T
    return out


def _unpack(prod: np.ndarray, row_of: np.ndarray, q: np.ndarray) -> None:
    """Spread a block's product (rows x columns of :func:`_per_instance`) into ``q`` (rows x
    quantities x submissions): each distinct row's sums to its submissions, ``RU`` derived
    (exact: integers)."""
    s = row_of.size
    d = (prod.shape[1] - 3 * s) // 3
    at = QUANTITIES.index
    q[:, at("R")] = prod[:, :s]
    q[:, at("RC")] = prod[:, s:2 * s]
    q[:, at("RX")] = prod[:, 2 * s:3 * s]
    for j, name in enumerate(("C", "X", "U")):
        q[:, at(name)] = prod[:, 3 * s + j * d:3 * s + (j + 1) * d][:, row_of]
    q[:, at("RU")] = q[:, at("R")] - q[:, at("RC")] - q[:, at("RX")]


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """BLAS on one thread for the products (restored after): their blocks are small, and BLAS's
    threads spinning beside the draw thread (or another job) cost more than they share."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield
