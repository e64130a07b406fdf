"""Resolution rates with and without the contaminated instances, per submission and tier, and
pooled over groups of submissions.

:func:`rate_table` is long-format, one row per (submission, tier), with exactly
:data:`LEADERBOARD_COLUMNS`:

- ``original_rate``: resolved / instances of the tier (the benchmark's instance list is the
  denominator; an instance a submission did not resolve or did not submit counts as unresolved);
- ``clean_rate`` / ``contaminated_rate`` / ``undecided_rate``: the same among instances whose
  verdict (for that submission's model) is clean / contaminated / undecided (undecided includes
  *no flag at all*). Undecided instances are in ``original_rate`` only;
- ``clean_rate_std``: the clean rate standardised to the tier mix of the denominator (clean rates
  per tier weighted by the tiers' shares of all instances, over the tiers with a clean instance);
- ``relative_drop``: the paper's drop ``1 - clean / original``; on a tier row it is
  ``(original - clean) / original``; on the ``all`` row it is stratified by tier (Mantel–Haenszel,
  :mod:`._pooled`), so a clean set of easier tiers does not read as a negative drop;
  ``clean_vs_contaminated``: ``1 - clean / contaminated`` the same way. Both with percentile
  intervals from a cluster bootstrap over instances stratified by tier (every submission shares
  each resample);
- ``<rate>_ci_low`` / ``<rate>_ci_high``: a Wilson score interval for each resolution rate
  (:func:`~.bootstrap.wilson_interval`, closed form, never of width 0);
- ``n_resolved_clean``: clean instances resolved; a row is estimated only with at least
  ``min_clean`` clean and ``min_resolved_clean`` resolved clean instances, else its ``note``
  reads ``too few (clean n=4, resolved n=2)``; ``no clean instance``; or why an interval is
  missing (it cannot vary, or is undefined in too many resamples) -- never ``[x, x]``.

:func:`pooled_summary` gives the same estimates over groups of submissions (by year, top-10, ...):
pooled counts, Mantel–Haenszel over submission x tier strata, the same cluster bootstrap -- never a
mean of per-submission ratios.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np
import pandas as pd

from ..errors import DataError, InputError
from ..rescore_options import RescoreOptions, RescoreOverrides
from ..tier_schemes import (
    ALL_TIER,
    HARD_MEMBERS,
    HARD_TIER,
    TIER_ORDER,
)
from ._bootstrap import seed_key, wilson_interval
from ._pooled import POOLED_COLUMNS, TOO_FEW, per_submission_table, pooled_table
from ._power import MdeConfig, draw_worlds, minimum_detectable_drop
from ._roc import UndefinedMetricWarning
from ._strata import OUTSIDE, BootstrapDraws, StrataSums, strata_sums
from ._verdict_codes import CLEAN, CONTAMINATED, UNDECIDED, verdict_code_rows

LEADERBOARD_COLUMNS = (
    "submission", "model", "date", "tier", "n_instances", "n_clean", "n_resolved_clean",
    "n_contaminated", "n_undecided", "original_rate", "original_ci_low", "original_ci_high",
    "clean_rate", "clean_ci_low", "clean_ci_high", "clean_rate_std", "contaminated_rate",
    "contaminated_ci_low", "contaminated_ci_high", "undecided_rate", "undecided_ci_low",
    "undecided_ci_high", "relative_drop", "drop_ci_low", "drop_ci_high", "clean_vs_contaminated",
    "cvc_ci_low", "cvc_ci_high", "note",
)
TOO_FEW_CLEAN = TOO_FEW

_CLEAN, _CONTAMINATED, _UNDECIDED = CLEAN, CONTAMINATED, UNDECIDED


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
        position = {iid: k for k, iid in enumerate(ids)}   # one lookup per resolved id
        names = tuple(resolved)
        mat = np.zeros((len(names), len(ids)), dtype=bool)
        for s, name in enumerate(names):
            given = resolved[name]
            given = given if isinstance(given, (set, frozenset, list, tuple)) else list(given)
            try:
                where = np.fromiter(map(position.__getitem__, given), np.intp, len(given))
            except KeyError:
                unknown = [iid for iid in given if iid not in position]
                shown = ", ".join(sorted(unknown)[:5]) + (" ..." if len(unknown) > 5 else "")
                raise DataError(f"submission {name}: {len(unknown)} resolved instance ids are not "
                                f"in the benchmark's instance list: {shown}") from None
            mat[s, where] = True
        return cls(names, ids, mat)


def _check_unique(values: Sequence[str], what: str) -> None:
    if len(set(values)) != len(values):
        seen: set[str] = set()
        dup = sorted({v for v in values if v in seen or seen.add(v)})  # type: ignore[func-returns-value]
        raise DataError(f"duplicate {what}s: {', '.join(dup[:5])}")


def _tier_index(tiers: Mapping[str, str] | None, ids: Sequence[str], group_hard: bool
                ) -> tuple[list[str], np.ndarray]:
    """The tier names (in display order) and each instance's index into them."""
    if tiers is None:
        return [ALL_TIER], np.zeros(len(ids), np.intp)
    missing = [iid for iid in ids if iid not in tiers]
    if missing:
        raise DataError(f"{len(missing)} instances have no tier: {', '.join(missing[:5])}"
                        + (" ..." if len(missing) > 5 else ""))
    labels = [str(tiers[iid]) for iid in ids]
    if group_hard:
        labels = [HARD_TIER if t in HARD_MEMBERS else t for t in labels]
    names = sorted(set(labels), key=lambda t: (TIER_ORDER.get(t, len(TIER_ORDER)), t))
    where = {t: k for k, t in enumerate(names)}
    return names, np.fromiter((where[t] for t in labels), np.intp, len(labels))


@dataclass(frozen=True)
class _Prepared:
    full: ResolvedMatrix
    matrix: ResolvedMatrix     # the covered instances
    codes: np.ndarray
    tier_names: list[str]
    tier_idx: np.ndarray

    def distinct(self) -> dict[str, np.ndarray]:
        res = self.matrix.resolved
        out = {"clean": self.codes == _CLEAN, "resolved_clean": res & (self.codes == _CLEAN),
               "contaminated": self.codes == _CONTAMINATED, "undecided": self.codes == _UNDECIDED,
               "tier_idx": self.tier_idx}
        if self.codes.size and bool((self.codes == OUTSIDE).any()):
            out["eligible"] = self.codes != OUTSIDE
        return out


def _own_lists(codes: np.ndarray, matrix: ResolvedMatrix,
               lists: Mapping[str, Iterable[str]] | None) -> np.ndarray:
    """``codes`` with :data:`~.strata.OUTSIDE` where an instance is not in its submission's own
    instance list (``lists``: several boards rated together; a submission without a list has
    them all); a resolved id outside its own list is a :class:`DataError`."""
    if not lists:
        return codes
    known = set(matrix.submissions)
    unknown = [s for s in lists if s not in known]
    if unknown:
        raise InputError(f"instance lists name unknown submissions: {', '.join(unknown[:5])}")
    position = {iid: k for k, iid in enumerate(matrix.instance_ids)}
    codes = codes.copy()
    for s, name in enumerate(matrix.submissions):
        if name not in lists:
            continue
        own = np.zeros(len(position), bool)
        own[[position[i] for i in lists[name] if i in position]] = True
        stray = matrix.resolved[s] & ~own
        if stray.any():
            shown = ", ".join(matrix.instance_ids[k] for k in np.flatnonzero(stray)[:5])
            raise DataError(f"submission {name}: resolved instances outside its own instance "
                            f"list: {shown}")
        codes[s, ~own] = OUTSIDE
    return codes


def _prepare(resolved: ResolvedMatrix | Mapping[str, Iterable[str]],
             instance_ids: Sequence[str] | None, verdicts: Mapping[str, Any] | None,
             tiers: Mapping[str, str] | None, group_hard: bool, covered: Iterable[str] | None,
             lists: Mapping[str, Iterable[str]] | None = None) -> _Prepared:
    if not isinstance(resolved, ResolvedMatrix):
        if instance_ids is None:
            raise InputError("instance_ids (the benchmark's instance list) is required with a "
                             "mapping of resolved ids")
        resolved = ResolvedMatrix.from_sets(resolved, instance_ids)
    elif instance_ids is not None and tuple(instance_ids) != resolved.instance_ids:
        raise InputError("instance_ids differ from the ResolvedMatrix's instance_ids")
    matrix = resolved if covered is None else _restrict(resolved, covered)
    codes = verdict_code_rows(verdicts or {}, matrix.submissions, matrix.instance_ids)
    codes = _own_lists(codes, matrix, lists)
    names, idx = _tier_index(tiers, matrix.instance_ids, group_hard)
    return _Prepared(resolved, matrix, codes, names, idx)


def rate_table(resolved: ResolvedMatrix | Mapping[str, Iterable[str]],
               instance_ids: Sequence[str] | None = None,
               verdicts: Mapping[str, Any] | None = None,
               tiers: Mapping[str, str] | None = None, *,
               models: Mapping[str, str] | None = None, dates: Mapping[str, str] | None = None,
               options: RescoreOptions | None = None, covered: Iterable[str] | None = None,
               **overrides: Unpack[RescoreOverrides]) -> pd.DataFrame:
    """The re-scoring table: one row per (submission, tier), columns :data:`LEADERBOARD_COLUMNS`.

    ``resolved``: a :class:`ResolvedMatrix`, or ``{submission: resolved ids}`` with
    ``instance_ids`` (the benchmark's instance list, the denominator). ``verdicts``:
    ``{instance_id: Verdict | bool | None}`` for every submission, or
    ``{submission: {instance_id: ...}}`` per submission (e.g. from
    ``flags.verdicts_for(..., model=<the submission's model>)``); instances without a verdict are
    undecided. ``tiers``: ``{instance_id: tier label}`` covering every instance (``None``: only the
    ``"all"`` row); ``group_hard`` merges ``1-4 hours`` and ``>4 hours`` into ``"hard"``.
    ``models`` / ``dates``: per-submission text for the ``model`` / ``date`` columns.
    ``options`` (:class:`~benchchecker_plugin.rescore_options.RescoreOptions`, its fields also
    given by name as ``overrides``): ``n_boot`` cluster-bootstrap resamples (0: no drop interval)
    seeded by ``seed``; ``ci`` the coverage of every interval; ``min_clean`` /
    ``min_resolved_clean``: a row with fewer clean / resolved clean instances gets no drop
    (``nan``) and a ``too few`` note (defaults 20 and 10, the command line's; 0 and 0 show every
    defined drop). ``options``' input fields (paths, benchmark) are not read here.
    ``covered``: only these instances of the instance list count (e.g. those whose repository
    could be examined); ``table.attrs["n_not_covered"]`` says how many were left out. A covered
    id outside the instance list is a :class:`DataError`.
    """
    opts = RescoreOptions.of(options, **overrides).check()
    prep = _prepare(resolved, instance_ids, verdicts, tiers, opts.group_hard, covered)
    return _rates(prep, _sums(prep, opts), by_tier=tiers is not None, models=models,
                  dates=dates, opts=opts)


def _sums(prep: _Prepared, opts: RescoreOptions, draws: BootstrapDraws | None = None
          ) -> StrataSums:
    """The strata counts and their cluster-bootstrap resamples (the costly part, drawn once)."""
    return strata_sums(prep.matrix.resolved, prep.codes, prep.tier_idx, len(prep.tier_names),
                       n_boot=int(opts.n_boot), seed=_seed(opts), draws=draws)


def _seed(opts: RescoreOptions) -> int:
    return int(seed_key(opts.seed) % (2**63))


def bootstrap_draws(instance_ids: Sequence[str], tiers: Mapping[str, str] | None,
                    options: RescoreOptions | None = None, **overrides: Unpack[RescoreOverrides]
                    ) -> BootstrapDraws | None:
    """The cluster bootstrap's draws for :func:`rate_and_pool` on ``instance_ids`` and ``tiers``
    (``options`` as there), started now on a pool of threads so that they are made while the
    caller reads its other inputs; give them to ``rate_and_pool(draws=)``, :meth:`close
    <.strata.BootstrapDraws.close>` them if it is not called. ``None`` when there is nothing to
    draw or the tiers do not cover the instances (``rate_and_pool`` says so)."""
    opts = RescoreOptions.of(options, **overrides)
    if int(opts.n_boot) < 1:
        return None
    try:
        names, idx = _tier_index(tiers, list(instance_ids), bool(opts.group_hard))
    except DataError:
        return None
    sizes = np.bincount(idx, minlength=len(names)) if idx.size else np.zeros(len(names), int)
    return BootstrapDraws(_seed(opts), int(opts.n_boot), sizes.tolist())


def _rates(prep: _Prepared, sums: StrataSums, *, by_tier: bool, models: Mapping[str, str] | None,
           dates: Mapping[str, str] | None, opts: RescoreOptions) -> pd.DataFrame:
    """:func:`rate_table` from prepared inputs and their strata sums."""
    matrix = prep.matrix
    subs = list(matrix.submissions)
    per = per_submission_table(sums, subs, prep.tier_names, by_tier=by_tier, ci=opts.ci,
                               min_clean=int(opts.min_clean),
                               min_resolved_clean=int(opts.min_resolved_clean))
    if by_tier and len(prep.tier_names) == 1:   # one tier: its row is the "all" row too
        one = per.copy()
        one["tier"] = prep.tier_names[0]
        per = pd.concat([per, one]).sort_index(kind="stable").reset_index(drop=True)
    models, dates = models or {}, dates or {}
    table = per.rename(columns={"group": "submission"})
    table.insert(1, "model", [models.get(s, "") for s in table["submission"]])
    table.insert(2, "date", [dates.get(s, "") for s in table["submission"]])
    # (a submission none of whose own instances is covered has no rate: nan, counted 0 here)
    res_counts = (table["original_rate"] * table["n_instances"]).fillna(0).round().astype(int)
    for name, k, n in (("original", res_counts, table["n_instances"]),
                       ("clean", table["n_resolved_clean"], table["n_clean"]),
                       ("contaminated", (table["contaminated_rate"] * table["n_contaminated"])
                        .fillna(0).round().astype(int), table["n_contaminated"]),
                       ("undecided", (table["undecided_rate"] * table["n_undecided"])
                        .fillna(0).round().astype(int), table["n_undecided"])):
        table[f"{name}_ci_low"], table[f"{name}_ci_high"] = wilson_interval(k, n, opts.ci)
    table = table[list(LEADERBOARD_COLUMNS)]
    no_clean = table[(table["tier"] == ALL_TIER) & (table["n_clean"] == 0)]
    if len(no_clean):
        warnings.warn(f"{len(no_clean)} submissions have no clean instance: their clean rate and "
                      "relative drop are nan", UndefinedMetricWarning, stacklevel=3)
    table.attrs.update(n_boot=int(opts.n_boot), seed=int(opts.seed), ci=float(opts.ci),
                       n_instances=len(matrix.instance_ids), group_hard=bool(opts.group_hard),
                       min_clean=int(opts.min_clean),
                       min_resolved_clean=int(opts.min_resolved_clean),
                       n_not_covered=len(prep.full.instance_ids) - len(matrix.instance_ids))
    return table


def pooled_summary(resolved: ResolvedMatrix | Mapping[str, Iterable[str]],
                   instance_ids: Sequence[str] | None = None,
                   verdicts: Mapping[str, Any] | None = None,
                   tiers: Mapping[str, str] | None = None, *,
                   groups: Mapping[str, Sequence[str]], options: RescoreOptions | None = None,
                   covered: Iterable[str] | None = None, **overrides: Unpack[RescoreOverrides]
                   ) -> pd.DataFrame:
    """The drops of groups of submissions (``{label: [submission, ...]}``, e.g. by year), one row
    per group and tier (``all`` first), columns :data:`~.pooled.POOLED_COLUMNS`: pooled counts and
    rates, the Mantel–Haenszel drop over submission x tier strata and its cluster-bootstrap
    interval, the distinct clean / resolved clean instances it rests on. Arguments as
    :func:`rate_table`; the minimums count *distinct* instances (submissions share them)."""
    opts = RescoreOptions.of(options, **overrides).check()
    prep = _prepare(resolved, instance_ids, verdicts, tiers, opts.group_hard, covered)
    return _pooled(prep, _sums(prep, opts), groups, by_tier=tiers is not None, opts=opts)


def rate_and_pool(resolved: ResolvedMatrix | Mapping[str, Iterable[str]],
                  instance_ids: Sequence[str] | None = None,
                  verdicts: Mapping[str, Any] | None = None,
                  tiers: Mapping[str, str] | None = None, *,
                  groups: Mapping[str, Sequence[str]], models: Mapping[str, str] | None = None,
                  dates: Mapping[str, str] | None = None, options: RescoreOptions | None = None,
                  covered: Iterable[str] | None = None, mde: MdeConfig | None = None,
                  draws: BootstrapDraws | None = None,
                  lists: Mapping[str, Iterable[str]] | None = None,
                  **overrides: Unpack[RescoreOverrides]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(rate_table(...), pooled_summary(...))`` on the same inputs, equal to calling each, with
    the inputs prepared and the cluster bootstrap drawn once instead of twice. With ``mde``, both
    tables gain an ``mde`` column (:mod:`._power`): the minimum detectable drop of every cell whose
    drop is estimated (``nan`` elsewhere). ``draws``: the bootstrap's draws started earlier
    (:func:`bootstrap_draws`), taken when they are of these tiers and options (else drawn here):
    the same numbers either way. ``lists``: ``{submission: its own instance ids}`` when
    submissions of several boards are rated together over the union ``instance_ids`` (an
    instance shared by boards is one cluster of the bootstrap): each submission is rated over its
    own list only (its rates, counts and MDE), and a pooled cell over the lists of its members."""
    opts = RescoreOptions.of(options, **overrides).check()
    prep = _prepare(resolved, instance_ids, verdicts, tiers, opts.group_hard, covered, lists)
    sums = _sums(prep, opts, draws)
    table = _rates(prep, sums, by_tier=tiers is not None, models=models, dates=dates, opts=opts)
    summary = _pooled(prep, sums, groups, by_tier=tiers is not None, opts=opts)
    if mde is not None:
        table, summary = _with_mde(prep, table, summary, groups, mde)
    return table, summary


def _with_mde(prep: _Prepared, table: pd.DataFrame, summary: pd.DataFrame,
              groups: Mapping[str, Sequence[str]], cfg: MdeConfig
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``table`` and ``summary`` with the ``mde`` column: per submission all at once (one cell
    each), per group one at a time (groups share submissions), for each tier set."""
    res, codes = prep.matrix.resolved, prep.codes
    n_tiers = len(prep.tier_names)
    worlds = draw_worlds(res, prep.tier_idx, n_tiers, cfg)
    index = {s: i for i, s in enumerate(prep.matrix.submissions)}
    sets = [(ALL_TIER, np.arange(n_tiers))] + [(t, np.array([k])) for k, t in
                                              enumerate(prep.tier_names)]
    table, summary = table.copy(), summary.copy()
    table["mde"], summary["mde"] = np.nan, np.nan
    for tier, tiers in sets:
        rows = table.index[(table["tier"] == tier) & np.isfinite(table["relative_drop"])]
        if len(rows):
            cells = [np.array([index[s]]) for s in table.loc[rows, "submission"]]
            table.loc[rows, "mde"] = minimum_detectable_drop(res, codes, prep.tier_idx, n_tiers,
                                                             tiers, cells, cfg, worlds)
        for label, members in groups.items():
            at = summary.index[(summary["group"] == label) & (summary["tier"] == tier)
                               & np.isfinite(summary["relative_drop"])]
            if len(at):
                cell = [np.array([index[m] for m in members], dtype=np.intp)]
                summary.loc[at, "mde"] = minimum_detectable_drop(
                    res, codes, prep.tier_idx, n_tiers, tiers, cell, cfg, worlds)[0]
    table.attrs.update(mde=cfg.sentence())
    summary.attrs.update(mde=cfg.sentence())
    return table, summary


def _pooled(prep: _Prepared, sums: StrataSums, groups: Mapping[str, Sequence[str]], *,
            by_tier: bool, opts: RescoreOptions) -> pd.DataFrame:
    """:func:`pooled_summary` from prepared inputs and their strata sums."""
    out = pooled_table(sums, list(prep.matrix.submissions), prep.tier_names, groups,
                       distinct=prep.distinct(), by_tier=by_tier, ci=opts.ci,
                       min_clean=int(opts.min_clean),
                       min_resolved_clean=int(opts.min_resolved_clean))
    out.attrs.update(n_boot=int(opts.n_boot), seed=int(opts.seed), ci=float(opts.ci),
                     min_clean=int(opts.min_clean), min_resolved_clean=int(opts.min_resolved_clean))
    return out[list(POOLED_COLUMNS)]


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
            submission: str = "run", model: str = "", date: str = "",
            options: RescoreOptions | None = None, **overrides: Unpack[RescoreOverrides]
            ) -> pd.DataFrame:
    """:func:`rate_table` for one run: ``resolved_ids`` against the benchmark's ``instance_ids``,
    ``verdicts`` ``{instance_id: Verdict | bool | None}`` for the run's model; ``options`` and
    ``overrides`` as there."""
    return rate_table({submission: list(resolved_ids)}, instance_ids, verdicts, tiers,
                      models={submission: model}, dates={submission: date},
                      options=RescoreOptions.of(options, **overrides))
