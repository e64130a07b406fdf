"""``--contamination-detect`` for ``benchchecker swebench run_evaluation``: Stage II (patch
presence) at the model's training cutoff, for exactly the run's instances, before the harness runs.

- The instances are the run's predictions narrowed by ``--instance_ids``, read from its
  ``--dataset_name``: a local ``.jsonl`` / ``.json`` file with benchchecker's SWE-bench loader;
  a ``.parquet`` file, a saved dataset folder or a hub name with the harness's own
  ``load_swebench_dataset`` (so detection reads the records the harness evaluates).
- The cutoff is ``--contamination-cutoff DATE`` or the model's entry of ``--contamination-cutoffs FILE`` (the
  formats ``patch-presence --cutoffs`` reads, :func:`benchchecker_plugin.cutoffs_file.read_cutoffs`),
  looked up by the flags' model name, then by its last ``/`` part.
- The clones come from ``--contamination-repos-dir`` (``DIR/owner__name``, as ``patch-presence`` reads them).
- Stage II is :func:`benchchecker_plugin.stage2.run_stage2` with one model: it reads git history and
  asks no model.

An instance whose repository has no clone is never guessed: its flag is undecided (contaminated
``null``) with the reason in ``evidence.error``, and the run names the missing repositories and the
``benchchecker repos fetch`` command that clones them.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchchecker_plugin.errors import InputError, RepositoryError

from ..common import echo, warn
from ..detection import Detection

if TYPE_CHECKING:
    from benchchecker_plugin.instances import BugInstance

NO_MODEL_CALLS = "Stage II reads git history only and makes no model calls"

#: The detection options that take a value, and those that take none (``run_evaluation`` removes
#: both before the harness runs).
#: the names the wrapper's other added options share (one ``--contamination-`` prefix) -> the
#: earlier spellings, kept as aliases
_RENAMED = {"--contamination-cutoffs": "--cutoffs", "--contamination-repos-dir": "--repos-dir"}
DETECT_VALUED = frozenset({"--contamination-cutoff", "--contamination-cache-dir", *_RENAMED,
                           *_RENAMED.values()})
DETECT_SWITCHES = frozenset({"--contamination-detect", "--dry-run", "--contamination-no-cache"})


def add_detect_arguments(parser: argparse.ArgumentParser) -> None:
    """The detection options on the wrapper's parser of ``run_evaluation`` arguments (read into
    :meth:`DetectRequest.from_values`)."""
    for name in sorted(DETECT_VALUED - set(_RENAMED) - set(_RENAMED.values())):
        parser.add_argument(name, dest=name.lstrip("-").replace("-", "_"))
    for name, old in _RENAMED.items():
        parser.add_argument(name, old, dest=old.lstrip("-").replace("-", "_"))
    for name in sorted(DETECT_SWITCHES):
        parser.add_argument(name, dest=name.lstrip("-").replace("-", "_"), action="store_true")


#: The detection options as ``run_evaluation --help`` lists them.
DETECT_OPTION_HELP = (
    ("--contamination-detect", "Make the flags in this run: Stage II (patch presence) for exactly "
                               "the run's instances at the model's training cutoff, written "
                               "beside the run report (--report_dir) as "
                               "<model>.<run_id>.benchchecker_flags.jsonl before the harness "
                               "starts; merged with --contamination-filter flags. "
                               f"{NO_MODEL_CALLS}."),
    ("--contamination-cutoff DATE", "The model's training cutoff, YYYY, YYYY-MM, YYYY-MM-DD (end "
                                    "of that period, UTC) or an ISO datetime."),
    ("--contamination-cutoffs FILE", "Instead of --contamination-cutoff: the cutoffs file patch-presence "
                       "--cutoffs reads (CSV model,cutoff; JSON {model: cutoff}; or a model map "
                       "with model_cutoffs); the entry of the predictions' model_name_or_path "
                       "(or --contamination-model) is used."),
    ("--contamination-repos-dir DIR", "Full git clones as DIR/owner__name (`benchchecker repos fetch` makes "
                        "them); instances without a clone stay undecided."),
    ("--dry-run", "With --contamination-detect: print how many instances detection would check, "
                  "which repositories have a clone in --contamination-repos-dir and the cutoff; run nothing, "
                  "write nothing."),
)


def _names(items: Sequence[str], most: int = 5) -> str:
    return ", ".join(items[:most]) + (f", ... ({len(items) - most} more)" if len(items) > most else "")


@dataclass(frozen=True)
class DetectRequest:
    """The validated detection options of one ``run_evaluation`` command line: exactly one of
    ``cutoff`` (``--contamination-cutoff``) and ``cutoffs_file`` (``--contamination-cutoffs``), the clones
    folder and ``--dry-run``."""

    repos_dir: Path
    cutoff: str | None = None
    cutoffs_file: Path | None = None
    dry_run: bool = False

    @classmethod
    def from_values(cls, detect: bool, *, dry_run: bool = False, cutoff: str | None = None,
                    cutoffs_file: str | None = None, repos_dir: str | None = None,
                    cache_dir: str | None = None, no_cache: bool = False) -> DetectRequest | None:
        """The request, or ``None`` without ``--contamination-detect``; one-line
        :class:`InputError` for a missing, contradictory or malformed option."""
        given = [n for n, v in (("--contamination-cutoff", cutoff), ("--contamination-cutoffs", cutoffs_file),
                                ("--contamination-repos-dir", repos_dir), ("--dry-run", dry_run),
                                ("--contamination-cache-dir", cache_dir),
                                ("--contamination-no-cache", no_cache)) if v]
        if not detect:
            if given:
                raise InputError(f"{', '.join(given)} need(s) --contamination-detect")
            return None
        if cache_dir or no_cache:
            raise InputError("--contamination-cache-dir / --contamination-no-cache: detection for "
                             f"SWE-bench has nothing to cache ({NO_MODEL_CALLS})")
        if cutoff is None and cutoffs_file is None:
            raise InputError("--contamination-detect needs the model's training cutoff: "
                             "--contamination-cutoff DATE or --contamination-cutoffs FILE")
        if cutoff is not None and cutoffs_file is not None:
            raise InputError("give either --contamination-cutoff DATE or --contamination-cutoffs FILE, not both")
        if cutoff is not None:
            from benchchecker_plugin.cutoff import parse_cutoff

            try:
                parse_cutoff(cutoff)
            except InputError as exc:
                raise InputError(f"--contamination-cutoff: {exc}") from None
        if cutoffs_file is not None and not Path(cutoffs_file).is_file():
            raise InputError(f"--contamination-cutoffs {cutoffs_file}: no such file")
        if repos_dir is None:
            raise InputError("--contamination-detect needs --contamination-repos-dir DIR, a folder of full git "
                             "clones as DIR/owner__name (`benchchecker repos fetch --instances "
                             "DATASET --into DIR` makes them)")
        if not Path(repos_dir).is_dir():
            raise InputError(f"--contamination-repos-dir {repos_dir}: no such folder (`benchchecker repos fetch "
                             f"--instances DATASET --into {repos_dir}` clones the repositories)")
        return cls(Path(repos_dir), cutoff, Path(cutoffs_file) if cutoffs_file else None,
                   bool(dry_run))

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> DetectRequest | None:
        """:meth:`from_values` of the options :func:`add_detect_arguments` parsed."""
        return cls.from_values(ns.contamination_detect, dry_run=ns.dry_run,
                               cutoff=ns.contamination_cutoff, cutoffs_file=ns.cutoffs,
                               repos_dir=ns.repos_dir, cache_dir=ns.contamination_cache_dir,
                               no_cache=ns.contamination_no_cache)

    def cutoff_for(self, model: str) -> tuple[Any, str]:
        """``(cutoff, where it came from)`` for the flags' model ``model``."""
        if self.cutoff is not None:
            return self.cutoff, f"--contamination-cutoff {self.cutoff}"
        from benchchecker_plugin.cutoffs_file import read_cutoffs

        assert self.cutoffs_file is not None
        table = read_cutoffs(self.cutoffs_file)
        for name in dict.fromkeys([model, model.rsplit("/", 1)[-1]]):
            if name in table.cutoffs:
                return table.cutoffs[name], f"--contamination-cutoffs {self.cutoffs_file}, model '{name}'"
        known = list(table.cutoffs)
        why = "names it without a known cutoff" if model in table.unknown else "has no entry for it"
        raise InputError(f"--contamination-cutoffs {self.cutoffs_file}: no cutoff for model '{model}' (the file "
                         f"{why}; it has cutoffs for {_names(known) or 'no model'}); add it, pass "
                         "--contamination-model NAME, or give --contamination-cutoff DATE")


def _benchmark(dataset: str) -> str:
    from benchchecker_plugin.benchmarks import benchmark_of_source

    return benchmark_of_source(dataset)


def load_run_instances(dataset: str, split: str, ids: Sequence[str]) -> list[BugInstance]:
    """The instances ``ids`` of the run's dataset, in ``ids`` order; an id the dataset lacks is a
    one-line :class:`InputError`."""
    from benchchecker_plugin.instances import instance_from_swebench, load_swebench

    if Path(dataset).suffix in (".jsonl", ".json"):
        everything = load_swebench(dataset, split=split)
    else:
        from benchchecker_plugin.swebench_compat import load_swebench_dataset

        try:
            rows = load_swebench_dataset(dataset, split, "`benchchecker swebench run_evaluation`")
        except Exception as exc:  # datasets / pyarrow raise many types: one line naming the input
            raise InputError(f"--dataset_name {dataset}: cannot load split {split!r} "
                             f"({type(exc).__name__}: {exc})") from exc
        everything = [instance_from_swebench(row, benchmark=_benchmark(dataset),
                                             where=f"{dataset}[{i}]")
                      for i, row in enumerate(rows)]
    by_id = {inst.instance_id: inst for inst in everything}
    absent = [i for i in ids if i not in by_id]
    if absent:
        raise InputError(f"--dataset_name {dataset}: has no instance {_names(absent)} (named by "
                         "the predictions)")
    return [by_id[i] for i in ids]


@dataclass(frozen=True)
class DetectPlan:
    """What detection will do for one run: its instances, the flags' model and cutoff, and which
    repositories have a clone in ``repos_dir``."""

    dataset: str
    instances: tuple[BugInstance, ...]
    model: str
    cutoff: Any
    """As given (a date text or a :class:`~benchchecker_plugin.cutoff.CutoffPeriod`)."""
    cutoff_from: str
    repos_dir: Path
    present: Mapping[str, Path]
    """Repository -> its clone."""
    missing: Mapping[str, tuple[str, ...]]
    """Repository without a clone -> the run's instances of it (they stay undecided)."""
    load_s: float = 0.0
    counts: Mapping[str, int] = field(default_factory=dict)
    """Repository -> number of the run's instances."""

    @property
    def cutoff_moment(self) -> str:
        """The last moment the snapshot may hold, as ISO text (UTC)."""
        from benchchecker_plugin.cutoff import parse_cutoff

        return parse_cutoff(self.cutoff).isoformat()

    def fetch_hint(self) -> str:
        return (f"`benchchecker repos fetch --instances {self.dataset} --into {self.repos_dir}` "
                "clones them")

    def describe(self, flags_file: Path) -> list[str]:
        """The ``--dry-run`` lines."""
        def repos(names: Sequence[str]) -> str:
            return ", ".join(f"{r} ({self.counts[r]})" for r in names) or "none"

        lines = [f"dry run: detection would check {len(self.instances)} instance(s) of "
                 f"{self.dataset} for model '{self.model}' with Stage II (patch presence); "
                 f"{NO_MODEL_CALLS}",
                 f"  cutoff: {self.cutoff_moment} (from {self.cutoff_from})",
                 f"  clones in {self.repos_dir}: present: {repos(sorted(self.present))}; "
                 f"missing: {repos(sorted(self.missing))}"]
        if self.missing:
            lines.append(f"  {sum(len(v) for v in self.missing.values())} instance(s) without a "
                         f"clone would stay undecided; {self.fetch_hint()}")
        lines.append(f"  flags would go to {flags_file}; nothing was run or written")
        return lines


def plan_detection(request: DetectRequest, *, dataset: str, split: str, ids: Sequence[str],
                   model: str) -> DetectPlan:
    """Resolve the cutoff, load the instances and check the clones (nothing is computed)."""
    from benchchecker_plugin.repos import find_repo

    if not ids:
        raise InputError("--contamination-detect: the run has no instances to check (no "
                         "prediction is among --instance_ids)")
    start = time.perf_counter()
    cutoff, cutoff_from = request.cutoff_for(model)
    instances = load_run_instances(dataset, split, ids)
    present: dict[str, Path] = {}
    missing: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    for inst in instances:
        counts[inst.repo] = counts.get(inst.repo, 0) + 1
        if inst.repo in missing:
            missing[inst.repo].append(inst.instance_id)
        elif inst.repo not in present:
            try:
                present[inst.repo] = find_repo(request.repos_dir, inst)
            except RepositoryError:
                missing[inst.repo] = [inst.instance_id]
    return DetectPlan(dataset, tuple(instances), model, cutoff, cutoff_from, request.repos_dir,
                      present, {r: tuple(v) for r, v in missing.items()},
                      time.perf_counter() - start, counts)


def run_detection(plan: DetectPlan) -> Detection:
    """Stage II for every instance of ``plan`` (one flag each, for ``plan.model``).

    With no clone for any of the run's repositories this is an :class:`InputError` (a wrong
    ``--contamination-repos-dir``); with some missing, a warning names them and their instances are undecided.
    """
    from benchchecker_plugin.stage2 import run_stage2

    if not plan.present:
        raise InputError(f"--contamination-repos-dir {plan.repos_dir}: no clone of any repository of this run "
                         f"({_names(sorted(plan.missing))}); {plan.fetch_hint()}")
    if plan.missing:
        undecided = [i for ids in plan.missing.values() for i in ids]
        warn(f"--contamination-repos-dir {plan.repos_dir}: no clone of {_names(sorted(plan.missing))}: "
             f"{len(undecided)} instance(s) stay undecided (e.g. '{undecided[0]}'; the reason is in "
             f"each flag's evidence); {plan.fetch_hint()}")
    echo(f"detection: Stage II at cutoff {plan.cutoff_moment} (from {plan.cutoff_from}) for "
         f"{len(plan.instances)} instance(s), model '{plan.model}'; {NO_MODEL_CALLS}")
    start = time.perf_counter()
    run = run_stage2(plan.instances, plan.repos_dir, {plan.model: plan.cutoff})
    seconds = plan.load_s + time.perf_counter() - start
    return Detection(tuple(run.flags), {plan.dataset: _benchmark(plan.dataset)},
                     probes=len(plan.instances), seconds=seconds)


def _counts(detection: Detection) -> dict[str, int]:
    """Verdict counts; ``undecided`` includes the ``failed`` ones (no clone, a bad commit: the
    reason is in their ``evidence.error``)."""
    clean = sum(f.contaminated is False for f in detection.flags)
    return {"contaminated": detection.contaminated, "clean": clean,
            "undecided": len(detection.flags) - detection.contaminated - clean,
            "failed": detection.failed}


def detection_record(plan: DetectPlan, detection: Detection, flags_file: Path) -> dict[str, Any]:
    """The ``detection`` block of ``<report>.benchchecker.json``."""
    return {"method": "benchchecker.stage2", "model": plan.model, "cutoff": plan.cutoff_moment,
            "cutoff_from": plan.cutoff_from, "repos_dir": str(plan.repos_dir),
            "instances": len(plan.instances), "counts": _counts(detection),
            "missing_clones": {r: list(v) for r, v in sorted(plan.missing.items())},
            "model_calls": 0, "flags_file": str(flags_file),
            "seconds": round(detection.seconds, 3)}


def summary(detection: Detection) -> str:
    """``detection: N instances: a contaminated, b clean, c undecided (d failed) in S s``."""
    c = _counts(detection)
    failed = (f" ({c['failed']} of them failed; the reason is in each flag's evidence.error)"
              if c["failed"] else "")
    return (f"detection: {len(detection.flags)} instances: {c['contaminated']} contaminated, "
            f"{c['clean']} clean, {c['undecided']} undecided{failed} in {detection.seconds:.1f} s")


def detect_run(request: DetectRequest, *, dataset: str, split: str, ids: Sequence[str],
               model: str, report: Path) -> tuple[Detection, dict[str, Any]] | None:
    """Plan detection for the run's instances ``ids``; under ``--dry-run`` describe it and return
    ``None``; otherwise run it and write the flags beside the run ``report`` (before the harness
    starts). Returns the detection and the ``detection`` block of ``.benchchecker.json``."""
    from benchchecker_plugin.flags import write_flags

    plan = plan_detection(request, dataset=dataset, split=split, ids=ids, model=model)
    flags_file = flags_file_for(report)
    if request.dry_run:
        for line in plan.describe(flags_file):
            echo(line)
        return None
    detection = run_detection(plan)
    write_flags(flags_file, detection.flags)
    echo(summary(detection))
    echo(f"flags detected in this run written to {flags_file}")
    return detection, detection_record(plan, detection, flags_file)


def flags_file_for(report: Path) -> Path:
    """``<report_dir>/<model>.<run_id>.benchchecker_flags.jsonl``, beside the run report
    ``<report_dir>/<model>.<run_id>.json`` (a re-run of the same run id replaces it)."""
    return report.with_name(report.stem + ".benchchecker_flags.jsonl")
