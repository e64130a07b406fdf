"""A republication made: the boards read, the verdicts taken from their source, who is scored how,
the bundle written, and its page rebuilt from the bundle alone (so the published page *is* a
rebuild of what was written)."""

from __future__ import annotations

import platform
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from .._version import __version__
from ..cutoff import CutoffPeriod
from ..cutoffs_file import read_cutoffs
from ..errors import InputError, RepositoryError
from ..instances import BugInstance
from ..leaderboard import Submission, apply_model_map, read_model_map, screen_submissions
from ..stage2 import PresenceConfig, locate
from ._boards import Board, pooled, read_board
from ._bundle import Bundle, repo_of, write_bundle
from ._config import RepublishConfig
from ._cutoffs import band_dates, moved_models, read_cutoffs_table, snapshot_dates
from ._facts import BuildFacts
from ._official import board_facts, first_texts
from ._rebuild import rebuild
from ._rows import Scoring, instance_rows, snapshot_rows, unscored_rows
from ._stage2 import StageTwoPlan
from ._verdicts import Verdicts, from_bundle, from_flags_file, from_stage2

Say = Callable[[str], None]
TITLES = {"swe-bench-verified": "SWE-bench Verified", "multi-swe-bench": "Multi-SWE-bench"}


def _chosen(records: Mapping[str, BugInstance], ids: Sequence[str], repos: Sequence[str] | None
            ) -> tuple[list[str], set[str]]:
    """The instances of the ``repos`` repositories (all without it) and the repositories left
    out; a name that is no repository of the instances is an error naming the known ones."""
    known = {repo_of(i) for i in ids}
    if repos is None:
        return list(ids), set()
    unknown = sorted(set(repos) - known)
    if unknown:
        raise InputError(f"--repos: {', '.join(unknown)}: not a repository of these instances "
                         f"(known: {', '.join(sorted(known))})")
    return [i for i in ids if repo_of(i) in repos], known - set(repos)


def _fetch(config: RepublishConfig, chosen: Sequence[BugInstance], say: Say) -> None:
    """Clones the chosen instances' repositories into ``repos_dir`` (only those ``--repos`` chose)."""
    from ..repos import DEFAULT_SOURCE, fetch_repos

    assert config.repos_dir is not None
    commits: dict[str, set[str]] = {}
    for inst in chosen:
        commits.setdefault(inst.repo, set()).add(inst.base_commit)
    for res in fetch_repos([i.repo for i in chosen], config.repos_dir,
                           source=config.fetch_source or DEFAULT_SOURCE, commits=commits):
        say(f"fetch {res.repo}: {res.status.value} {res.detail}")


def _found(repos_dir: Path, config: PresenceConfig, inst: BugInstance) -> bool:
    """Whether Stage II with ``config`` finds the instance's repository."""
    try:
        locate(repos_dir, inst, source=config.snapshot_source, releases_dir=config.releases_dir)
    except RepositoryError:
        return False
    return True


def _verdicts(config: RepublishConfig, chosen: Sequence[str], records: Mapping[str, BugInstance],
              cutoffs: Mapping[str, CutoffPeriod], moved: set[str], say: Say) -> Verdicts:
    """The verdicts from the config's source, ``covered`` set to the instances they cover."""
    if config.from_bundle is not None:
        got = from_bundle(config.from_bundle, cutoffs, config.release_repos)
        got.covered = set(chosen)
        return got
    if config.flags is not None:
        return from_flags_file(config.flags, set(chosen), cutoffs, moved)
    held = [records[i] for i in chosen if i in records]
    if config.fetch:
        _fetch(config, held, say)
    assert config.repos_dir is not None
    plan = StageTwoPlan(config.repos_dir, config.releases_dir, config.lag_margin, config.stage2_cache,
                        config.cached_only, config.extra_dates, config.own_fix, config.similarity,
                        config.state)
    stage2 = plan.config()
    covered = [r for r in held if _found(plan.repos_dir, stage2, r)]
    if not covered:
        raise InputError(f"no instance is covered: no clone under {config.repos_dir}"
                         + ("" if held else " (and no instance records: give --instances)"))
    say(f"{len(covered)}/{len(chosen)} instances covered; verdicts at {len(cutoffs)} model cutoffs ...")
    got = from_stage2(covered, plan, cutoffs, moved, say)
    got.covered = {r.instance_id for r in covered} - {i for i in chosen if repo_of(i) in got.unfinished}
    return got


def _submissions(boards: Sequence[Board], model_map: Mapping[str, str] | None
                 ) -> tuple[list[Submission], dict[str, str]]:
    subs: list[Submission] = []
    board_of: dict[str, str] = {}
    for board in boards:
        for s in board.submissions:
            if s.name in board_of:
                raise InputError(f"submission {s.name} is on boards {board_of[s.name]} and {board.name}")
            board_of[s.name] = board.name
            subs.append(s)
    return (apply_model_map(subs, model_map) if model_map is not None else subs), board_of


def _classify(boards: Sequence[Board], subs: Sequence[Submission], board_of: Mapping[str, str],
              model_map: Mapping[str, str] | None, cutoffs: Mapping[str, CutoffPeriod],
              dates: Sequence[str], floor: str) -> tuple[Scoring, dict[str, str]]:
    """Who is scored at a published cutoff, who over a plausible interval, who not (and why),
    and the partial resolved lists marked on the way."""
    scored: list[Submission] = []
    banded: dict[str, tuple[Submission, tuple[str, str]]] = {}
    unscored: list[tuple[Submission, str]] = []
    marks: dict[str, str] = {}
    for board in boards:
        screened = screen_submissions([s for s in subs if board_of[s.name] == board.name],
                                      len(board.ids), official=board.official)
        unscored += screened.excluded
        marks.update(screened.marks)
        for s in screened.scored:
            ends = band_dates(s, dates, floor) if floor else None
            if model_map is not None and s.name not in model_map:
                unscored.append((s, "not in the model map"))
            elif s.models and not [m for m in s.models if m not in cutoffs]:
                scored.append(s)
            elif ends is not None:
                banded[s.name] = (s, ends)
            else:
                why = "model undisclosed" if not s.models else "no published training cutoff for " + \
                    ", ".join(m for m in s.models if m not in cutoffs)
                unscored.append((s, why + ("; no computed snapshot inside its plausible interval"
                                           if floor else "; no plausible-interval floor (--band-floor)")))
    ids_of = {b.name: b.ids for b in boards}
    return Scoring(tuple(scored), banded, tuple(unscored), board_of, ids_of), marks


def _floor(config: RepublishConfig, records: Mapping[str, BugInstance], boards: Sequence[Board]
           ) -> tuple[str, str | None]:
    """The plausible-interval floor and what it rests on: given, or the latest pull-request
    date among the instances that record one (their ``created_at``, or the board's index.json)."""
    if config.band_floor is not None:
        return config.band_floor, config.band_floor_basis or "given with --band-floor"
    created = {i: f"{r.created:%Y-%m-%d}" for i, r in records.items() if r.created is not None}
    if created:
        return (max(created.values()), f"the latest pull-request creation date among the "
                f"{len(created)} instances with one, a stated bound")
    dated = {i: d for board in boards for i, d in board.dates.items()}
    if not dated:
        return "", None
    return (max(dated.values()), f"the latest pull-request date among the {len(dated)} instances "
            "of the board's index.json, a stated bound")


def _facts(config: RepublishConfig, boards: Sequence[Board], subs: Sequence[Submission],
           scoring: Scoring, verdicts: Verdicts, extra: Mapping[str, Any]) -> BuildFacts:
    """The build facts of the run (``extra``: what the caller knows of cutoffs and coverage)."""
    size = len(boards[0].ids)
    label = "all" if len({len(b.ids) for b in boards}) > 1 else str(size)
    several = len(boards) > 1
    title = config.title or (" + ".join(b.name for b in boards) if several
                             else TITLES.get(boards[0].benchmark, boards[0].name))
    return BuildFacts(
        command=config.command, date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        versions=f"benchchecker {__version__}, Python {platform.python_version()}, pandas {pd.__version__}",
        data=config.data or "; ".join(f"{b.name}: {len(b.ids)} instances, {len(b.submissions)} "
                                      f"submissions ({b.folder.name})" for b in boards),
        stage2=verdicts.stage2, errors=verdicts.errors, n_flags=verdicts.n_flags,
        resamples=config.resamples, seed=config.seed, min_clean=config.min_clean,
        min_resolved_clean=config.min_resolved_clean, mde_sims=config.mde_sims,
        mde_resamples=config.mde_resamples, n_submissions=len(subs),
        restricted=config.repos is not None or config.submissions is not None or bool(verdicts.unfinished),
        unfinished=verdicts.unfinished, fix_dates=verdicts.fix_dates or None,
        bands={n: {"start": e[0], "end": e[1], "models": b.model or "undisclosed"}
               for n, (b, e) in scoring.banded.items()},
        submissions=[{"submission": s.name, "models": s.model, "date": s.date,
                      f"resolved_of_{label}": len(s.resolved), **({"board": scoring.board_of[s.name]}
                                                                 if several else {})} for s in subs],
        title=title,
        benchmark=boards[0].benchmark if not several else "pooled", n_instances=size if not several else None,
        boards=[{"name": b.name, "n_instances": len(b.ids), "n_submissions": len(b.submissions),
                 "folder": b.folder.name} for b in boards] if several else None,
        board=board_facts(boards[0], subs, scoring) if not several else None, **extra)


def make_bundle(config: RepublishConfig, say: Say = lambda _: None) -> Bundle:
    """The bundle of ``config`` (nothing written)."""
    boards = [read_board(src) for src in config.boards]
    ids, tiers, records = pooled(boards)
    chosen, left_out = _chosen(records, ids, config.repos)
    model_map = read_model_map(config.model_map) if config.model_map is not None else None
    subs, board_of = _submissions(boards, model_map)
    cutoffs_path = config.cutoffs or config.model_map
    if cutoffs_path is None:
        raise InputError("give --cutoffs FILE (or a --model-map with a model_cutoffs column)")
    table = read_cutoffs(cutoffs_path)
    sources = pd.read_csv(config.cutoff_sources, dtype=str) if config.cutoff_sources else None
    cutoffs, cutoff_df = read_cutoffs_table(table, sources, subs)
    verdicts = _verdicts(config, chosen, records, cutoffs, moved_models(cutoff_df), say)
    covered = verdicts.covered if verdicts.covered is not None else set(chosen)
    missing = {repo_of(i) for i in chosen} - {repo_of(i) for i in covered}
    if config.submissions is not None:
        subs = [s for s in subs if s.name in config.submissions]
    floor, basis = _floor(config, records, boards)
    scoring, marks = _classify(boards, subs, board_of, model_map, cutoffs, list(verdicts.at), floor)
    date_of = snapshot_dates(cutoffs)
    facts = _facts(config, boards, subs, scoring, verdicts, {
        "n_models": len(cutoffs), "unknown_models": list(table.unknown), "marks": marks,
        "missing_repos": sorted(missing), "left_out_repos": sorted(left_out), "band_floor": floor,
        "band_floor_basis": basis})
    return Bundle(instances=instance_rows(scoring, tiers, verdicts, date_of, covered),
                  flags=verdicts.compact, cutoffs=cutoff_df,
                  unscored=unscored_rows(scoring, facts.size_label),
                  snapshots=snapshot_rows(verdicts, date_of, chosen), facts=facts,
                  recall=verdicts.recall)


def republish(config: RepublishConfig, out: str | Path, *, say: Say = lambda _: None) -> Bundle:
    """Make the bundle of ``config``, write it into ``out`` (with a first CHANGELOG.md and
    LICENSE-DATA.md where the folder has none) and rebuild its page there from the bundle alone;
    ``say`` hears the progress. Returns the bundle."""
    target = Path(out)
    bundle = make_bundle(config, say)
    write_bundle(bundle, target, first_texts(bundle, config))
    rebuild(target, target)
    return bundle
