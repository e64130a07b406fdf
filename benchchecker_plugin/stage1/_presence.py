"""Stage I end to end: mine a repository, build queries, probe a model, test, and write flags."""

from __future__ import annotations

import math
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InputError
from ..execution import Executor
from ..flags import STAGE1_METHOD, ContaminationFlag
from ..models import LogprobModel, TextModel
from ._entropy import score_entropy
from ._probe import ProbeResult, probe
from ._queries import Query, instantiate_queries, select_queries
from ._sources import SourceFile, read_sources
from ._test import DEFAULT_P0, TestResult, presence_test
from .mining import extract_template, find_clones, find_cooccurrences, find_near_duplicates

_MAX_SCORE = 300.0  # -log10 of the smallest double is ~308; keep flags finite


@dataclass(frozen=True)
class MiningConfig:
    """Thresholds of the three miners. The defaults suit whole repositories; :meth:`small` relaxes
    them for repositories of a few kilobytes (fewer, shorter recurring patterns)."""

    clone_min_tokens: int = 25
    window: int = 4
    max_distance: int = 3
    min_support: int = 3
    min_length: int = 3

    @classmethod
    def small(cls) -> MiningConfig:
        return cls(clone_min_tokens=12, window=3, max_distance=6, min_support=2, min_length=2)


def mine_repository(root: str | os.PathLike[str], *, language: str = "python", n_queries: int = 100,
                    seed: int = 0, cutoff: str | None = None) -> tuple[list[SourceFile], list[Query]]:
    """The source files of the repository at ``root`` and the queries mined from them (no
    reference model): the per-repository work an executor can run anywhere (a Ray worker needs
    the repository at the same path). No source file: ``([], [])``."""
    files = read_sources(root, language=language, cutoff=cutoff)
    return files, (build_queries(files, language=language, n_queries=n_queries, seed=seed) if files else [])


def build_queries(files: Sequence[SourceFile], *, language: str = "python", n_queries: int = 100,
                  reference: LogprobModel | None = None, min_entropy: float = 0.0,
                  query_chars: int = 512, seed: int = 0, max_clusters: int = 400,
                  mining: MiningConfig = MiningConfig()) -> list[Query]:
    """Mine ``files`` and return at most ``n_queries`` filtered queries.

    All three miners run; each cluster becomes a template (at most ``max_clusters`` per miner, a
    seeded sample). Filtered queries are shuffled with ``seed``; with a ``reference`` model, each
    gets its entropy, those below ``min_entropy`` are dropped and the highest-entropy
    ``n_queries`` are kept (at most ``4 * n_queries`` candidates are scored).
    """
    if n_queries < 1:
        raise InputError(f"n_queries must be >= 1, got {n_queries}")
    rng = random.Random(seed)
    clusters = []
    m = mining
    for found in (find_clones(files, language=language, min_tokens=m.clone_min_tokens),
                  find_near_duplicates(files, window=m.window, max_distance=m.max_distance,
                                       min_tokens=12 if m.window >= 4 else 8),
                  find_cooccurrences(files, min_support=m.min_support, min_length=m.min_length)):
        if len(found) > max_clusters:
            found = rng.sample(found, max_clusters)
        clusters.extend(found)
    templates = [extract_template(c) for c in clusters]
    queries = select_queries(instantiate_queries(files, templates, query_chars=query_chars),
                             language=language)
    queries.sort(key=lambda q: (q.path, q.offset, q.target))
    rng.shuffle(queries)
    if reference is None:
        return queries[:n_queries]
    scored = score_entropy(reference, queries[:4 * n_queries])
    kept = [q for q in scored if q.entropy is not None and not math.isnan(q.entropy)
            and q.entropy >= min_entropy]
    kept.sort(key=lambda q: -(q.entropy or 0.0))
    return kept[:n_queries]


@dataclass(frozen=True)
class PresenceResult:
    """Stage I on one repository: the queries, each probe, and the test."""

    repo: str
    model: str
    language: str
    probes: tuple[ProbeResult, ...]
    test: TestResult

    @property
    def failed_queries(self) -> int:
        return sum(1 for p in self.probes if p.failed)

    @property
    def score(self) -> float:
        """``-log10(p_value)`` of the binomial test (capped at 300; 0 when undecided)."""
        p = self.test.p_value
        if math.isnan(p):
            return 0.0
        return _MAX_SCORE if p <= 0 else min(_MAX_SCORE, -math.log10(p))


def repo_presence(model: TextModel, repo: str | os.PathLike[str] | Sequence[SourceFile], *,
                  language: str = "python", cutoff: str | None = None, n_queries: int = 100,
                  reference: LogprobModel | None = None, min_entropy: float = 0.0,
                  n_samples: int = 5, temperature: float = 1.0, max_tokens: int = 16,
                  batch_size: int = 32, p0: float | None = None, alpha: float = 0.05,
                  seed: int = 0, executor: Executor | None = None,
                  queries: Sequence[Query] | None = None, name: str | None = None) -> PresenceResult:
    """Was ``model`` trained on ``repo`` (a folder, or already-read files)?

    Builds queries (unless given), probes the model, and runs the binomial test against ``p0``
    (default per language: :data:`~.test.DEFAULT_P0`). Queries whose samples all failed are
    excluded from the test and counted in ``failed_queries``. Entropy weights (from ``reference``)
    feed the weighted variant; without a reference all weights are equal.
    """
    if isinstance(repo, (str, os.PathLike)):
        files = read_sources(repo, language=language, cutoff=cutoff)
        repo_name = name or os.path.basename(os.path.abspath(repo))
    else:
        files = list(repo)
        repo_name = name or "repo"
    if queries is None:
        queries = build_queries(files, language=language, n_queries=n_queries,
                                reference=reference, min_entropy=min_entropy, seed=seed)
    results = probe(model, queries, n_samples=n_samples, temperature=temperature,
                    max_tokens=max_tokens, batch_size=batch_size, seed=seed, executor=executor)
    usable = [r for r in results if not r.failed]
    weights = None
    if reference is not None:
        weights = [r.query.entropy if r.query.entropy is not None else 0.0 for r in usable]
    test = presence_test([r.hit for r in usable], weights,
                         p0=DEFAULT_P0[language] if p0 is None else p0, alpha=alpha)
    return PresenceResult(repo_name, getattr(model, "spec", type(model).__name__), language,
                          tuple(results), test)


def presence_flags(result: PresenceResult, *, instances: Sequence[tuple[str, str]] | None = None,
                   model: str | None = None) -> list[ContaminationFlag]:
    """Flags of one Stage I result: one per ``(benchmark, instance_id)`` of the repository, or one
    with benchmark ``repo`` and instance_id = the repository name when no instances are given.

    ``score`` is ``-log10(p)`` of the binomial test (higher = more likely trained on);
    ``p_value`` the binomial p-value; the hit rate and weighted p-value are in ``evidence``.
    """
    t = result.test
    evidence = {
        "repo": result.repo, "hits": t.hits, "queries": t.queries, "hit_rate": t.hit_rate
        if t.queries else None, "p0": t.p0, "alpha": t.alpha,
        "weighted_p_value": None if math.isnan(t.weighted_p_value) else t.weighted_p_value,
        "failed_queries": result.failed_queries, "language": result.language,
        "score_definition": "-log10(binomial p-value), capped at 300",
    }
    p = None if math.isnan(t.p_value) else t.p_value
    keys = list(instances) if instances else [("repo", result.repo)]
    return [ContaminationFlag(benchmark=b, instance_id=i, model=model or result.model, method=STAGE1_METHOD,
                              contaminated=t.contaminated, score=result.score, p_value=p,
                              evidence=evidence) for b, i in keys]
