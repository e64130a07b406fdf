"""Resolution rates with and without the contaminated instances, per submission and tier.

The table is long-format, one row per (submission, tier), with exactly :data:`LEADERBOARD_COLUMNS`:

- ``original_rate``: resolved / instances of the tier (the benchmark's instance list is the
  denominator; an instance a submission did not resolve or did not submit counts as unresolved);
- ``clean_rate`` / ``contaminated_rate``: the same among instances whose verdict (for that
  submission's model) is clean / contaminated;
- ``n_undecided``: instances with an undecided verdict *or no flag at all*; they are in
  ``original_rate`` but excluded from both ``clean_rate`` and ``contaminated_rate``;
- ``relative_drop = (original_rate - clean_rate) / original_rate`` (``nan`` when the original rate
  is 0 or no instance is clean), and its percentile bootstrap interval, resampling the tier's
  instances (all submissions share each resample: a paired bootstrap);
- ``<rate>_ci_low`` / ``<rate>_ci_high``: a Wilson score interval for each resolution rate
  (:func:`~.bootstrap.wilson_interval`, closed form, always computed, also with ``n_boot=0``). Not a
  bootstrap: on a handful of equal outcomes (4 clean instances, all resolved) a bootstrap
  resamples the same rate every time and gives an interval of width 0; Wilson's does not;
- ``note``: why a row has no drop: ``too few clean instances (n=4 < 10)`` when the tier has fewer
  than ``min_clean`` clean instances (its ``relative_drop`` and drop interval are then ``nan``,
  its clean rate and interval are kept), ``no clean instance`` when none is clean; else empty
  (``None``).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError, InputError
from ..flags import Verdict
from . import _kernels
from .bootstrap import percentile_interval, seed_key, wilson_interval
from .roc import UndefinedMetricWarning

__all__ = [
    "ALL_TIER",
    "HARD_TIER",
    "LEADERBOARD_COLUMNS",
    "MULTI_SWE_BENCH_TIERS",
    "ResolvedMatrix",
    "SWE_BENCH_VERIFIED_TIERS",
    "TOO_FEW_CLEAN",
    "rate_table",
    "rescore",
    "timeline",
]

LEADERBOARD_COLUMNS = (
    "submission", "model", "date", "tier", "n_instances", "n_clean", "n_contaminated",
    "n_undecided", "original_rate", "original_ci_low", "original_ci_high", "clean_rate",
    "clean_ci_low", "clean_ci_high", "contaminated_rate", "contaminated_ci_low",
    "contaminated_ci_high", "relative_drop", "drop_ci_low", "drop_ci_high", "note",
)
TOO_FEW_CLEAN = "too few clean instances"
ALL_TIER = "all"
HARD_TIER = "hard"
SWE_BENCH_VERIFIED_TIERS = ("<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours")
MULTI_SWE_BENCH_TIERS = ("easy", "medium", "hard")
_HARD_MEMBERS = frozenset({"1-4 hours", ">4 hours"})
_TIER_ORDER = {t: i for i, t in enumerate(
    (ALL_TIER, *SWE_BENCH_VERIFIED_TIERS[:2], HARD_TIER, *SWE_BENCH_VERIFIED_TIERS[2:], "easy",
     "medium"))}

_CLEAN, _CONTAMINATED, _UNDECIDED = 0, 1, 2


@dataclass(frozen=True)
class ResolvedMatrix:
    """Which submission resolved which instance: ``resolved[s, i]`` for ``submissions[s]`` and
    ``instance_ids[i]`` (the benchmark's full instance list: the denominator)."""

    submissions: tuple[str, ...]
    instance_ids: tuple[str, ...]
    resolved: np.ndarray

    def __post_init__(self) -> None:
        shape = (len(self.submissions), len(self.instance_ids))
        if self.resolved.shape != shape:
            raise InputError(f"resolved matrix has shape {self.resolved.shape}, expected {shape} "
                             "(submissions x instances)")
        _check_unique(self.instance_ids, "instance id")
        _check_unique(self.submissions, "submission")

    @classmethod
    def from_sets(cls, resolved: Mapping[str, Iterable[str]], instance_ids: Sequence[str]
                  ) -> ResolvedMatrix:
        """Build from ``{submission: resolved ids}``; ids outside ``instance_ids`` are an error."""
        ids = tuple(instance_ids)
        _check_unique(ids, "instance id")
        index = pd.Index(ids)   # its hash table looks ids up in C
        names = tuple(resolved)
        mat = np.zeros((len(names), len(ids)), dtype=bool)
        for s, name in enumerate(names):
            given = list(resolved[name])
            where = index.get_indexer(given) if given else np.zeros(0, np.intp)
            if (where < 0).any():
                unknown = [iid for iid, i in zip(given, where) if i < 0]
                shown = ", ".join(sorted(unknown)[:5]) + (" ..." if len(unknown) > 5 else "")
                raise DataError(f"submission {name}: {len(unknown)} resolved instance ids are not "
                                f"in the benchmark's instance list: {shown}")
            mat[s, where] = True
        return cls(names, ids, mat)


def _check_unique(values: Sequence[str], what: str) -> None:
    if len(set(values)) != len(values):
        seen: set[str] = set()
        dup = sorted({v for v in values if v in seen or seen.add(v)})  # type: ignore[func-returns-value]
        raise DataError(f"duplicate {what}s: {', '.join(dup[:5])}")


def _verdict_code(value: Any) -> int:
    if isinstance(value, Verdict):
        value = value.to_bool()
    if value is None:
        return _UNDECIDED
    if isinstance(value, (bool, np.bool_)):
        return _CONTAMINATED if value else _CLEAN
    raise InputError(f"a verdict must be a Verdict, bool or None, got {value!r}")


_CODE_TYPES = frozenset({Verdict, bool, type(None)})
_CODES: dict[Any, int] = {Verdict.CONTAMINATED: _CONTAMINATED, Verdict.CLEAN: _CLEAN,
                          Verdict.UNDECIDED: _UNDECIDED, True: _CONTAMINATED, False: _CLEAN,
                          None: _UNDECIDED}


def _is_per_submission(verdicts: Mapping[str, Any]) -> bool:
    return any(isinstance(v, Mapping) for v in verdicts.values())


def _verdict_codes(verdicts: Mapping[str, Any], matrix: ResolvedMatrix) -> np.ndarray:
    """(submissions x instances) int8 codes; missing verdicts are undecided."""
    index = pd.Index(matrix.instance_ids)
    n = len(index)
    rows: dict[int, np.ndarray] = {}   # one row per distinct mapping: submissions may share one

    def row(mapping: Mapping[str, Any]) -> np.ndarray:
        if id(mapping) in rows:
            return rows[id(mapping)]
        codes = np.fromiter((_CODES[v] if type(v) in _CODE_TYPES else _verdict_code(v)
                             for v in mapping.values()), np.int8, len(mapping))
        where = index.get_indexer(list(mapping)) if mapping else np.zeros(0, np.intp)
        out = np.full(n, _UNDECIDED, np.int8)
        known = where >= 0
        out[where[known]] = codes[known]
        rows[id(mapping)] = out
        return out

    if _is_per_submission(verdicts):
        missing = [s for s in matrix.submissions if s not in verdicts]
        if missing:
            raise InputError(f"per-submission verdicts lack submissions: {', '.join(missing[:5])}")
        return np.stack([row(verdicts[s]) for s in matrix.submissions]) if matrix.submissions \
            else np.zeros((0, n), np.int8)
    shared = row(verdicts)
    return np.tile(shared, (len(matrix.submissions), 1))


def _tier_groups(tiers: Mapping[str, str] | None, ids: Sequence[str], group_hard: bool
                 ) -> list[tuple[str, np.ndarray]]:
    groups: list[tuple[str, np.ndarray]] = [(ALL_TIER, np.arange(len(ids)))]
    if tiers is None:
        return groups
    missing = [iid for iid in ids if iid not in tiers]
    if missing:
        raise DataError(f"{len(missing)} instances have no tier: {', '.join(missing[:5])}"
                        + (" ..." if len(missing) > 5 else ""))
    labels = [str(tiers[iid]) for iid in ids]
    if group_hard:
        labels = [HARD_TIER if t in _HARD_MEMBERS else t for t in labels]
    names = sorted(set(labels), key=lambda t: (_TIER_ORDER.get(t, len(_TIER_ORDER)), t))
    arr = np.asarray(labels, dtype=object)
    groups.extend((t, np.flatnonzero(arr == t)) for t in names if t != ALL_TIER)
    return groups


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.maximum(den, 1), np.nan)


def _bootstrap_drops(resolved: np.ndarray, clean: np.ndarray, n_boot: int, key: np.uint64
                     ) -> np.ndarray:
    """(submissions x n_boot) relative drops; all submissions share each instance resample (a
    paired bootstrap). Resample counts come from the numba kernel (parallel, one random stream per
    resample); the weighted sums are one matrix product per block of resamples (memory bounded),
    against the resolved, clean and clean-and-resolved columns side by side.

    Every weighted sum is an integer no larger than the number of instances ``m`` (the counts of
    a resample add up to ``m``), so below 2**24 instances single precision holds each partial sum
    exactly, in any order of addition: the products run in float32 (about twice as fast) and give
    the same numbers as float64."""
    s, m = resolved.shape
    dtype: type[np.floating[Any]] = np.float32 if m < 2**24 else np.float64
    r = resolved.T.astype(dtype)
    c = clean.T.astype(dtype)
    weights = np.ascontiguousarray(np.concatenate([r, c, r * c], axis=1))   # m x 3s
    out = np.empty((s, n_boot), np.float64)
    block = max(1, min(n_boot, 4_000_000 // max(m, 1)))
    for b0 in range(0, n_boot, block):
        b1 = min(n_boot, b0 + block)
        counts = _kernels.count_matrix(m, b0, b1, key).astype(dtype)
        sums = (counts @ weights).astype(np.float64)
        res, cw, cres = sums[:, :s], sums[:, s:2 * s], sums[:, 2 * s:]
        with np.errstate(divide="ignore", invalid="ignore"):
            orig = res / m
            drop = (orig - cres / cw) / orig
        drop[(res == 0) | (cw == 0)] = np.nan
        out[:, b0:b1] = drop.T
    return out


def rate_table(resolved: ResolvedMatrix | Mapping[str, Iterable[str]],
               instance_ids: Sequence[str] | None = None,
               verdicts: Mapping[str, Any] | None = None,
               tiers: Mapping[str, str] | None = None, *,
               models: Mapping[str, str] | None = None, dates: Mapping[str, str] | None = None,
               group_hard: bool = False, n_boot: int = 1000, seed: int = 0, ci: float = 0.95,
               min_clean: int = 0, covered: Iterable[str] | None = None) -> pd.DataFrame:
    """The re-scoring table: one row per (submission, tier), columns :data:`LEADERBOARD_COLUMNS`.

    ``resolved``: a :class:`ResolvedMatrix`, or ``{submission: resolved ids}`` with
    ``instance_ids`` (the benchmark's instance list, the denominator). ``verdicts``:
    ``{instance_id: Verdict | bool | None}`` for every submission, or
    ``{submission: {instance_id: ...}}`` per submission (e.g. from
    ``flags.verdicts_for(..., model=<the submission's model>)``); instances without a verdict are
    undecided. ``tiers``: ``{instance_id: tier label}`` covering every instance (``None``: only the
    ``"all"`` row); ``group_hard`` merges ``1-4 hours`` and ``>4 hours`` into ``"hard"``.
    ``models`` / ``dates``: per-submission text for the ``model`` / ``date`` columns.
    ``n_boot`` resamples (0: no drop interval) seeded by ``seed``; ``ci`` the coverage of every
    interval. ``min_clean``: a row with fewer clean instances gets no drop (``nan``) and a
    ``note`` (0, the default: every defined drop is shown). ``covered``: only these instances of
    the instance list count (e.g. those whose repository could be examined): every rate and count
    is over the covered instances of each tier, resolved ids and verdicts of the others are
    ignored (``None``, the default: every instance); ``table.attrs["n_not_covered"]`` says how
    many were left out. A covered id outside the instance list is a :class:`DataError`.
    """
    if not isinstance(resolved, ResolvedMatrix):
        if instance_ids is None:
            raise InputError("instance_ids (the benchmark's instance list) is required with a "
                             "mapping of resolved ids")
        resolved = ResolvedMatrix.from_sets(resolved, instance_ids)
    elif instance_ids is not None and tuple(instance_ids) != resolved.instance_ids:
        raise InputError("instance_ids differ from the ResolvedMatrix's instance_ids")
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise InputError(f"n_boot must be a non-negative integer, got {n_boot!r}")
    if not 0.0 < ci < 1.0:
        raise InputError(f"ci must lie strictly between 0 and 1, got {ci!r}")
    if isinstance(min_clean, bool) or not isinstance(min_clean, (int, np.integer)) or min_clean < 0:
        raise InputError(f"min_clean must be a non-negative integer, got {min_clean!r}")
    matrix = resolved if covered is None else _restrict(resolved, covered)
    codes = _verdict_codes(verdicts or {}, matrix)
    key = seed_key(seed)
    models = models or {}
    dates = dates or {}
    res = matrix.resolved.astype(np.uint8)
    frames = []
    for t, (tier, cols) in enumerate(_tier_groups(tiers, matrix.instance_ids, group_hard)):
        r = np.ascontiguousarray(res[:, cols])
        c = codes[:, cols]
        clean = np.ascontiguousarray((c == _CLEAN).astype(np.uint8))
        cont = c == _CONTAMINATED
        m = len(cols)
        n_clean = clean.sum(axis=1)
        n_cont = cont.sum(axis=1)
        n_res, n_res_clean, n_res_cont = r.sum(axis=1), (r * clean).sum(axis=1), (r * cont).sum(axis=1)
        orig = n_res / m
        clean_rate = _ratio(n_res_clean, n_clean)
        cont_rate = _ratio(n_res_cont, n_cont)
        with np.errstate(divide="ignore", invalid="ignore"):
            drop = np.where(orig > 0, (orig - clean_rate) / orig, np.nan)
        if n_boot and len(matrix.submissions):
            boots = _bootstrap_drops(r, clean, int(n_boot), key ^ np.uint64(t))
            low, high = percentile_interval(boots, ci, axis=1)
        else:
            low = high = np.full(len(matrix.submissions), np.nan)
        too_few = n_clean < min_clean
        drop, low, high = (np.where(too_few, np.nan, a) for a in (drop, low, high))
        notes = [f"{TOO_FEW_CLEAN} (n={k} < {min_clean})" if k < min_clean
                 else "no clean instance" if k == 0 else None for k in n_clean.tolist()]
        intervals = {}
        for name, k, n in (("original", n_res, np.full_like(n_res, m)), ("clean", n_res_clean, n_clean),
                           ("contaminated", n_res_cont, n_cont)):
            intervals[f"{name}_ci_low"], intervals[f"{name}_ci_high"] = wilson_interval(k, n, ci)
        frames.append(pd.DataFrame({
            "submission": list(matrix.submissions),
            "model": [models.get(s, "") for s in matrix.submissions],
            "date": [dates.get(s, "") for s in matrix.submissions],
            "tier": tier,
            "n_instances": m,
            "n_clean": n_clean.astype(int),
            "n_contaminated": n_cont.astype(int),
            "n_undecided": (m - n_clean - n_cont).astype(int),
            "original_rate": orig,
            "clean_rate": clean_rate,
            "contaminated_rate": cont_rate,
            **intervals,
            "relative_drop": drop,
            "drop_ci_low": low,
            "drop_ci_high": high,
            "note": pd.Series(notes, dtype=object),
        }))
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=list(LEADERBOARD_COLUMNS))
    order = {s: i for i, s in enumerate(matrix.submissions)}
    table["_s"] = table["submission"].map(order)
    table = table.sort_values("_s", kind="stable").drop(columns="_s").reset_index(drop=True)
    table = table[list(LEADERBOARD_COLUMNS)]
    no_clean = table[(table["tier"] == ALL_TIER) & (table["n_clean"] == 0)]
    if len(no_clean):
        warnings.warn(f"{len(no_clean)} submissions have no clean instance: their clean rate and "
                      "relative drop are nan", UndefinedMetricWarning, stacklevel=2)
    table.attrs.update(n_boot=int(n_boot), seed=int(seed), ci=float(ci),
                       n_instances=len(matrix.instance_ids), group_hard=bool(group_hard),
                       min_clean=int(min_clean),
                       n_not_covered=len(resolved.instance_ids) - len(matrix.instance_ids))
    return table


def _restrict(matrix: ResolvedMatrix, covered: Iterable[str]) -> ResolvedMatrix:
    """``matrix`` on the ``covered`` instances only (in the instance list's order)."""
    keep = set(covered)
    unknown = keep - set(matrix.instance_ids)
    if unknown:
        shown = ", ".join(sorted(unknown)[:5]) + (" ..." if len(unknown) > 5 else "")
        raise DataError(f"{len(unknown)} covered instance ids are not in the benchmark's instance "
                        f"list: {shown}")
    cols = [i for i, iid in enumerate(matrix.instance_ids) if iid in keep]
    return ResolvedMatrix(matrix.submissions, tuple(matrix.instance_ids[i] for i in cols),
                          matrix.resolved[:, cols])


def rescore(resolved_ids: Iterable[str], instance_ids: Sequence[str],
            verdicts: Mapping[str, Any], tiers: Mapping[str, str] | None = None, *,
            submission: str = "run", model: str = "", date: str = "", group_hard: bool = False,
            n_boot: int = 1000, seed: int = 0, ci: float = 0.95, min_clean: int = 0
            ) -> pd.DataFrame:
    """:func:`rate_table` for one run: ``resolved_ids`` against the benchmark's ``instance_ids``,
    ``verdicts`` ``{instance_id: Verdict | bool | None}`` for the run's model."""
    return rate_table({submission: list(resolved_ids)}, instance_ids, verdicts, tiers,
                      models={submission: model}, dates={submission: date},
                      group_hard=group_hard, n_boot=n_boot, seed=seed, ci=ci, min_clean=min_clean)


def timeline(table: pd.DataFrame, tier: str = ALL_TIER) -> pd.DataFrame:
    """Mean rates and relative drop by submission month (``YYYY-MM`` of ``date``) for one tier.

    Columns: ``month, n_submissions, mean_original_rate, mean_clean_rate, mean_relative_drop``;
    submissions without a date or with an undefined drop are left out of the means they lack.
    """
    rows = table[(table["tier"] == tier) & (table["date"].astype(str).str.len() >= 7)].copy()
    rows["month"] = rows["date"].astype(str).str.slice(0, 7)
    out = rows.groupby("month", sort=True).agg(
        n_submissions=("submission", "count"),
        mean_original_rate=("original_rate", "mean"),
        mean_clean_rate=("clean_rate", "mean"),
        mean_relative_drop=("relative_drop", "mean"),
    ).reset_index()
    return out
