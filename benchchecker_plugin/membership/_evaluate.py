"""The controlled membership evaluation (the paper's Table 2 in miniature).

Members and non-members are installed packages' source trees (:mod:`._corpus`); a GPT-2 is trained
from scratch on the members (:mod:`._train`; its tokenizer is fitted to members and non-members
alike, so only the model's weights carry membership); Stage I and the four logit baselines score every
repository under two memorisation strengths — *strong* (the final model) and *weak* (an early
checkpoint) — and the scorer turns scores into AUC, TPR, FPR and TPR at 5% FPR.

Stage I is scored twice from the same samples: the paper's exact-hit test (``stage1``) and the
graded score for partial memorisation (``stage1_graded``, :mod:`benchchecker_plugin.stage1`'s
graded module): each sample's edit similarity to its file's continuation minus its similarity to
non-member continuations; each non-member is judged against the *other* non-members (its null
references and its null distribution), so none is its own reference.

Stage I's TPR/FPR come from its own decisions (binomial test at ``alpha``; the graded score's
t prediction from the non-members' scores at ``alpha``); the baselines have no
threshold of their own, so theirs use the in-sample threshold that keeps FPR <= 5% (the
highest-scoring 5% of non-members), which flatters them. AUC is threshold-free for all.

Speed: the whole run uses ``threads`` torch threads (default 1). On a shared 2-core machine (load
average ~7) two threads made probing 14-30x and token scoring 3-9x slower than one (threads
waiting for a core held by another process); ``timings`` in ``membership.json`` gives the seconds
of every phase.
Queries are mined once per repository and reused by both regimes.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic import write_text_atomic
from ..baselines import METHODS, baseline_flags, repo_logit_scores
from ..errors import InputError
from ..flags import ContaminationFlag, write_flags
from ..models import LogprobModel, TextModel, torch_threads
from ..progress import one_bar
from ..scoring import rates_at_threshold, roc_auc_score, tpr_at_fpr
from ..stage1 import (
    GradedNull,
    GradedResult,
    MiningConfig,
    PresenceResult,
    Query,
    build_queries,
    continuations,
    graded_flags,
    graded_queries,
    graded_result,
    presence_flags,
    repo_presence,
)
from ._corpus import Repo, build_corpus
from ._train import TrainConfig, train_gpt2

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EvalConfig:
    """Sizes of one evaluation run."""

    n_repos: int = 6            # per set (members, non-members)
    repo_bytes: int = 6000
    n_queries: int = 30         # Stage I queries per repository (at most)
    n_samples: int = 3
    # 600 steps with the rate decayed after the weak checkpoint memorise as much as the 800
    # constant-rate steps used before (training loss 0.13 vs 0.17; Stage I member hit rate 0.82
    # vs 0.80, measured here) in 3/4 of the time; the weak checkpoint (step 100) is unchanged.
    train: TrainConfig = TrainConfig(vocab_size=1024, n_layer=2, n_embd=128, n_head=4, n_ctx=128,
                                     batch_size=16, steps=600, weak_step=100, lr=5e-3,
                                     decay_to=0.05)
    seed: int = 0
    threads: int = 1            # torch threads for the whole run (see the module docstring)

    def __post_init__(self) -> None:
        if self.threads < 1:
            raise InputError(f"EvalConfig.threads must be >= 1, got {self.threads}")

    def seeded(self, seed: int) -> EvalConfig:
        """This configuration with ``seed`` for the corpus, the sampling and the training alike."""
        return replace(self, seed=seed, train=replace(self.train, seed=seed))


MEMBERSHIP_QUICK = EvalConfig(n_repos=5, repo_bytes=4000, n_queries=20, n_samples=1,
                              train=TrainConfig(vocab_size=1024, n_layer=2, n_embd=128, n_head=4, n_ctx=128,
                                                batch_size=8, steps=400, weak_step=80, lr=5e-3))
MEMBERSHIP_FULL = EvalConfig()


def method_metrics(labels: Sequence[int], scores: Sequence[float],
                   decisions: Sequence[bool] | None = None, *, fpr: float = 0.05) -> dict[str, Any]:
    """AUC, TPR@``fpr`` and the TPR/FPR of ``decisions`` (or of the in-sample threshold that keeps
    FPR <= ``fpr`` when no decisions are given). Repositories with a ``nan`` score are dropped."""
    y = np.asarray(labels, dtype=int)
    s = np.asarray(scores, dtype=float)
    ok = np.isfinite(s)
    y, s = y[ok], s[ok]
    out: dict[str, Any] = {"n": int(ok.sum()), "dropped_nan": int((~ok).sum())}
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        out["auc"] = roc_auc_score(y, s)
        out["tpr_at_5fpr"] = tpr_at_fpr(y, s, fpr)
        if decisions is not None:
            d = np.asarray(decisions, dtype=bool)[ok]
            rates = rates_at_threshold(y, flags=d.astype(int))
            out["threshold"] = "binomial test at alpha"
        else:
            neg = np.sort(s[y == 0])
            k = int(math.floor(fpr * neg.size))  # non-members allowed above the threshold
            thr = np.nextafter(neg[neg.size - 1 - k], np.inf) if neg.size else math.inf
            rates = rates_at_threshold(y, s, threshold=float(thr))
            out["threshold"] = float(thr)
    out["tpr"], out["fpr"] = rates.tpr, rates.fpr
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in out.items()}


def score_repos(model: TextModel, members: Sequence[Repo], nonmembers: Sequence[Repo], *,
                queries: dict[str, list[Query]], n_samples: int, regime: str,
                alpha: float = 0.05, p0: float | None = None, seed: int = 0,
                baselines: bool = True) -> tuple[dict[str, Any], list[ContaminationFlag]]:
    """Stage I (+ the baselines when ``baselines`` and ``model`` scores tokens) on every
    repository; metrics, flags, and the seconds spent probing (Stage I: sampling and the binomial
    test), grading those samples (:func:`graded_stage1`, method ``stage1_graded``), in the
    baselines' forward passes, and computing the metrics (``timing``)."""
    repos = list(members) + list(nonmembers)
    labels = [1] * len(members) + [0] * len(nonmembers)
    flags: list[ContaminationFlag] = []
    stage1 = []
    t0 = time.perf_counter()
    with one_bar(desc=f"Stage I probing, {regime} model", total=len(repos)) as bar:
        bar.weight = 0            # the probing loops inside draw nothing; one tick per repository
        for r in repos:
            res = repo_presence(model, r.files, queries=queries[r.name], n_samples=n_samples,
                                alpha=alpha, p0=p0, seed=seed, name=r.name)
            stage1.append(res)
            flags.extend(presence_flags(res))
            bar.advance(1)
    timing = {"stage1_seconds": _secs(t0)}
    t0 = time.perf_counter()
    methods = {"stage1": method_metrics(labels, [r.score for r in stage1],
                                        [bool(r.test.contaminated) for r in stage1])}
    methods["stage1"]["hit_rate_members"] = _mean([r.test.hit_rate for r in stage1[:len(members)]])
    methods["stage1"]["hit_rate_nonmembers"] = _mean([r.test.hit_rate for r in stage1[len(members):]])
    methods["stage1"]["queries_per_repo"] = _mean([r.test.queries for r in stage1])
    t_metrics = time.perf_counter() - t0
    t0 = time.perf_counter()
    graded = graded_stage1(stage1, members, nonmembers, alpha=alpha, seed=seed)
    methods["stage1_graded"] = method_metrics(labels, [g.score for g in graded],
                                              [bool(g.contaminated) for g in graded])
    methods["stage1_graded"].update(
        similarity_members=_mean([g.similarity for g in graded[:len(members)]]),
        similarity_nonmembers=_mean([g.similarity for g in graded[len(members):]]),
        null_similarity=_mean([g.null_similarity for g in graded]),
        threshold="t prediction from the other non-members' graded scores at alpha")
    for g in graded:
        flags.extend(graded_flags(g, model=model.spec))
    timing["stage1_graded_seconds"] = _secs(t0)
    if baselines and isinstance(model, LogprobModel):
        t0 = time.perf_counter()
        logit = repo_logit_scores(model, {r.name: [f.text for f in r.files] for r in repos})
        timing["baselines_seconds"] = _secs(t0)
        t0 = time.perf_counter()
        for m in METHODS:
            methods[m] = method_metrics(labels, [x.scores[m] for x in logit])
        flags.extend(baseline_flags(logit, model=model.spec))
        t_metrics += time.perf_counter() - t0
    timing["scoring_seconds"] = round(t_metrics, 2)
    return {"regime": regime, "model": model.spec, "methods": methods, "timing": timing}, flags


def graded_stage1(results: Sequence[PresenceResult], members: Sequence[Repo],
                  nonmembers: Sequence[Repo], *, alpha: float = 0.05, seed: int = 0,
                  n_null: int = 30) -> list[GradedResult]:
    """The graded Stage I score of every repository (members, then non-members, as ``results``)
    from the samples its exact test drew: each query against its file's continuation and against
    ``n_null`` non-member continuations, the decision against the non-members' graded scores. A
    non-member is never its own reference: its null references and its null distribution come
    from the *other* non-members (leave one out), as a repository known to be excluded would be
    judged against others like it."""
    repos = list(members) + list(nonmembers)
    refs = {}
    for r, res in zip(repos, results):
        refs[r.name] = continuations({f.path: f.text for f in r.files}, [p.query for p in res.probes])
    outside = [r.name for r in nonmembers]   # in order: the null's sums do not depend on hashing
    evidence = {}
    for r, res in zip(repos, results):
        null_refs = [c for other in nonmembers if other.name != r.name for c in refs[other.name]]
        weights = [p.query.entropy or 0.0 for p in res.probes] \
            if all(p.query.entropy is not None for p in res.probes) and res.probes else None
        evidence[r.name] = graded_queries(list(res.probes), refs[r.name], null_refs,
                                          n_null=n_null, seed=seed, weights=weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # a repository without queries: nan
        return [graded_result(r.name, evidence[r.name],
                              GradedNull.of([evidence[n] for n in outside if n != r.name]),
                              alpha=alpha) for r in repos]


def _secs(t0: float) -> float:
    return round(time.perf_counter() - t0, 2)


def _mean(values: Sequence[float]) -> float | None:
    v = [x for x in values if x is not None and not math.isnan(x)]
    return float(np.mean(v)) if v else None


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # not available on this platform
        return None


def run_membership(out_dir: str | os.PathLike[str], *, config: EvalConfig = MEMBERSHIP_FULL,
                   alpha: float = 0.05) -> dict[str, Any]:
    """Build the corpus, train, score both regimes; write ``membership.json`` and
    ``membership_flags.jsonl`` into ``out_dir``; return the JSON document.

    ``timings`` in the document gives the seconds of every phase (corpus, tokenizer, training,
    query mining per repository, then probing / baselines / scoring per regime) and the load
    average at the start and the end (other processes on the machine slow every phase)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    timings: dict[str, Any] = {"threads": config.threads, "load_average_start": _load()}
    with torch_threads(config.threads):
        t0 = time.perf_counter()
        corpus = build_corpus(config.n_repos, config.repo_bytes, seed=config.seed)
        timings["corpus"] = _secs(t0)
        texts = [f.text for r in corpus.members for f in r.files]
        _log.info("corpus: %d+%d repositories of %d chars", len(corpus.members),
                  len(corpus.nonmembers), config.repo_bytes)
        everyone = texts + [f.text for r in corpus.nonmembers for f in r.files]
        t0 = time.perf_counter()
        trained = train_gpt2(texts, config.train, tokenizer_texts=everyone)
        rec = trained.record
        timings.update(tokenizer=rec["tokenizer_seconds"], tokenize=rec["tokenize_seconds"],
                       training=rec["train_seconds"], train_total=_secs(t0))
        _log.info("trained: %s", rec)
        queries: dict[str, list[Query]] = {}
        per_repo: dict[str, float] = {}
        t0 = time.perf_counter()
        for r in corpus.members + corpus.nonmembers:
            t1 = time.perf_counter()
            queries[r.name] = build_queries(list(r.files), n_queries=config.n_queries,
                                            seed=config.seed, mining=MiningConfig.small())
            per_repo[r.name] = _secs(t1)
        timings["mining"] = _secs(t0)
        timings["mining_per_repo"] = per_repo
        _log.info("queries per repository: %s", {k: len(v) for k, v in queries.items()})
        runs, flags = [], []
        for regime, model in (("strong", trained.strong), ("weak", trained.weak)):
            run, fl = score_repos(model, corpus.members, corpus.nonmembers, queries=queries,
                                  n_samples=config.n_samples, regime=regime, alpha=alpha,
                                  seed=config.seed)
            runs.append(run)
            flags.extend(fl)
            timings.update({f"{k.removesuffix('_seconds')}_{regime}": v for k, v in run["timing"].items()})
            _log.info("%s: %s", regime, json.dumps(run))
    doc = {
        "runs": runs,
        "setup": {
            "members": [r.name for r in corpus.members],
            "nonmembers": [r.name for r in corpus.nonmembers],
            "repo_chars": config.repo_bytes, "n_queries": config.n_queries,
            "n_samples": config.n_samples, "alpha": alpha, "p0": 0.08, "seed": config.seed,
            "config": asdict(config),
            "training": trained.record,
            "queries_per_repo": {k: len(v) for k, v in queries.items()},
        },
        "timings": timings,
        "total_seconds": 0.0,
    }
    t0 = time.perf_counter()
    write_flags(out / "membership_flags.jsonl", flags)
    timings["write"] = _secs(t0)
    timings["load_average_end"] = _load()
    doc["total_seconds"] = timings["total"] = round(time.perf_counter() - t_start, 1)
    write_text_atomic(out / "membership.json", json.dumps(doc, indent=2) + "\n")
    return doc
