"""Logit baselines over files and repositories, batched, one forward pass per text."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..execution import Executor, LocalExecutor
from ..flags import ContaminationFlag
from ..models import LogprobModel
from ._scores import METHODS, LogitScores, logit_scores_of


def logit_scores(model: LogprobModel, texts: Sequence[str], *, k: float = 0.2,
                 batch_size: int = 8, executor: Executor | None = None) -> list[LogitScores]:
    """The four scores of every text; ``model.token_scores`` is called once per batch. A failed
    batch gives ``nan`` scores for its texts (with a warning), never a value."""
    batches = [list(range(i, min(len(texts), i + batch_size))) for i in range(0, len(texts), batch_size)]

    def run(idx: list[int]) -> list[LogitScores]:
        chunk = [texts[i] for i in idx]
        return [logit_scores_of(ts, t, k=k) for ts, t in zip(model.token_scores(chunk), chunk)]

    ex = executor or LocalExecutor()
    out: list[LogitScores] = []
    for idx, res in zip(batches, ex.map(run, batches, desc=f"scoring {len(texts)} texts")):
        if res.ok and res.value is not None:
            out.extend(res.value)
        else:
            warnings.warn(f"token scoring failed for texts {idx[0]}..{idx[-1]}: {res.error}",
                          RuntimeWarning, stacklevel=2)
            out.extend(LogitScores(math.nan, math.nan, math.nan, math.nan, 0) for _ in idx)
    return out


@dataclass(frozen=True)
class RepoLogitScores:
    """Per-repository scores: the token-weighted mean of its files' scores (files with no scored
    token are left out; all-nan when none is left)."""

    repo: str
    files: int
    n_tokens: int
    scores: Mapping[str, float]


def repo_logit_scores(model: LogprobModel, repos: Mapping[str, Sequence[str]], *, k: float = 0.2,
                      batch_size: int = 8, executor: Executor | None = None,
                      max_chars: int | None = None) -> list[RepoLogitScores]:
    """Score every file text of every repository (one pass over all files), then aggregate.
    With ``max_chars`` each file is scored on its first ``max_chars`` characters (cut at a line
    end): the cost then follows the number of files, not the longest ones."""
    if max_chars is not None and max_chars < 1:
        raise InputError(f"max_chars must be >= 1, got {max_chars}")
    names = list(repos)
    texts = [head(t, max_chars) for n in names for t in repos[n]]
    per_file = logit_scores(model, texts, k=k, batch_size=batch_size, executor=executor)
    out, pos = [], 0
    for n in names:
        mine = per_file[pos:pos + len(repos[n])]
        pos += len(repos[n])
        w = np.array([s.n_tokens for s in mine], dtype=float)
        agg = {}
        for m in METHODS:
            v = np.array([s.get(m) for s in mine], dtype=float)
            ok = np.isfinite(v) & (w > 0)
            agg[m] = float(np.average(v[ok], weights=w[ok])) if ok.any() else math.nan
        out.append(RepoLogitScores(n, len(mine), int(w.sum()), agg))
    return out


def head(text: str, max_chars: int | None) -> str:
    """The first ``max_chars`` characters of ``text``, cut after its last whole line there (the
    whole text when it is short enough, or ``max_chars`` is ``None``)."""
    if max_chars is None or len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    return cut[: cut.rfind("\n") + 1] if "\n" in cut else cut


def baseline_flags(results: Sequence[RepoLogitScores], *, model: str) -> list[ContaminationFlag]:
    """One flag per repository and baseline (method ``benchchecker.baseline.<name>``, benchmark
    ``repo``). Logit scores have no threshold of their own: ``contaminated`` is ``None``, the score
    is the AUC-ready value; repositories with a ``nan`` score are left out."""
    flags = []
    for r in results:
        for m in METHODS:
            v = r.scores[m]
            if math.isfinite(v):
                flags.append(ContaminationFlag(
                    benchmark="repo", instance_id=r.repo, model=model,
                    method=f"benchchecker.baseline.{m}", contaminated=None, score=v,
                    evidence={"files": r.files, "n_tokens": r.n_tokens}))
    return flags
