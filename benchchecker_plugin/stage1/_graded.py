"""A graded Stage I score for partial memorisation, beside the paper's exact-hit test.

The exact test counts a query only when a sample reproduces its target exactly, so a model that has
half-memorised a repository (it writes code close to the file's, not the file's) scores like one
that never saw it. The graded score asks how close each sample comes:

1. **Similarity**: each sample (leading whitespace removed) is compared with the *reference
   continuation*, the file's text from the end of the query on, cut to the sample's length:
   ``difflib.SequenceMatcher(...).ratio()`` (edit similarity, 0..1; an empty sample is 0).
   The longest common token prefix was measured too and left out: at a weak memorisation level
   it separated members no better than chance (a partly trained model seldom starts with the
   exact next tokens, yet writes the file's names and shapes).
2. **Per-completion null**: the same sample is compared with ``n_null`` continuations of queries
   from repositories known *not* to be in the training data (the non-member references); their
   mean is what that sample matches anyway (indentation, common idioms, its own length). The
   query's graded score is its samples' mean of (own similarity - null similarity).
3. **Per repository**: the mean of the query scores, weighted by each query's entropy when a
   reference model gave one (as the weighted exact test is; otherwise equal weights).
4. **Calibrated decision**: the scores of repositories known to be excluded are the null (one
   number per repository, so correlated queries inside a repository do not pass for independent
   evidence). A repository is judged as one more excluded repository with its number of queries
   would be, Student's t with ``k - 1`` degrees of freedom: its distance from the excluded mean
   over the spread of the excluded repositories' true scores, the uncertainty of their mean and
   the sampling noise of a mean of that many excluded queries (so a repository with few queries
   needs a larger score). Fewer than 3 excluded repositories give ``nan`` (undecided).
"""

from __future__ import annotations

import difflib
import math
import random
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..errors import InputError
from ..flags import ContaminationFlag
from ._probe import ProbeResult
from ._queries import Query

#: characters of reference continuation kept per query (a 16-token sample is shorter)
CONTINUATION_CHARS = 200


def continuation(text: str, query: Query, chars: int = CONTINUATION_CHARS) -> str:
    """The reference continuation of ``query`` in its file's ``text``: the whitespace between
    query and target, then ``chars`` characters from the target on."""
    return text[query.offset - len(query.gap): query.offset + chars]


def continuations(files: Mapping[str, str], queries: Sequence[Query],
                  chars: int = CONTINUATION_CHARS) -> list[str]:
    """:func:`continuation` of every query (``files``: path -> text, the repository's files)."""
    missing = sorted({q.path for q in queries} - set(files))
    if missing:
        raise InputError(f"queries name files that were not given: {', '.join(missing[:3])}")
    return [continuation(files[q.path], q, chars) for q in queries]


def edit_similarity(sample: str, reference: str) -> float:
    """Edit similarity (``difflib`` ratio) of ``sample`` without its leading whitespace and
    ``reference``'s beginning of the same length; 0.0 for an empty sample."""
    s = sample.lstrip()
    if not s:
        return 0.0
    r = reference.lstrip()[:len(s)]
    return difflib.SequenceMatcher(None, s, r, autojunk=False).ratio()


@dataclass(frozen=True)
class GradedQuery:
    """One query's graded evidence: its samples' mean similarity to its own continuation, to the
    non-member references, and the difference (the query's score)."""

    similarity: float
    null_similarity: float
    weight: float = 1.0

    @property
    def score(self) -> float:
        return self.similarity - self.null_similarity


def graded_queries(results: Sequence[ProbeResult], references: Sequence[str],
                   null_references: Sequence[str], *, n_null: int = 10, seed: int = 0,
                   weights: Sequence[float] | None = None) -> list[GradedQuery]:
    """The graded evidence of every probed query that has samples (failed queries are left out,
    as the exact test leaves them out). ``references[i]`` is ``results[i]``'s continuation;
    ``null_references``: continuations from repositories known not to be in the training data
    (``n_null`` of them, drawn with ``seed``, per query)."""
    if len(references) != len(results):
        raise InputError(f"{len(results)} probe results but {len(references)} references")
    if weights is not None and len(weights) != len(results):
        raise InputError(f"{len(results)} probe results but {len(weights)} weights")
    if not null_references:
        raise InputError("the graded score needs non-member references (null_references is empty)")
    rng = random.Random(seed)
    out = []
    for i, (res, ref) in enumerate(zip(results, references)):
        if res.failed:
            continue
        null = rng.sample(list(null_references), min(n_null, len(null_references)))
        own = float(np.mean([edit_similarity(s, ref) for s in res.samples]))
        base = float(np.mean([edit_similarity(s, r) for s in res.samples for r in null]))
        out.append(GradedQuery(own, base, 1.0 if weights is None else float(weights[i])))
    return out


def graded_score(queries: Sequence[GradedQuery]) -> float:
    """The repository's graded score: the weighted mean of its query scores; ``nan`` (with a
    warning) when there is no query or all weights are 0."""
    w = np.array([q.weight for q in queries], dtype=float)
    if not queries or not np.isfinite(w).all() or (w < 0).any() or w.sum() == 0:
        warnings.warn("graded Stage I score of a repository without usable queries: nan",
                      RuntimeWarning, stacklevel=2)
        return math.nan
    return float(np.average([q.score for q in queries], weights=w))


def effective_queries(queries: Sequence[GradedQuery]) -> float:
    """Kish's effective number of queries, ``(sum w)**2 / sum w**2`` (their count when the
    weights are equal); 0 when there is none."""
    w = np.array([q.weight for q in queries], dtype=float)
    return float(w.sum() ** 2 / (w ** 2).sum()) if w.size and (w ** 2).sum() > 0 else 0.0


@dataclass(frozen=True)
class GradedNull:
    """What excluded repositories score: each one's graded score and effective number of
    queries, and the variance of one query's score inside an excluded repository (pooled)."""

    scores: tuple[float, ...]
    queries: tuple[float, ...]
    query_var: float

    @classmethod
    def of(cls, repos: Sequence[Sequence[GradedQuery]]) -> GradedNull:
        """The null of these excluded repositories' graded queries (those without a query are
        left out)."""
        used = [list(qs) for qs in repos if qs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            scores = tuple(graded_score(qs) for qs in used)
        dev = sum(float(np.sum((np.array([q.score for q in qs]) - np.mean([q.score for q in qs])) ** 2))
                  for qs in used)
        dof = sum(len(qs) - 1 for qs in used)
        return cls(scores, tuple(effective_queries(qs) for qs in used),
                   dev / dof if dof > 0 else math.nan)

    def p_value(self, score: float, queries: float) -> float:
        """One-sided p-value of a repository whose ``queries`` (effective) queries score
        ``score``, judged as one more excluded repository: Student's t with ``k - 1`` degrees of
        freedom on ``(score - mean) / sqrt(tau2 + var / k + query_var / queries)``, where ``var`` is
        the variance of the ``k`` excluded scores and ``tau2`` the part of it that is not their own
        sampling noise (at least 0). ``nan`` with fewer than 3 excluded repositories, no query or
        a ``nan`` score."""
        x = np.array([v for v in self.scores if math.isfinite(v)])
        if x.size < 3 or not math.isfinite(score) or queries <= 0 or not math.isfinite(self.query_var):
            return math.nan
        var = float(x.var(ddof=1))
        noise = float(np.mean([self.query_var / n for n in self.queries if n > 0]))
        scale = math.sqrt(max(0.0, var - noise) + var / x.size + self.query_var / queries)
        if scale == 0:
            return 0.0 if score > x.mean() else 1.0
        return float(stats.t.sf((score - float(x.mean())) / scale, df=x.size - 1))


@dataclass(frozen=True)
class GradedResult:
    """The graded score of one repository and its decision against the calibrated null."""

    repo: str
    score: float
    similarity: float
    null_similarity: float
    queries: int
    p_value: float
    alpha: float

    @property
    def contaminated(self) -> bool | None:
        """``True`` when ``p_value < alpha``; ``None`` when undecided (no null, no query)."""
        return None if math.isnan(self.p_value) else self.p_value < self.alpha


def graded_result(repo: str, queries: Sequence[GradedQuery], null: GradedNull | None, *,
                  alpha: float = 0.05) -> GradedResult:
    """:func:`graded_score` of ``queries`` with its p-value against ``null`` (``None``: undecided)."""
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must be in (0, 1), got {alpha}")
    score = graded_score(queries)
    p = math.nan if null is None else null.p_value(score, effective_queries(queries))
    mean = (lambda xs: float(np.mean(xs)) if xs else math.nan)
    return GradedResult(repo, score, mean([q.similarity for q in queries]),
                        mean([q.null_similarity for q in queries]), len(queries), p, alpha)


GRADED_METHOD = "benchchecker.stage1_graded"


def graded_flags(result: GradedResult, *, model: str) -> list[ContaminationFlag]:
    """One flag (benchmark ``repo``, instance = the repository) of a graded result: ``score`` =
    the graded score, ``p_value`` against the calibrated null, similarities in ``evidence``."""
    rounded = (lambda x: None if math.isnan(x) else round(x, 6))
    evidence = {"repo": result.repo, "queries": result.queries, "alpha": result.alpha,
                "similarity": rounded(result.similarity),
                "null_similarity": rounded(result.null_similarity),
                "score_definition": "mean over queries of (edit similarity of the samples to the "
                                    "file's continuation - to non-member continuations)"}
    score = 0.0 if math.isnan(result.score) else result.score
    return [ContaminationFlag(benchmark="repo", instance_id=result.repo, model=model,
                              method=GRADED_METHOD, contaminated=result.contaminated, score=score,
                              p_value=None if math.isnan(result.p_value) else result.p_value,
                              evidence=evidence)]
