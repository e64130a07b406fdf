"""The minimum detectable drop of a cell: the smallest relative drop that the published estimator
(Mantel–Haenszel drop, cluster-bootstrap percentile interval) would detect with 80% power.

Method, in one sentence (:data:`MDE_SENTENCE`): in each of ``n_sims`` simulated null worlds the
verdicts are permuted among the instances of each tier (one permutation for every submission, so
the clean set keeps its size and its sharing across submissions but has no drop), a relative drop
``D`` is planted by marking each resolved clean (submission, instance) unresolved with the
probability ``t = D / (1 - c (1 - D))`` of its (submission, tier) stratum (``c`` its clean share,
so that the stratum's ``1 - clean / original`` is ``D`` in expectation), and the drop counts as
detected when the lower end of its 95% cluster-bootstrap interval is above 0; the MDE is the
smallest ``D`` detected in at least 80% of the worlds, found by bisection on ``D``.

Cost: the bootstrap draws (instance counts per tier) are drawn once and reused by every world and
every ``D``; the random numbers of the worlds are fixed too (common random numbers), so power is
monotone in ``D`` and bisection converges; one step is a matrix product of the draw counts with
the worlds' per-instance indicators, all worlds and (for per-submission cells) all submissions at
once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ._bootstrap import percentile_interval
from ._strata import CLEAN, OUTSIDE

MDE_SENTENCE = (
    "MDE (minimum detectable drop): the smallest relative drop that this estimator and its 95% "
    "cluster-bootstrap interval detect (interval above 0) in 80% of {n_sims} simulated worlds "
    "where the verdicts are permuted within tiers (no drop) and that drop is planted in the clean "
    "instances ({n_boot} resamples, seed {seed}, bisection to {step:.1f} points).")


@dataclass(frozen=True)
class MdeConfig:
    """How the MDE is simulated: worlds, bootstrap resamples per world, power, interval, steps."""

    n_sims: int = 100
    n_boot: int = 200
    power: float = 0.8
    ci: float = 0.95
    steps: int = 8
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("n_sims", "n_boot", "steps"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise InputError(f"MdeConfig.{name} must be a positive integer, got {value!r}")
        if not 0.0 < self.power < 1.0 or not 0.0 < self.ci < 1.0:
            raise InputError(f"MdeConfig power and ci must lie in (0, 1), got {self.power}, {self.ci}")

    def sentence(self) -> str:
        return MDE_SENTENCE.format(n_sims=self.n_sims, n_boot=self.n_boot, seed=self.seed,
                                   step=100.0 / 2 ** self.steps)


@dataclass(frozen=True)
class _Worlds:
    """The fixed randomness of the simulation for one set of instances."""

    perm: np.ndarray      # (sims, m): column permutation within tiers
    u: np.ndarray         # (sims, S, m) uniforms for thinning
    counts: list[np.ndarray]   # per tier: (1 + B, m_t) bootstrap draw counts (row 0: the data)


def _draw(resolved: np.ndarray, tier_idx: np.ndarray, n_tiers: int, cfg: MdeConfig) -> _Worlds:
    rng = np.random.default_rng(np.random.SeedSequence([int(cfg.seed), 0x4D4445]))
    s, m = resolved.shape
    perm = np.empty((cfg.n_sims, m), np.intp)
    for k in range(cfg.n_sims):
        p = np.arange(m)
        for t in range(n_tiers):
            where = np.flatnonzero(tier_idx == t)
            p[where] = rng.permutation(where)
        perm[k] = p
    u = rng.random((cfg.n_sims, s, m), dtype=np.float32)
    counts = []
    for t in range(n_tiers):
        mt = int((tier_idx == t).sum())
        c = np.ones((1 + cfg.n_boot, mt), np.float32)
        if mt:
            c[1:] = rng.multinomial(mt, np.full(mt, 1.0 / mt), size=cfg.n_boot)
        counts.append(c)
    return _Worlds(perm, u, counts)


def _detected(resolved: np.ndarray, codes: np.ndarray, tier_idx: np.ndarray, tiers: np.ndarray,
              cells: Sequence[np.ndarray], drop: np.ndarray, worlds: _Worlds, cfg: MdeConfig
              ) -> np.ndarray:
    """(cells,) power: the share of worlds in which each cell's planted ``drop`` is detected.
    ``cells`` are disjoint sets of submission rows; each gets its own planted drop."""
    sims = worlds.perm.shape[0]
    sub_rows = np.concatenate(cells)
    cell_of = np.concatenate([np.full(c.size, k) for k, c in enumerate(cells)])
    d = drop[cell_of][None, :, None]                          # (1, S', 1)
    num = np.zeros((1 + cfg.n_boot, sims, len(cells)))
    den = np.zeros_like(num)
    outside = codes[sub_rows] == OUTSIDE if bool((codes == OUTSIDE).any()) else None
    for t in tiers:
        where = np.flatnonzero(tier_idx == t)
        if where.size == 0:
            continue
        res = resolved[sub_rows][:, where]                        # (S', m_t)
        clean = codes[sub_rows][:, worlds.perm[:, where]] == CLEAN  # (S', sims, m_t)
        clean = clean.transpose(1, 0, 2)                          # (sims, S', m_t)
        cnt = worlds.counts[int(t)]
        n_t: float | np.ndarray = float(where.size)
        size: float | np.ndarray = where.size
        if outside is not None:   # several boards: a submission's stratum is its own instances
            own = ~outside[:, where]                              # (S', m_t), not permuted
            clean &= own[None]
            size = np.maximum(own.sum(axis=1), 1)[None, :, None]
            n_t = (cnt @ own.T.astype(np.float32))[:, None, :]    # (1 + B, 1, S')
        share = clean.sum(axis=2, keepdims=True) / size           # c of each stratum
        thin = d / (1.0 - share * (1.0 - d))
        planted = res[None] & ~(clean & (worlds.u[:, sub_rows][:, :, where] < thin))
        mt = where.size

        def flat(x: np.ndarray, mt: int = mt) -> np.ndarray:
            return x.reshape(-1, mt).T.astype(np.float32)

        shape = (1 + cfg.n_boot, sims, len(sub_rows))
        r = (cnt @ flat(planted)).reshape(shape)
        c = (cnt @ flat(clean)).reshape(shape)
        rc = (cnt @ flat(planted & clean)).reshape(shape)
        ok = c > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.where(ok, rc * n_t / (c + n_t), 0.0)
            b = np.where(ok, r * c / (c + n_t), 0.0)
        for k in range(len(cells)):
            sel = cell_of == k
            num[:, :, k] += a[:, :, sel].sum(axis=2)
            den[:, :, k] += b[:, :, sel].sum(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        est = np.where(den > 0, 1.0 - num / np.where(den > 0, den, 1.0), np.nan)
    boots = est[1:]
    undefined = np.isnan(boots).sum(axis=0)
    low, _ = percentile_interval(boots, cfg.ci, axis=0)
    hit = (low > 0) & (undefined <= (1.0 - cfg.ci) / 2.0 * cfg.n_boot)
    return np.asarray(hit.mean(axis=0), dtype=float)


def minimum_detectable_drop(resolved: np.ndarray, codes: np.ndarray, tier_idx: np.ndarray,
                            n_tiers: int, tiers: np.ndarray, cells: Sequence[np.ndarray],
                            config: MdeConfig | None = None, worlds: _Worlds | None = None
                            ) -> np.ndarray:
    """The MDE (a fraction, 0..1) of each cell: ``cells`` are disjoint arrays of submission rows
    of ``resolved`` / ``codes`` (submissions x instances; codes 0 clean, 1 contaminated, 2
    undecided, 3 outside the submission's own instance list), pooled over ``tiers`` (indices
    into ``0 .. n_tiers - 1``). ``nan`` where even a
    drop of 100% is detected in fewer than ``config.power`` of the worlds (no resolved clean
    instance to remove, or too few clean instances to estimate)."""
    cfg = config or MdeConfig()
    resolved = np.asarray(resolved, dtype=bool)
    codes = np.asarray(codes)
    tier_idx = np.asarray(tier_idx, dtype=np.intp)
    if resolved.shape != codes.shape or tier_idx.shape != resolved.shape[1:]:
        raise InputError(f"resolved {resolved.shape}, codes {codes.shape} and tiers "
                         f"{tier_idx.shape} do not match (submissions x instances)")
    cells = [np.asarray(c, dtype=np.intp) for c in cells]
    if not cells:
        return np.zeros(0)
    rows = np.concatenate(cells)
    if len(set(rows.tolist())) != rows.size:
        raise InputError("minimum_detectable_drop: cells must not share submissions")
    w = worlds or _draw(resolved, tier_idx, n_tiers, cfg)
    tiers = np.asarray(tiers, dtype=np.intp)
    lo = np.zeros(len(cells))
    hi = np.ones(len(cells))
    top = _detected(resolved, codes, tier_idx, tiers, cells, hi, w, cfg) >= cfg.power
    for _ in range(cfg.steps):
        mid = (lo + hi) / 2.0
        ok = _detected(resolved, codes, tier_idx, tiers, cells, mid, w, cfg) >= cfg.power
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return np.where(top, hi, np.nan)


def draw_worlds(resolved: np.ndarray, tier_idx: np.ndarray, n_tiers: int,
                config: MdeConfig) -> _Worlds:
    """The fixed randomness for :func:`minimum_detectable_drop` (draw once, reuse for every
    cell of the same instances)."""
    return _draw(np.asarray(resolved, dtype=bool), np.asarray(tier_idx, dtype=np.intp), n_tiers,
                 config)
