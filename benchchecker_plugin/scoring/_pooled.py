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
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ._bootstrap import percentile_interval
from ._roc import UndefinedMetricWarning
from ._strata import QUANTITIES, StrataSums

TOO_FEW = "too few"
POOLED_COLUMNS = (
    "group", "tier", "n_submissions", "n_instances", "n_clean", "n_resolved_clean",
    "n_contaminated", "n_undecided", "original_rate", "clean_rate", "clean_rate_std",
    "contaminated_rate", "undecided_rate", "relative_drop", "drop_ci_low", "drop_ci_high",
    "clean_vs_contaminated", "cvc_ci_low", "cvc_ci_high", "note",
)
_Q = QUANTITIES


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


def _estimates(sums: StrataSums, tiers: np.ndarray, subs: np.ndarray | None) -> dict[str, np.ndarray]:
    """The estimates of every resample over the strata ``tiers`` x ``subs``: pooled over those
    submissions (``subs`` an index array; arrays of resamples), or per submission (``subs``
    ``None``; arrays of resamples x submissions)."""
    t_all = sums.n.shape[0]
    rows: slice | np.ndarray = tiers
    if np.array_equal(tiers, np.arange(t_all)):
        rows = slice(None)                      # views, not copies, of the common cases
    elif tiers.size == 1:
        rows = slice(int(tiers[0]), int(tiers[0]) + 1)
    pick = (lambda x: x[rows]) if subs is None else (lambda x: x[rows][:, :, subs])
    R, C, RC, X, RX, U, RU = (pick(sums.get(k)) for k in _Q)  # noqa: N806
    # each stratum's size: its instances are clean, contaminated or undecided (C + X + U is the
    # tier's size, or a submission's own share of it when boards are pooled: code OUTSIDE); the
    # tier's size itself where they agree (a broadcast: its layout fixes the order of the sums
    # below, and so their last bits)
    N = C + X + U  # noqa: N806
    tier_n = np.broadcast_to(sums.n[rows][:, :, None], R.shape)
    if np.array_equal(N, tier_n):
        N = tier_n  # noqa: N806
    axes: tuple[int, ...] = (0,) if subs is None else (0, 2)
    tot = lambda x: x.sum(axis=axes)  # noqa: E731
    out: dict[str, np.ndarray] = {}
    out["original_rate"] = _ratio(tot(R), tot(N))
    out["clean_rate"] = _ratio(tot(RC), tot(C))
    out["contaminated_rate"] = _ratio(tot(RX), tot(X))
    out["undecided_rate"] = _ratio(tot(RU), tot(U))
    # tier-standardised clean rate: the (pooled) clean rate per tier, weighted by the tier's
    # share of the denominator, over the tiers that have clean instances
    if subs is None:
        per_tier, size = _ratio(RC, C), N
    else:
        per_tier, size = _ratio(RC.sum(axis=2), C.sum(axis=2)), sums.n[rows]
    weight = size * np.isfinite(per_tier)
    out["clean_rate_std"] = _ratio(np.where(weight > 0, per_tier * weight, 0.0).sum(axis=0),
                                   weight.sum(axis=0))
    num, den = _mh_terms(RC, C, R, N)
    out["relative_drop"] = 1.0 - _ratio(tot(num), tot(den))
    num, den = _mh_terms(RC, C, RX, X)
    out["clean_vs_contaminated"] = 1.0 - _ratio(tot(num), tot(den))
    return out


def _intervals(samples: np.ndarray, ci: float, what: str
               ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Percentile intervals of resamples (resamples x cells); ``nan`` bounds and a reason where an
    interval cannot vary or is undefined in too many resamples."""
    cells = int(np.prod(samples.shape[1:]))
    if samples.shape[0] == 0:   # no resamples asked for: no interval, nothing to explain
        return np.full(cells, np.nan), np.full(cells, np.nan), [""] * cells
    samples = samples.reshape(samples.shape[0], cells)
    finite = np.isfinite(samples)
    undefined = (~finite).sum(axis=0)
    lo, hi = percentile_interval(np.where(finite, samples, np.nan), ci, axis=0)
    lo, hi = np.atleast_1d(lo).astype(float), np.atleast_1d(hi).astype(float)
    why = [""] * cells
    for k in range(cells):
        if undefined[k] > (1.0 - ci) / 2.0 * samples.shape[0]:
            why[k] = (f"no {what} interval: undefined in {int(undefined[k])} of "
                      f"{samples.shape[0]} resamples")
        elif hi[k] - lo[k] < 1e-12:
            why[k] = (f"no {what} interval: every resample gives {lo[k]:.3f} (the outcomes "
                      "cannot vary, e.g. every clean instance resolved)")
        if why[k]:
            lo[k] = hi[k] = np.nan
    return lo, hi, why


def _fill(row: dict[str, Any], est: Mapping[str, np.ndarray], k: int | None, n_clean: int,
          n_res_clean: int, min_clean: int, min_resolved: int,
          bounds: Mapping[str, tuple[np.ndarray, np.ndarray, list[str]]]) -> None:
    """The rates, drops, intervals and note of one cell (``k``: its column in per-submission
    estimates, ``None`` for a pooled cell)."""
    at = (lambda a: float(a[0])) if k is None else (lambda a: float(a[0, k]))  # noqa: E731
    for key in ("original_rate", "clean_rate", "clean_rate_std", "contaminated_rate",
                "undecided_rate"):
        row[key] = at(est[key]) if est else np.nan
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
        for key, lo, hi in (("relative_drop", "drop_ci_low", "drop_ci_high"),
                            ("clean_vs_contaminated", "cvc_ci_low", "cvc_ci_high")):
            row[key] = at(est[key])
            if not np.isfinite(row[key]):
                row[lo] = row[hi] = np.nan
                if key == "relative_drop":
                    notes.append("no drop: nothing resolved (original rate 0)")
                continue
            low, high, why = bounds[key]
            j = 0 if k is None else k
            row[lo], row[hi] = float(low[j]), float(high[j])
            if why[j]:
                notes.append(why[j])
    row["note"] = "; ".join(notes) or None


def _tier_sets(tier_names: Sequence[str], by_tier: bool) -> list[tuple[str, np.ndarray]]:
    sets: list[tuple[str, np.ndarray]] = [("all", np.arange(len(tier_names)))]
    if by_tier and len(tier_names) > 1:
        sets += [(t, np.array([k])) for k, t in enumerate(tier_names)]
    return sets


def per_submission_table(sums: StrataSums, submissions: Sequence[str], tier_names: Sequence[str],
                         *, by_tier: bool = True, ci: float, min_clean: int,
                         min_resolved_clean: int) -> pd.DataFrame:
    """One row per submission and tier set (``all``, then each tier with ``by_tier``), columns of
    :data:`POOLED_COLUMNS` with ``group`` = the submission: the same estimates as a one-submission
    group of :func:`pooled_table`, computed for every submission at once."""
    frames = []
    for tier, tiers in _tier_sets(tier_names, by_tier):
        est = _estimates(sums, tiers, None)
        point = {k: sums.get(k)[tiers, 0].sum(axis=0) for k in _Q}
        n_inst = point["C"] + point["X"] + point["U"]   # each submission's own instances
        bounds = {key: _intervals(est[key][1:], ci, what) for key, what in
                  (("relative_drop", "drop"), ("clean_vs_contaminated", "clean-vs-contaminated"))}
        rows = []
        for k, name in enumerate(submissions):
            row: dict[str, Any] = {"group": name, "tier": tier, "n_submissions": 1,
                                   "n_instances": int(n_inst[k]), "n_clean": int(point["C"][k]),
                                   "n_resolved_clean": int(point["RC"][k]),
                                   "n_contaminated": int(point["X"][k]),
                                   "n_undecided": int(point["U"][k])}
            _fill(row, est, k, row["n_clean"], row["n_resolved_clean"], min_clean,
                  min_resolved_clean, bounds)
            rows.append(row)
        frames.append(pd.DataFrame(rows, columns=list(POOLED_COLUMNS)))
    order = {s: i for i, s in enumerate(submissions)}
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(POOLED_COLUMNS))
    out["_s"] = out["group"].map(order)
    return out.sort_values("_s", kind="stable").drop(columns="_s").reset_index(drop=True)


def pooled_table(sums: StrataSums, submissions: Sequence[str], tier_names: Sequence[str],
                 groups: Mapping[str, Sequence[str]], *, distinct: Mapping[str, np.ndarray],
                 by_tier: bool = True, ci: float, min_clean: int,
                 min_resolved_clean: int) -> pd.DataFrame:
    """One row per group (and per group and tier with ``by_tier``), columns :data:`POOLED_COLUMNS`.

    ``groups``: ``{label: submission names}``; ``distinct``: ``"clean"``, ``"resolved_clean"``,
    ``"contaminated"``, ``"undecided"`` boolean (submissions x instances) and the instances' tier
    index under ``"tier_idx"`` -- used to count *distinct* instances, the size that the minimum
    and the reader need (submissions share instances)."""
    index = {s: i for i, s in enumerate(submissions)}
    rows = []
    tier_sets = _tier_sets(tier_names, by_tier)
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
    eligible = distinct.get("eligible")   # (several boards) the instances of some member's list
    n_clean, n_res_clean = any_of("clean"), any_of("resolved_clean")
    est = _estimates(sums, tiers, subs) if subs.size else {}
    row: dict[str, Any] = {"group": label, "tier": tier, "n_submissions": int(subs.size),
                           "n_instances": int(in_tier.sum()) if eligible is None else any_of("eligible"),
                           "n_clean": n_clean,
                           "n_resolved_clean": n_res_clean,
                           "n_contaminated": any_of("contaminated"),
                           "n_undecided": any_of("undecided")}
    bounds = {key: _intervals(est[key][1:], ci, what) for key, what in
              (("relative_drop", "drop"), ("clean_vs_contaminated", "clean-vs-contaminated"))
              } if est else {}
    _fill(row, est, None, n_clean, n_res_clean, min_clean, min_resolved, bounds)
    return row
