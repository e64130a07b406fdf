"""Results re-scored without the flagged instances: one run (:func:`rescore_run`), every submission
of a leaderboard (:func:`build_leaderboard`, written by :func:`write_leaderboard`), or any loaded
submissions (:func:`rate_submissions`).

Each returns a :class:`Rescored`: the rate table (one row per submission and tier, the columns of
``leaderboard.csv``), the pooled summary over groups of submissions (all of them, each submission
year: ``summary.csv``; Mantel–Haenszel over submission x tier strata with a cluster bootstrap,
never a mean of per-submission ratios), the notes that explain it in words, where the denominator
came from, the flags it used, and the submissions left out with the reason.
``benchchecker rescore`` / ``leaderboard``, the demo and the republished page call these functions.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

from ..errors import DataError, InputError
from ..flags import ContaminationFlag, FlagColumns, read_flag_columns
from ..rescore_options import RescoreOptions, RescoreOverrides
from ._submission import Submission

if TYPE_CHECKING:  # pandas and the scorer (numba) are imported where used
    import pandas as pd

    from ..scoring import BootstrapDraws


#: :attr:`Rescored.denominator` when the rates are over the run's own instances (what it attempted)
RUN_INSTANCES = "the run's instances"


@dataclass(frozen=True, eq=False)
class Rescored:
    """Submissions re-scored: the rate ``table``, the pooled ``summary`` (one row per group of
    submissions and tier, :data:`~benchchecker_plugin.scoring.POOLED_COLUMNS`), its ``notes`` in
    words, the ``denominator``'s source (the instance list or tiers file), the ``flags`` used (a
    :class:`~benchchecker_plugin.flags.FlagColumns` from the pipelines: the records, read again
    from the flags file when first asked for), the ``submissions`` rated and those ``excluded``
    (``(name, reason)``)."""

    table: pd.DataFrame
    notes: tuple[str, ...]
    denominator: str
    flags: Sequence[ContaminationFlag]
    submissions: tuple[Submission, ...]
    summary: pd.DataFrame | None = None
    excluded: tuple[tuple[str, str], ...] = ()

    @functools.cached_property
    def flags_line(self) -> str:
        """One line naming the methods whose flags the rates rest on
        (:func:`benchchecker_plugin.report.describe_flags`)."""
        from ..report import describe_flags

        return describe_flags(self.flags)


def _flags_for(path: Path, benchmark: str) -> FlagColumns:
    """The flags of ``benchmark`` in ``path``, read as columns (no object per record)."""
    flags = read_flag_columns(path)
    have = flags.held("benchmark")
    if benchmark not in have:
        raise DataError(f"{path}: no flags for benchmark {benchmark} "
                        f"(the file holds: {', '.join(have) or 'no records'})")
    return flags.select(benchmark)


def _denominator(opts: RescoreOptions, run_ids: frozenset[str] | None = None
                 ) -> tuple[list[str], str]:
    """The instance ids rates are taken over, and where they came from. One rule, the same for
    every command (a tiers file once silently widened a run's denominator):
    ``--instances`` when given; else the run's own instances (``run_ids``: one run re-scored,
    when its results list what it attempted); else the ids in ``--tiers`` (a leaderboard's common
    list). Tiers only label: they never shrink or grow a run's denominator."""
    from ._tiers import load_instance_ids

    if opts.instances_path is not None:
        return (load_instance_ids(opts.instances_path, id_field=opts.id_field),
                str(opts.instances_path))
    if run_ids:
        return sorted(run_ids), RUN_INSTANCES
    if opts.tiers_path is None:
        raise InputError("give --instances (the benchmark's instance list) or --tiers")
    return load_instance_ids(opts.tiers_path, id_field=opts.id_field), str(opts.tiers_path)


def _unmatched(flags: FlagColumns, subs: Sequence[Submission]) -> list[Submission]:
    """The submissions no flag speaks for: none of their models has a record, and there is no
    ``"*"`` record (every instance of theirs would be undecided)."""
    from ..flags import ANY_MODEL

    models = set(flags.held("model"))
    if ANY_MODEL in models:
        return []
    return [s for s in subs if not models.intersection(s.models)]


def _no_model_match(sub: Submission, flags: FlagColumns, path: Path,
                    benchmark: str) -> InputError:
    held = flags.held("model")
    shown = ", ".join(held[:8]) + (f" ... ({len(held)} models)" if len(held) > 8 else "")
    who = f"model '{sub.model}'" if sub.model else "the run's model (the results name none)"
    return InputError(f"{path}: no {benchmark} flags for {who}; the flags hold {shown}: "
                      "pass --model NAME to pick one")


def _tiers(opts: RescoreOptions, ids: Sequence[str]) -> dict[str, str] | None:
    from ._tiers import load_tiers

    if opts.tiers_path is None:
        return None
    from ..benchmarks import tier_scheme

    return load_tiers(opts.tiers_path, field=opts.tier_field, id_field=opts.id_field,
                      scheme=tier_scheme(opts.benchmark), instance_ids=ids)


def _notes(table: pd.DataFrame, n_outside: int, errors: dict[str, int], denom: str) -> list[str]:
    all_rows = table[table["tier"] == "all"]
    source = RUN_INSTANCES if denom == RUN_INSTANCES else "the benchmark's instance list"
    notes = [f"{int(all_rows['n_instances'].iloc[0]) if len(all_rows) else 0} instances in the "
             f"denominator ({source}); unsubmitted instances count as unresolved."]
    und = int(all_rows["n_undecided"].sum())
    if und:
        notes.append(f"{und} (submission, instance) verdicts were undecided or had no flag "
                     f"(max {int(all_rows['n_undecided'].max())} per submission): they count in the "
                     "original rate but are excluded from the clean and contaminated rates.")
    if n_outside:
        notes.append(f"{n_outside} flagged instances are not in the instance list and were ignored.")
    for name, n in errors.items():
        notes.append(f"{name}: {n} instances failed to evaluate and count as unresolved.")
    return notes


def _in_words(text: str) -> str:
    """A scorer warning as a note: "nan" is what the table shows as a blank cell."""
    return text[0].upper() + text[1:].replace(" are nan", " are left blank").replace(
        " is nan", " is left blank") + ("" if text.endswith(".") else ".")


def summary_groups(subs: Sequence[Submission]) -> dict[str, list[str]]:
    """The groups a summary reports: every submission, then each submission year."""
    groups = {"all submissions": [s.name for s in subs]}
    for year in sorted({s.date[:4] for s in subs if s.date[:4].isdigit()}):
        groups[year] = [s.name for s in subs if s.date[:4] == year]
    return groups


def rate_submissions(subs: Sequence[Submission], flags_path: Path,
                     options: RescoreOptions | None = None, *,
                     groups: dict[str, list[str]] | None = None,
                     run_ids: frozenset[str] | None = None,
                     denominator: tuple[list[str], str] | None = None,
                     **overrides: Unpack[RescoreOverrides]) -> Rescored:
    """Rate ``subs`` with the flags of ``benchmark`` in ``flags_path`` (each submission's model,
    plus ``"*"`` flags) over ``instances_path``, else ``run_ids`` (one run's own instances), else
    the ids in ``tiers_path``, per tier of ``tiers_path`` (those names: fields of ``options``, a
    :class:`~benchchecker_plugin.rescore_options.RescoreOptions`, or of ``overrides``).

    A row (and a summary cell) is estimated only with ``min_clean`` clean and
    ``min_resolved_clean`` resolved clean instances (distinct ones, for a summary); ``groups``
    (default :func:`summary_groups`) are the summary's groups. ``denominator``: the instance ids
    and where they came from, when the caller has already read them.

    Errors (one line): no flags for ``benchmark``; neither instance list nor tiers; a resolved id
    outside the instance list; one submission whose model no flag names (and no ``"*"`` flag),
    naming the models the flags hold. Rows the scorer leaves blank are explained in the notes, not
    warned about."""
    from ..scoring import bootstrap_draws

    opts = RescoreOptions.of(options, **overrides)
    # the bootstrap draws (seconds for a large board) are made while the flags are read; the
    # errors stay in their order: the flags file's first
    try:
        ids, denom = denominator or _denominator(opts, run_ids)
        tiers = _tiers(opts, ids)
    except Exception as exc:
        early: Exception | None = exc
        draws = None
    else:
        early, draws = None, bootstrap_draws(ids, tiers, opts)
    try:
        flags = _flags_for(flags_path, opts.benchmark)
        if early is not None:
            raise early
        return _rate(subs, flags, flags_path, opts, ids, denom, tiers, groups, draws)
    finally:
        if draws is not None:
            draws.close()


def _rate(subs: Sequence[Submission], flags: FlagColumns, flags_path: Path, opts: RescoreOptions,
          ids: list[str], denom: str, tiers: dict[str, str] | None,
          groups: dict[str, list[str]] | None, draws: BootstrapDraws | None) -> Rescored:
    """:func:`rate_submissions` once its inputs are read."""
    from ..scoring import UndefinedMetricWarning, rate_and_pool
    from ._model_map import coded_verdicts_by_submission

    benchmark = opts.benchmark
    idset = frozenset(ids)
    subset_notes: list[str] = []
    if opts.instances_path is not None:   # a subset, as swebench's -i: ids outside it are not in it
        if tiers is not None and Path(str(opts.tiers_path)).suffix.lower() != ".xlsx":
            _check_known(subs, set(tiers), str(opts.tiers_path))   # a workbook is keyed by the subset
        subs, subset_notes = _within(subs, idset, denom)
    _check_known(subs, idset, denom)
    if len(subs) == 1 and _unmatched(flags, subs):   # one run: every instance would be undecided
        raise _no_model_match(subs[0], flags, flags_path, benchmark)
    outside = len(set(flags.held("instance")) - idset)
    verdicts = coded_verdicts_by_submission(flags, subs, ids)
    with warnings.catch_warnings(record=True) as caught:
        # why rows are blank goes into the notes (printed and in the report), said once in words
        warnings.simplefilter("always", UndefinedMetricWarning)
        resolved = {s.name: s.resolved for s in subs}
        table, summary = rate_and_pool(
            resolved, ids, verdicts, tiers,
            groups=groups if groups is not None else summary_groups(subs),
            models={s.name: s.model for s in subs}, dates={s.name: s.date for s in subs},
            options=opts, draws=draws)
    for w in caught:
        if not issubclass(w.category, UndefinedMetricWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    blank = list(dict.fromkeys(str(w.message) for w in caught
                               if issubclass(w.category, UndefinedMetricWarning)))
    errors = {s.name: len(s.errors) for s in subs if s.errors}
    notes = _notes(table, outside, errors, denom) + [_in_words(t) for t in blank]
    notes += [f"{s.name}: {s.partial} (scored as it is)." for s in subs if s.partial]
    notes += subset_notes
    return Rescored(table, tuple(notes), denom, flags, tuple(subs), summary)


def _check_known(subs: Sequence[Submission], idset: Collection[str] | None, denom: str) -> None:
    """A :class:`DataError` for a submission resolving an id the benchmark's list lacks (the
    scorer below knows names only; here both files are known)."""
    if idset is None:
        return
    known = idset if isinstance(idset, (set, frozenset)) else set(idset)
    for sub in subs:
        if sub.resolved <= known:
            continue
        unknown = sorted(sub.resolved - known)
        if unknown:
            shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
            raise DataError(f"{sub.source or sub.name}: submission {sub.name}: {len(unknown)} resolved "
                            f"instance ids are not in the benchmark's instance list: {shown} "
                            f"(read from {denom})")


def _within(subs: Sequence[Submission], idset: frozenset[str], denom: str
            ) -> tuple[list[Submission], list[str]]:
    """``subs`` on the subset ``idset`` (as swebench's ``-i``), and a note saying how much was
    left out."""
    out = [s.within(idset) for s in subs]
    outside = [(s.name, sorted(s.resolved - t.resolved)) for s, t in zip(subs, out, strict=True)
               if len(s.resolved) != len(t.resolved)]
    dropped = sum(len(ids) for _, ids in outside)
    named = "; ".join(f"{name}: {', '.join(ids[:3])}{' ...' if len(ids) > 3 else ''}"
                      for name, ids in outside[:3]) + ("; ..." if len(outside) > 3 else "")
    note = (f"Rated on the subset {denom} ({len(idset)} instances, the denominator): "
            f"{dropped} resolved (submission, instance) pairs outside it are not counted"
            + (f" ({named})" if outside else "") + ".")
    return out, [note]


def rescore_run(results_path: Path, flags_path: Path, options: RescoreOptions | None = None, *,
                fmt: str = "auto", model: str | None = None,
                **overrides: Unpack[RescoreOverrides]) -> Rescored:
    """Re-score one run's results (any format :func:`~.load.load_submissions` reads) without its
    contaminated instances, per tier; ``model`` names the run's model when the results do not
    (or name it otherwise). A results path holding several runs is an :class:`InputError`.
    The denominator is the run's instances (what its results list as attempted) unless
    ``instances_path`` says otherwise; ``tiers_path`` only labels them (``options`` and
    ``overrides`` as :func:`rate_submissions`)."""
    from ._load import load_submissions

    opts = RescoreOptions.of(options, **overrides)

    subs = load_submissions(results_path, fmt)
    if len(subs) != 1:
        raise InputError(f"{results_path}: holds {len(subs)} runs; rescore takes one "
                         "(use `benchchecker leaderboard` for many)")
    if opts.instances_path is None:
        refuse_empty_submission(subs[0].submitted, results_path)
    if model is not None:
        subs = [subs[0].with_(model=model)]
    return rate_submissions(subs, flags_path, opts, groups={}, run_ids=subs[0].submitted)


def refuse_empty_submission(submitted: frozenset[str] | None, source: object) -> None:
    """An :class:`InputError` for a run report whose ``submitted_ids`` is ``[]``: the run
    submitted no instance, so its rate has no denominator; rating it over the tiers file's ids
    (what happened) would count every instance as attempted and failed. SWE-bench lists in
    ``submitted_ids`` the instances it had predictions for; an empty list is a run of nothing."""
    if submitted is not None and not submitted:
        raise InputError(f"{source}: submitted_ids is empty: the run submitted no instance, so "
                         "there is nothing to rate (give --instances to rate it over a list)")


def build_leaderboard(submissions_path: Path, flags_path: Path,
                      options: RescoreOptions | None = None, *, fmt: str = "auto",
                      model_map_path: Path | None = None, official_path: Path | None = None,
                      **overrides: Unpack[RescoreOverrides]) -> Rescored:
    """Re-score every submission under ``submissions_path`` (models from their metadata, or the
    ``model_map_path`` CSV). Submissions whose resolved count disagrees with the official
    leaderboard (``official_path``, a ``leaderboards.json``, else each submission's own
    ``leaderboard_entry.json``) by more than ``tolerance`` of the instances are not scored
    (:mod:`._hygiene`); partial resolved lists are scored and named in the notes. A row or summary
    cell with fewer than ``min_clean`` clean or ``min_resolved_clean`` resolved clean instances
    reads "too few". The notes start with what was read and end with what was left out.
    ``options`` and ``overrides`` as :func:`rate_submissions`."""
    from ..scoring import TOO_FEW_CLEAN
    from ._hygiene import official_percentages, screen_submissions
    from ._load import load_submissions
    from ._model_map import apply_model_map, read_model_map

    opts = RescoreOptions.of(options, **overrides)
    benchmark = opts.benchmark
    subs = load_submissions(submissions_path, fmt)
    if model_map_path:
        subs = apply_model_map(subs, read_model_map(model_map_path))
    ids, denom = _denominator(opts)
    official = official_percentages(official_path) if official_path else None
    # like with like: the full per-instance lists against the board's figure, which is
    # of the whole benchmark; a subset (--instances) is taken after the screening
    n_full = len(ids) if opts.instances_path is None else _full_size(opts)
    if n_full is None:
        screened = screen_submissions([s.with_(official_pct=None) for s in subs], 1,
                                      tolerance=opts.tolerance)
        unscreened = [f"Resolved counts were not screened against the official board: its "
                      f"percentages are of the whole {benchmark}, whose size is unknown here "
                      "(give --tiers with the full instance list)."]
    else:
        screened = screen_submissions(subs, n_full, official=official, tolerance=opts.tolerance)
        unscreened = []
    if not screened.scored:
        raise DataError(f"{submissions_path}: no submission left to score: "
                        + "; ".join(f"{s.name}: {why}" for s, why in screened.excluded[:3]))
    rated = rate_submissions(list(screened.scored), flags_path, opts, denominator=(ids, denom))
    notes = [f"Benchmark {benchmark}; {len(subs)} submissions from {submissions_path}, "
             f"{len(screened.scored)} scored; flags {flags_path}; {opts.n_boot} cluster-bootstrap "
             f"resamples (seed {opts.seed})."] + list(rated.notes)
    notes += unscreened + [f"Not scored: {s.name}: {why}." for s, why in screened.excluded]
    too_few = int(rated.table["note"].fillna("").str.startswith(TOO_FEW_CLEAN).sum())
    if too_few:
        notes.append(f"{too_few} (submission, tier) rows have fewer than {opts.min_clean} clean or "
                     f"{opts.min_resolved_clean} resolved clean instances: no relative drop is shown "
                     "for them ('too few').")
    return Rescored(rated.table, tuple(notes), rated.denominator, rated.flags, rated.submissions,
                    rated.summary, tuple((s.name, why) for s, why in screened.excluded))


def _full_size(opts: RescoreOptions) -> int | None:
    """The number of instances an official board's percentages are of: the ids in ``--tiers``
    (the benchmark's full list), else the known size of ``benchmark``, else ``None``."""
    from ..benchmarks import KNOWN
    from ._tiers import load_instance_ids

    if opts.tiers_path is not None:
        return len(load_instance_ids(opts.tiers_path, id_field=opts.id_field))
    known = KNOWN.get(opts.benchmark)
    return known.n_instances if known else None


def write_leaderboard(board: Rescored, out_dir: Path) -> dict[str, Path]:
    """Write ``leaderboard.csv``, ``leaderboard.md``, ``index.html`` and ``README.md`` of
    ``board`` into ``out_dir`` (:func:`benchchecker_plugin.report.write_leaderboard_report`);
    returns ``{kind: path}``."""
    from ..report import write_leaderboard_report

    return write_leaderboard_report(board.table, out_dir, notes=board.notes,
                                    flags_line=board.flags_line, summary=board.summary,
                                    excluded=board.excluded)
