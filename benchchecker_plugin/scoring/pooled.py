"""Pooled, tier-stratified relative drops with a cluster bootstrap: the one estimator behind every
per-submission drop and every summary over submissions.

A *stratum* is one (submission, tier). In stratum ``k`` there are ``N`` instances of which ``R``
were resolved; ``C`` are clean (``RC`` resolved), ``X`` contaminated (``RX`` resolved), ``U``
undecided (``RU`` resolved). Two quantities are estimated over any set of strata:

- **drop** (the paper's): how much lower the clean resolution rate is than the original one,
  ``1 - RR`` with ``RR`` the Mantel–Haenszel risk ratio of clean against all instances::

      RR = sum_k RC_k N_k / (C_k + N_k)  /  sum_k R_k C_k / (C_k + N_k)

  Within one stratum it is ``(original - clean) / original``. Over several it compares clean and
  original rates *within* each tier and submission, so a clean set made of easier tiers does not
  pass for a negative drop, and a submission resting on 3 clean instances weighs in by its
  counts, never as one ratio among equals (there is no mean of ratios here).
- **clean vs contaminated**: ``1 - RR`` with clean against contaminated instances
  (``RC_k X_k / (C_k + X_k)`` over ``RX_k C_k / (C_k + X_k)``).

Intervals come from a **cluster bootstrap** over instances, stratified by tier: a resample draws
each tier's instances with replacement, and a drawn instance brings every submission's result and
verdict on it. Submissions share instances, so resampling submissions (or treating their drops as
independent) would overstate the evidence. Percentile intervals; resamples in which an estimate is
undefined are left out and counted.

A cell is estimated only with at least ``min_clean`` distinct clean instances *and*
``min_resolved_clean`` distinct clean instances resolved (by at least one of its submissions);
otherwise it reads ``too few (clean n=…, resolved n=…)``. An interval that cannot vary (every
resample gives the same value) is not printed as ``[x, x]``: its note says why.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from .bootstrap import percentile_interval
from .roc import UndefinedMetricWarning

__all__ = [
    "MIN_CLEAN",
    "MIN_RESOLVED_CLEAN",
    "POOLED_COLUMNS",
    "TOO_FEW",
    "StrataSums",
    "mantel_haenszel_ratio",
    "pooled_table",
    "strata_sums",
]

TOO_FEW = "too few"
# the defaults of every published drop (leaderboard, rescore, the harness wrappers, the page)
MIN_CLEAN = 20
MIN_RESOLVED_CLEAN = 10
POOLED_COLUMNS = (
    "group", "tier", "n_submissions", "n_instances", "n_clean", "n_resolved_clean",
    "n_contaminated", "n_undecided", "original_rate", "clean_rate", "clean_rate_std",
    "contaminated_rate", "undecided_rate", "relative_drop", "drop_ci_low", "drop_ci_high",
    "clean_vs_contaminated", "cvc_ci_low", "cvc_ci_high", "note",
)
# the per-instance quantities summed per stratum, in this order along axis 1 of StrataSums.q
_Q = ("R", "C", "RC", "X", "RX", "U", "RU")
CLEAN, CONTAMINATED, UNDECIDED = 0, 1, 2


@dataclass(frozen=True)
class StrataSums:
    """Weighted per-stratum sums: ``q[b, j, s, t]`` for resample ``b`` (0: the data itself),
    quantity ``_Q[j]``, submission ``s``, tier ``t``; ``n[b, t]`` the tier's instance count."""

    q: np.ndarray
    n: np.ndarray

    def get(self, name: str) -> np.ndarray:
        """(resamples x submissions x tiers) sums of ``name`` (``R``, ``C``, ``RC``, ...)."""
        return self.q[:, _Q.index(name)]

    @property
    def N(self) -> np.ndarray:  # noqa: N802 -- the stratum size, as in the formulas
        """(resamples x submissions x tiers): the tier's instance count, for every submission."""
        return np.broadcast_to(self.n[:, None, :], self.q.shape[:1] + self.q.shape[2:])


def mantel_haenszel_ratio(a: Any, n1: Any, b: Any, n0: Any, axis: Any = None) -> Any:
    """The Mantel–Haenszel risk ratio of group 1 (``a`` events of ``n1``) against group 0 (``b``
    of ``n0``) over strata (summed over ``axis``; ``None``: all). Strata with an empty group add
    nothing. ``nan`` (with an :class:`UndefinedMetricWarning`) where no stratum has both groups
    or group 0 has no event."""
    a, n1, b, n0 = (np.asarray(v, dtype=np.float64) for v in (a, n1, b, n0))
    if any(np.any(v < 0) for v in (a, n1, b, n0)) or np.any(a > n1) or np.any(b > n0):
        raise InputError("mantel_haenszel_ratio needs 0 <= events <= size in every stratum")
    num, den = _mh_terms(a, n1, b, n0)
    num, den = num.sum(axis=axis), den.sum(axis=axis)
    if np.any(den == 0):
        warnings.warn("Mantel-Haenszel ratio undefined where no stratum has both groups with an "
                      "event in group 0; returning nan", UndefinedMetricWarning, stacklevel=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _mh_terms(a: np.ndarray, n1: np.ndarray, b: np.ndarray, n0: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    tot = n1 + n0
    ok = (n1 > 0) & (n0 > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        num = np.where(ok, a * n0 / np.where(ok, tot, 1.0), 0.0)
        den = np.where(ok, b * n1 / np.where(ok, tot, 1.0), 0.0)
    return num, den


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _resample_counts(tier_idx: np.ndarray, n_tiers: int, n_boot: int, seed: int) -> np.ndarray:
    """(1 + n_boot) x instances draw counts: row 0 all ones (the data), then one row per resample,
    each tier's instances drawn with replacement within the tier (stratified cluster bootstrap)."""
    m = tier_idx.size
    out = np.ones((1 + n_boot, m), np.float64)
    if n_boot == 0:
        return out
    rng = np.random.default_rng(np.random.SeedSequence(int(seed)))
    for t in range(n_tiers):
        cols = np.flatnonzero(tier_idx == t)
        if cols.size:
            out[1:, cols] = rng.multinomial(cols.size, np.full(cols.size, 1.0 / cols.size), size=n_boot)
    return out


def strata_sums(resolved: np.ndarray, codes: np.ndarray, tier_idx: np.ndarray, n_tiers: int, *,
                n_boot: int = 0, seed: int = 0) -> StrataSums:
    """Per-stratum sums of the data (resample 0) and of ``n_boot`` cluster-bootstrap resamples.

    ``resolved`` (submissions x instances, bool), ``codes`` (same shape; 0 clean, 1 contaminated,
    2 undecided), ``tier_idx`` (instances; 0 .. ``n_tiers`` - 1)."""
    res = np.asarray(resolved, dtype=bool)
    codes = np.asarray(codes)
    tier_idx = np.asarray(tier_idx, dtype=np.intp)
    if res.shape != codes.shape or tier_idx.shape != res.shape[1:]:
        raise InputError(f"resolved {res.shape}, codes {codes.shape} and tiers {tier_idx.shape} "
                         "do not match (submissions x instances)")
    s = res.shape[0]
    clean, cont, und = codes == CLEAN, codes == CONTAMINATED, codes == UNDECIDED
    per_instance = np.stack([res, clean, res & clean, cont, res & cont, und, res & und], axis=0)
    counts = _resample_counts(tier_idx, n_tiers, int(n_boot), seed)
    q = np.zeros((counts.shape[0], len(_Q), s, n_tiers), np.float64)
    n = np.zeros((counts.shape[0], n_tiers), np.float64)
    block = max(1, 2_000_000 // max(1, len(_Q) * s * max(1, res.shape[1] // max(n_tiers, 1))))
    for t in range(n_tiers):
        cols = np.flatnonzero(tier_idx == t)
        if not cols.size:
            continue
        stack = per_instance[:, :, cols].reshape(len(_Q) * s, cols.size).T.astype(np.float64)
        for b0 in range(0, counts.shape[0], block):
            w = counts[b0:b0 + block, cols]
            q[b0:b0 + block, :, :, t] = (w @ stack).reshape(-1, len(_Q), s)
            n[b0:b0 + block, t] = w.sum(axis=1)
    return StrataSums(q, n)


def _estimates(sums: StrataSums, subs: np.ndarray, tiers: np.ndarray) -> dict[str, np.ndarray]:
    """Per resample: pooled rates, tier-standardised clean rate and the two MH drops over the
    strata (``subs`` x ``tiers``)."""
    def take(x: np.ndarray) -> np.ndarray:
        return x[:, subs[:, None], tiers[None, :]]

    R, C, RC, X, RX, U, RU = (take(sums.get(k)) for k in _Q)  # noqa: N806
    N = take(sums.N)  # noqa: N806
    out: dict[str, np.ndarray] = {}
    tot = lambda x: x.sum(axis=(1, 2))  # noqa: E731
    out["original_rate"] = _ratio(tot(R), tot(N))
    out["clean_rate"] = _ratio(tot(RC), tot(C))
    out["contaminated_rate"] = _ratio(tot(RX), tot(X))
    out["undecided_rate"] = _ratio(tot(RU), tot(U))
    # tier-standardised clean rate: pooled clean rate per tier, weighted by the tier's share of
    # the denominator (over the tiers that have clean instances)
    per_tier = _ratio(RC.sum(axis=1), C.sum(axis=1))            # resamples x tiers
    weight = N.sum(axis=1) * np.isfinite(per_tier)
    out["clean_rate_std"] = _ratio(np.nansum(per_tier * weight, axis=1), weight.sum(axis=1))
    num, den = _mh_terms(RC, C, R, N)
    out["relative_drop"] = 1.0 - _ratio(tot(num), tot(den))
    num, den = _mh_terms(RC, C, RX, X)
    out["clean_vs_contaminated"] = 1.0 - _ratio(tot(num), tot(den))
    return out


def _interval(samples: np.ndarray, ci: float, what: str) -> tuple[float, float, str]:
    """Percentile interval of the resamples; ``nan`` bounds and a reason where it cannot vary or
    is undefined in too many resamples."""
    if samples.size == 0:
        return np.nan, np.nan, ""
    finite = np.isfinite(samples)
    undefined = int((~finite).sum())
    if undefined > (1.0 - ci) / 2.0 * samples.size:
        return np.nan, np.nan, (f"no {what} interval: undefined in {undefined} of {samples.size} "
                                "resamples")
    lo, hi = (float(v) for v in percentile_interval(samples[finite], ci))
    if hi - lo < 1e-12:
        return np.nan, np.nan, (f"no {what} interval: every resample gives {lo:.3f} (the outcomes "
                                "cannot vary, e.g. every clean instance resolved)")
    return lo, hi, ""


def pooled_table(sums: StrataSums, submissions: Sequence[str], tier_names: Sequence[str],
                 groups: Mapping[str, Sequence[str]], *, distinct: Mapping[str, np.ndarray],
                 by_tier: bool = True, ci: float = 0.95, min_clean: int = 20,
                 min_resolved_clean: int = 10) -> pd.DataFrame:
    """One row per group (and per group and tier with ``by_tier``), columns :data:`POOLED_COLUMNS`.

    ``groups``: ``{label: submission names}``; ``distinct``: ``{"clean", "resolved_clean",
    "covered"}`` boolean (submissions x instances) and the instances' tier index under
    ``"tier_idx"`` -- used to count *distinct* instances, the size that the minimum and the
    reader need (submissions share instances)."""
    index = {s: i for i, s in enumerate(submissions)}
    rows = []
    tier_sets: list[tuple[str, np.ndarray]] = [("all", np.arange(len(tier_names)))]
    if by_tier and len(tier_names) > 1:
        tier_sets += [(t, np.array([k])) for k, t in enumerate(tier_names)]
    for label, members in groups.items():
        unknown = [m for m in members if m not in index]
        if unknown:
            raise InputError(f"group {label!r} names unknown submissions: {', '.join(unknown[:5])}")
        subs = np.array([index[m] for m in members], dtype=np.intp)
        for tier, tiers in tier_sets:
            rows.append(_row(sums, subs, tiers, label, tier, distinct, ci, min_clean,
                             min_resolved_clean))
    return pd.DataFrame(rows, columns=list(POOLED_COLUMNS))


def _row(sums: StrataSums, subs: np.ndarray, tiers: np.ndarray, label: str, tier: str,
         distinct: Mapping[str, np.ndarray], ci: float, min_clean: int, min_resolved: int
         ) -> dict[str, Any]:
    in_tier = np.isin(distinct["tier_idx"], tiers)
    any_of = lambda key: int((distinct[key][subs][:, in_tier]).any(axis=0).sum())  # noqa: E731
    n_clean, n_res_clean = any_of("clean"), any_of("resolved_clean")
    est = _estimates(sums, subs, tiers) if subs.size else {}
    row: dict[str, Any] = {"group": label, "tier": tier, "n_submissions": int(subs.size),
                           "n_instances": int(in_tier.sum()), "n_clean": n_clean,
                           "n_resolved_clean": n_res_clean,
                           "n_contaminated": any_of("contaminated"),
                           "n_undecided": any_of("undecided")}
    for key in ("original_rate", "clean_rate", "clean_rate_std", "contaminated_rate",
                "undecided_rate"):
        row[key] = float(est[key][0]) if est else np.nan
    notes = []
    blank = dict(relative_drop=np.nan, drop_ci_low=np.nan, drop_ci_high=np.nan,
                 clean_vs_contaminated=np.nan, cvc_ci_low=np.nan, cvc_ci_high=np.nan)
    if n_clean == 0:
        notes.append("no clean instance")
        row.update(blank)
    elif n_clean < min_clean or n_res_clean < min_resolved:
        notes.append(f"{TOO_FEW} (clean n={n_clean}, resolved n={n_res_clean})")
        row.update(blank)
    else:
        for key, lo, hi, what in (("relative_drop", "drop_ci_low", "drop_ci_high", "drop"),
                                  ("clean_vs_contaminated", "cvc_ci_low", "cvc_ci_high",
                                   "clean-vs-contaminated")):
            row[key] = float(est[key][0])
            if not np.isfinite(row[key]):
                row[lo] = row[hi] = np.nan
                if key == "relative_drop":
                    notes.append("no drop: nothing resolved (original rate 0)")
                continue
            row[lo], row[hi], why = _interval(est[key][1:], ci, what)
            if why:
                notes.append(why)
    row["note"] = "; ".join(notes) or None
    return row
