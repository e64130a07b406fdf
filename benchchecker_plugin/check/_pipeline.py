"""The pre-release check: every detector that applies, on every benchmark asked for, one model.

Stage I per repository and Stage II per instance for bug-fixing benchmarks (these need local clones
in ``repos_dir``), TS-Guessing per item for MMLU and TruthfulQA, and, given training-corpus paths
(``corpora``), corpus overlap (:func:`benchchecker_plugin.overlap.run_overlap`, the driver of
``benchchecker overlap``, with its settings from ``corpus_options``) on the same checked items and
instances. Each stage writes its own flags file; the
merged per-instance verdicts go to ``flags.jsonl`` (TS-Guessing and overlap merged by any; for
bug-fixing benchmarks BenchChecker's rule on Stage I and II, overlap reported beside it).
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import HubUnavailableError, InputError, RepositoryError
from ..flags import ContaminationFlag, MergePolicy, merge_flags, write_flags
from ..models import LogprobModel, TextModel
from ._rates import exact_rate, queries_to_rule_out
from ._sampling import limit_for, stratified_sample

if TYPE_CHECKING:   # the overlap engine loads numba: imported where used
    from ..overlap import OverlapAudit

BUG_BENCHMARKS = {"swe-bench-verified": "princeton-nlp/SWE-bench_Verified",
                  "bugsinpy": None, "defects4j": None}
QA_BENCHMARKS = ("mmlu", "truthfulqa")


@dataclass(frozen=True)
class CheckConfig:
    """What to check. ``data`` maps a benchmark to a local file/folder (else its hub name is used)."""

    benchmarks: tuple[str, ...]
    cutoff: str
    repos_dir: Path | None = None
    data: dict[str, str] = field(default_factory=dict)
    limit: int | None = None
    #: per-benchmark limits from ``--limit mmlu=200,truthfulqa=100`` (``"*"``: every other one)
    limits: Mapping[str, int] = field(default_factory=dict)
    n_queries: int = 50
    n_samples: int = 3
    ts_modes: tuple[str, ...] = ("multichoice",)
    seed: int = 0
    batch_size: int = 16   # TS-Guessing prompts per model call
    #: training-corpus paths (``--corpus``): the checked items are also looked for there
    corpora: tuple[str, ...] = ()
    #: ``--corpus-option KEY=VALUE``: the overlap run's settings (rule, engine, fields, state, ...)
    corpus_options: tuple[str, ...] = ()

    def limit_of(self, benchmark: str) -> int | None:
        """This benchmark's limit: its own, else the plain ``--limit N``, else none."""
        return limit_for(self.limits, benchmark) or self.limit

    def __post_init__(self) -> None:
        known = set(BUG_BENCHMARKS) | set(QA_BENCHMARKS)
        unknown = [b for b in self.benchmarks if b not in known]
        if unknown:
            raise InputError(f"unknown benchmark(s) {', '.join(unknown)}; choose from "
                             f"{', '.join(sorted(known))}")
        if not self.benchmarks:
            raise InputError("no benchmark given; e.g. --benchmarks mmlu,truthfulqa")
        for name in self.limits:
            if name != "*" and name not in known:
                raise InputError(f"--limit {name}=...: unknown benchmark {name!r}; choose from "
                                 f"{', '.join(sorted(known))}")
        for name, path in self.data.items():   # a misspelt name was ignored: the hub was asked
            if name not in known:
                raise InputError(f"--data {name}={path}: unknown benchmark {name!r}; choose from "
                                 f"{', '.join(sorted(known))}")


@dataclass(frozen=True)
class RepoEvidence:
    """Stage I outcome of one repository (what the report shows per repo)."""

    benchmark: str
    repo: str
    hits: int
    queries: int
    failed_queries: int
    p0: float
    p_value: float
    contaminated: bool | None
    note: str = ""


@dataclass(frozen=True)
class CheckResult:
    model: str
    config: CheckConfig
    stage_flags: dict[str, list[ContaminationFlag]]
    merged: list[ContaminationFlag]
    repos: list[RepoEvidence]
    notes: list[str]
    ts_summaries: dict[str, dict[str, Any]]
    #: question text per ``(benchmark, instance_id)`` of the probed items (the report shows it)
    questions: Mapping[tuple[str, str], str] = field(default_factory=dict)
    #: items sampled per benchmark (the denominators of the summary)
    sampled: Mapping[str, int] = field(default_factory=dict)
    #: the corpus overlap audit (``config.corpora``), else ``None``
    overlap: OverlapAudit | None = None

    def write(self, out_dir: Path) -> dict[str, Path]:
        """Write each stage's flags and the merged flags into ``out_dir/flags``/``out_dir``."""
        paths = {}
        for stage, flags in self.stage_flags.items():
            paths[stage] = write_flags(out_dir / "flags" / f"{stage}.jsonl", flags)
        paths["merged"] = write_flags(out_dir / "flags.jsonl", self.merged)
        return paths


def _load_bug_instances(benchmark: str, config: CheckConfig) -> list[Any]:
    from ..instances import load_instances

    source = config.data.get(benchmark) or BUG_BENCHMARKS[benchmark]
    if source is None:
        raise InputError(f"{benchmark}: give its local folder with --data {benchmark}=PATH")
    try:
        instances = load_instances(source, benchmark=benchmark)
    except HubUnavailableError as exc:
        raise exc.naming(f"--data {benchmark}=FILE (a local instances .jsonl)") from exc
    return stratified_sample(instances, config.limit_of(benchmark), lambda i: i.repo, seed=config.seed)


def _bug_benchmark(benchmark: str, instances: list[Any], model: TextModel, model_name: str,
                   config: CheckConfig, reference: LogprobModel | None, notes: list[str],
                   repos: list[RepoEvidence]) -> tuple[list[ContaminationFlag], list[ContaminationFlag]]:
    from ..cutoff import parse_cutoff
    from ..repos import find_repo
    from ..stage1 import presence_flags, repo_presence
    from ..stage2 import run_stage2

    if config.repos_dir is None:
        notes.append(f"{benchmark}: skipped Stage I and II ({len(instances)} instances): they read the "
                     "repositories; give --repos-dir with local clones (owner__name/ or name/)")
        return [], []
    by_repo: dict[str, list] = defaultdict(list)
    for inst in instances:
        by_repo[inst.repo].append(inst)
    stage1: list[ContaminationFlag] = []
    for repo, insts in sorted(by_repo.items()):
        try:
            path = find_repo(config.repos_dir, insts[0])
        except RepositoryError as exc:
            notes.append(f"{benchmark}: Stage I skipped for {repo}: {exc}")
            continue
        result = repo_presence(model, path, language=insts[0].language, cutoff=config.cutoff,
                               n_queries=config.n_queries, n_samples=config.n_samples,
                               reference=reference, seed=config.seed, name=repo)
        stage1.extend(presence_flags(result, instances=[(benchmark, i.instance_id) for i in insts],
                                     model=model_name))
        t = result.test
        repos.append(RepoEvidence(benchmark, repo, t.hits, t.queries, result.failed_queries, t.p0, t.p_value,
                                  t.contaminated))
    from ..models import DryRunModel

    if isinstance(model, DryRunModel):   # the model is not asked: Stage II asks no model either
        notes.append(f"{benchmark}: dry run: Stage II (patch presence) would judge {len(instances)} "
                     f"instances in {len(by_repo)} repositories at {config.cutoff}; not run")
        return stage1, []
    stage2 = list(run_stage2(instances, config.repos_dir, {model_name: parse_cutoff(config.cutoff)},
                             desc="patch presence", reuse_counts=False).flags)
    return stage1, stage2


def run_check(model: TextModel, config: CheckConfig, *, model_name: str | None = None,
              reference: LogprobModel | None = None,
              on_stage: Callable[[str], None] | None = None) -> CheckResult:
    """Run every applicable detector for ``model`` on ``config.benchmarks``.

    Stages that cannot run (no ``repos_dir`` for a bug-fixing benchmark, a repository missing from
    it) are skipped with a note in the result — never silently.
    """
    from ..tsguessing import load_items, ts_guess

    name = model_name or model.spec
    say = on_stage or (lambda _msg: None)
    stage_flags: dict[str, list[ContaminationFlag]] = defaultdict(list)
    notes: list[str] = []
    repos: list[RepoEvidence] = []
    ts_summaries: dict[str, dict[str, Any]] = {}
    questions: dict[tuple[str, str], str] = {}
    sampled: dict[str, int] = {}
    checked: dict[str, list[Any]] = {}   # benchmark -> its checked items / instances
    for benchmark in config.benchmarks:
        if benchmark in BUG_BENCHMARKS:
            say(f"{benchmark}: " + ("Stage I (repository presence) and Stage II (patch presence)"
                                    if config.repos_dir is not None else
                                    "Stage I and II skipped (no --repos-dir)"))
            checked[benchmark] = _load_bug_instances(benchmark, config)
            s1, s2 = _bug_benchmark(benchmark, checked[benchmark], model, name, config, reference,
                                    notes, repos)
            stage_flags["stage1"].extend(s1)
            stage_flags["stage2"].extend(s2)
            continue
        try:
            items = load_items(benchmark, config.data.get(benchmark))
        except HubUnavailableError as exc:
            raise exc.naming(f"--data {benchmark}=PATH") from exc
        # one sample per benchmark, the same items in every mode: one verdict per item; a limited
        # sample is drawn from the items some mode can probe (an item every mode's filters drop
        # would take a place in the sample and give no verdict)
        pool = items
        if config.limit_of(benchmark) is not None and config.ts_modes:
            pool = probeable(items, config.ts_modes, seed=config.seed)
            if len(pool) < len(items):
                notes.append(f"{benchmark}: the --limit sample is drawn from the {len(pool)} of "
                             f"{len(items)} items TS-Guessing can probe in some mode "
                             f"({', '.join(config.ts_modes)}); the filters drop the others")
        sample = stratified_sample(pool, config.limit_of(benchmark), _stratum, seed=config.seed)
        sampled[benchmark] = len(sample)
        checked[benchmark] = sample
        questions.update({(i.benchmark, i.instance_id): i.question for i in sample})
        for mode in config.ts_modes:
            say(f"{benchmark}: TS-Guessing ({mode}) on {len(sample)} of {len(items)} items")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                result = ts_guess(model, sample, mode, seed=config.seed, model_name=name,
                                  batch_size=config.batch_size)
                ts_summaries[f"{benchmark}/{mode}"] = {"sampled": len(sample), **result.summary()}
            stage_flags[f"ts_guessing_{mode}"].extend(result.flags)
    audit = _overlap(checked, config, name, say, notes) if config.corpora else None
    if audit is not None:
        stage_flags[OVERLAP_STAGE] = list(audit.flags)
    all_flags = [f for flags in stage_flags.values() for f in flags]
    # BenchChecker's definition for bug-fixing benchmarks: contaminated when the repository was
    # seen (Stage I) AND the patch was present (Stage II); one method alone never decides it.
    # TS-Guessing benchmarks have one method per mode: any.
    # (corpus overlap is reported on its own for them: BenchChecker's rule reads Stage I and II)
    bug = [f for f in all_flags if f.benchmark in BUG_BENCHMARKS and f.method != OVERLAP_METHOD]
    other = [f for f in all_flags if f.benchmark not in BUG_BENCHMARKS]
    merged_bug = _stage1_inconclusive(merge_flags(bug, MergePolicy.BENCHCHECKER) if bug else [],
                                      stage_flags.get("stage2", []))
    merged = merged_bug + (merge_flags(other) if other else [])
    for r in repos:
        if not r.contaminated and r.hits == 0:
            notes.append(f"{r.benchmark}: Stage I found 0 hits in {r.queries} queries for {r.repo}: "
                         f"{exact_rate(0, r.queries).sentence('hits')}, not evidence of absence "
                         f"(ruling out a 5% hit rate needs {queries_to_rule_out(0.05)} queries); "
                         "its instances Stage II calls present are undecided, not clean")
    return CheckResult(name, config, dict(stage_flags), merged, repos, notes, ts_summaries,
                       questions, sampled, audit)


#: the stage name (``flags/overlap.jsonl``) and method of the corpus overlap flags
OVERLAP_STAGE = "overlap"
OVERLAP_METHOD = "benchchecker.overlap"   # = overlap.METHOD (importing overlap loads numba)


def _overlap(checked: Mapping[str, list[Any]], config: CheckConfig, model_name: str,
             say: Callable[[str], None], notes: list[str]) -> OverlapAudit:
    """The checked items and instances looked for in ``config.corpora`` (scan engine, default
    rule, one flag per item under ``model_name``); failed shards become notes."""
    from ..overlap import bug_queries, mc_queries, overlap_settings, run_overlap

    queries = [q for b, got in checked.items()
               for q in (bug_queries(got) if b in BUG_BENCHMARKS else mc_queries(got))]
    say(f"corpus overlap: {len(queries)} items of {', '.join(checked)} in "
        f"{', '.join(config.corpora)}")
    corpus, run = overlap_settings(config.corpora, config.corpus_options, model=model_name)
    audit = run_overlap(queries, corpus, run)
    if audit.failed:
        first = next(iter(audit.failed.values()))
        notes.append(f"corpus overlap: {len(audit.failed)} of {audit.shards} corpus shard(s) "
                     f"failed (first: {first}); items not found elsewhere are undecided, not clean")
    for b in checked:
        if b in BUG_BENCHMARKS:
            notes.append(f"{b}: corpus overlap flags are reported on their own "
                         f"(flags/{OVERLAP_STAGE}.jsonl); the merged verdict is BenchChecker's "
                         "rule on Stage I and Stage II")
    return audit


def probeable(items: Sequence[Any], modes: Sequence[str], *, seed: int = 0) -> list[Any]:
    """The ``items`` at least one TS-Guessing mode of ``modes`` makes a probe of (its filters keep
    it), in their order: the probes are drawn per item (seeded by its content), so an item probed
    here is probed the same way in any sample."""
    from ..tsguessing import prepare_probes

    keep = {p.instance_id for mode in modes for p in prepare_probes(items, mode, seed=seed).probes}
    return [i for i in items if i.instance_id in keep]


def _stratum(item: Any) -> str:
    """MMLU subject, TruthfulQA category (else the benchmark: one stratum)."""
    meta = getattr(item, "metadata", {}) or {}
    return str(meta.get("subject") or meta.get("category") or item.benchmark)


#: the merged verdict's note when Stage II's "present" meets a Stage I that could not decide
STAGE1_INCONCLUSIVE = "present in repository snapshot, Stage I inconclusive"


def _stage1_inconclusive(merged: list[ContaminationFlag],
                         stage2: Sequence[ContaminationFlag]) -> list[ContaminationFlag]:
    """Stage I's "not detected" does not clear Stage II's positives: a merged *clean* whose patch
    Stage II calls present becomes undecided with :data:`STAGE1_INCONCLUSIVE` in its evidence.

    Stage I with a few queries has little power (0 of 10 hits rules out only rates above 26%),
    so its absence of hits is shown, never used as evidence of absence.
    """
    present = {(f.benchmark, f.instance_id) for f in stage2 if f.contaminated}
    out = []
    for f in merged:
        if f.contaminated is False and (f.benchmark, f.instance_id) in present:
            f = replace(f, contaminated=None,
                        evidence={**f.evidence, "note": STAGE1_INCONCLUSIVE})
        out.append(f)
    return out


def parse_data_options(values: Sequence[str], benchmarks: Sequence[str]) -> dict[str, str]:
    """``--data mmlu=PATH`` options → ``{"mmlu": "PATH"}`` (:mod:`benchchecker_plugin.local_data`:
    ``--data PATH`` alone where ``benchmarks`` is one benchmark)."""
    from ..local_data import local_data

    return local_data(values, benchmarks, "--data {}", must_exist=True)
