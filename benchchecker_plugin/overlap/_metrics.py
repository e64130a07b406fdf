"""Overlap metrics: small registered definitions, each with its parameters.

``parts`` (the default rule) reads each item's best evidence of its parts (:class:`PartsEvidence`:
the question aligned in a document, its gold answer and options near it; :mod:`._verify`).
Every other metric but ``retrieval`` reads one item's windows of one size ``n`` (:class:`ItemWindows`):
the item's n-grams, or, for an item of fewer than ``n`` tokens, the whole item as one window (the
*whole-item rule*: a 13-gram rule could not see it at all otherwise). Each window carries the number
of corpus documents it was found in; a window of a benchmark template (an n-gram in many items of
the benchmark itself) is masked (``-1``) and counts neither as found nor as missing.

A window is *matched* when found in at least ``min_count`` documents and, where the metric has a
corpus-frequency cap ``max_docs``, in at most that many (GPT-3 ignored 13-grams common on the web).

============  =================================================================================
name          definition (score in [0, 1], higher = more of the item in the corpus)
============  =================================================================================
parts         benchchecker: contaminated when the item's question is found in one document at
              similarity >= 0.9 (matched tokens / max(question, aligned span)), or >= 0.75 with
              its gold answer or every option within 400 tokens (any layout, any order); the own
              question after a shared passage must be matched too; a question shared by several
              items needs its answer; a query that is the question alone (TruthfulQA) at >= 0.8;
              a question at lower similarity, or without its answer where the answer is needed,
              is undecided; items of fewer than 4 informative words are undecided; score = the
              best similarity.
any_ngram     GPT-3 (Brown et al., 2020): contaminated when any 13-gram is matched; score = the
              share of the item's (unmasked) 13-grams that are matched; 13-grams in more than
              10 documents are ignored.
coverage      PaLM (Chowdhery et al., 2022): contaminated when >= 70% of the item's 8-grams are
              matched; score = that share.
token_level   Llama 2 (Touvron et al., 2023): a token is contaminated when it is covered by a
              matched 8-gram inside a span of > 10 tokens whose ends are covered and which has at
              most 4 uncovered tokens (the skip budget); score = share of contaminated tokens;
              bucket clean (< 20%), dirty (>= 80%), else mixed (undecided).
longest       ConTAM (Singh et al., 2024): the longest run of item tokens covered by consecutive
              matched 8-grams, as a share of the item's tokens; contaminated at >= 50%.
retrieval     Deng et al. (2024): the item's top-k BM25 documents (index engine only) cut into
              13-word chunks; score = the best chunk's similarity to the item (see
              :class:`Retrieval`); contaminated at >= 0.8.
============  =================================================================================
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

from ..errors import InputError
from ._rules import DEFAULT_RULE as DEFAULT_RULE


@dataclass(frozen=True)
class ItemWindows:
    """One item's windows of size ``n``: ``starts`` (token index of each window, ascending), each
    ``length`` tokens long (``n``, or ``n_tokens`` for a short item's single whole-item window), and
    ``doc_counts`` (documents each was found in; ``-1``: masked as a benchmark template)."""

    n_tokens: int
    n: int
    starts: np.ndarray
    doc_counts: np.ndarray

    @property
    def short(self) -> bool:
        return self.n_tokens < self.n

    @property
    def length(self) -> int:
        return min(self.n, self.n_tokens)

    @property
    def masked(self) -> int:
        return int((self.doc_counts < 0).sum())


@dataclass(frozen=True)
class Measure:
    """What a metric says about one item: ``contaminated`` is ``None`` when undecided."""

    score: float
    contaminated: bool | None
    values: dict[str, Any] = field(default_factory=dict)


class Metric(Protocol):
    """A registered overlap metric: its name and its window size ``n`` (0: it reads no windows).
    A window metric measures an item's windows (:class:`WindowMetric`), ``parts`` its parts'
    evidence (:meth:`Parts.measure_parts`), ``retrieval`` its retrieved documents."""

    @property
    def name(self) -> str: ...

    @property
    def n(self) -> int: ...


class WindowMetric(Metric, Protocol):
    def measure(self, w: ItemWindows) -> Measure: ...


def window_metrics(metrics: Sequence[Metric]) -> list[WindowMetric]:
    """The metrics of ``metrics`` that read windows (``n > 0`` and a ``measure``)."""
    return [m for m in metrics if m.n > 0 and hasattr(m, "measure")]   # type: ignore[misc]


def window_sizes(metrics: Sequence[Metric]) -> tuple[int, ...]:
    return tuple(sorted({m.n for m in window_metrics(metrics)})) or (8,)


def _matched(w: ItemWindows, min_count: int, max_docs: int | None) -> np.ndarray:
    ok = w.doc_counts >= min_count
    if max_docs is not None:
        ok &= w.doc_counts <= max_docs
    return ok


def covered_tokens(w: ItemWindows, matched: np.ndarray) -> np.ndarray:
    """Boolean per item token: inside at least one matched window."""
    cov = np.zeros(w.n_tokens, bool)
    for s in w.starts[matched]:
        cov[s:s + w.length] = True
    return cov


def _nan(name: str, why: str) -> Measure:
    warnings.warn(f"{name}: {why}; score is nan", RuntimeWarning, stacklevel=3)
    return Measure(math.nan, None, {"note": why})


def _matched_share(name: str, w: ItemWindows, min_count: int, max_docs: int | None) -> Measure | tuple[int, int]:
    """``(matched n-grams, unmasked n-grams)`` of an item, or its nan measure when every n-gram
    is a masked benchmark template."""
    live = int((w.doc_counts >= 0).sum())
    if not live:
        return _nan(name, "every n-gram is a benchmark template (masked)")
    return int(_matched(w, min_count, max_docs).sum()), live


_REGISTRY: dict[str, Callable[..., Metric]] = {}


def register(cls: type) -> type:
    _REGISTRY[cls.name] = cls   # type: ignore[attr-defined]
    return cls


@register
@dataclass(frozen=True)
class AnyNgram:
    """GPT-3's rule: any matched n-gram (see the module table)."""

    name = "any_ngram"
    n: int = 13
    min_count: int = 1
    max_docs: int | None = 10

    def measure(self, w: ItemWindows) -> Measure:
        counts = _matched_share(self.name, w, self.min_count, self.max_docs)
        if isinstance(counts, Measure):
            return counts
        k, live = counts
        return Measure(k / live, k > 0, {"matched": k, "ngrams": live})


@register
@dataclass(frozen=True)
class Coverage:
    """PaLM's rule: share of matched n-grams >= threshold."""

    name = "coverage"
    n: int = 8
    threshold: float = 0.7
    min_count: int = 1
    max_docs: int | None = None

    def measure(self, w: ItemWindows) -> Measure:
        counts = _matched_share(self.name, w, self.min_count, self.max_docs)
        if isinstance(counts, Measure):
            return counts
        k, live = counts
        return Measure(k / live, k / live >= self.threshold, {"matched": k, "ngrams": live})


@register
@dataclass(frozen=True)
class TokenLevel:
    """Llama 2's token-level contamination with its buckets (see the module table)."""

    name = "token_level"
    n: int = 8
    min_span: int = 11          # a span of more than 10 tokens
    skip_budget: int = 4
    clean_below: float = 0.2
    dirty_from: float = 0.8
    min_count: int = 1
    max_docs: int | None = None

    def measure(self, w: ItemWindows) -> Measure:
        if w.n_tokens == 0:
            return _nan(self.name, "the item has no token")
        cov = covered_tokens(w, _matched(w, self.min_count, self.max_docs))
        if w.short:   # whole-item rule: the whole item found is the whole item contaminated
            bad = cov
        else:
            bad = _in_spans(cov, self.min_span, self.skip_budget)
        share = float(bad.sum()) / w.n_tokens
        bucket = "clean" if share < self.clean_below else "dirty" if share >= self.dirty_from else "mixed"
        verdict = {"clean": False, "dirty": True}.get(bucket)
        return Measure(share, verdict, {"bucket": bucket, "tokens": int(bad.sum())})


def _in_spans(cov: np.ndarray, min_span: int, budget: int) -> np.ndarray:
    """Covered tokens inside a span [a, b] (a, b covered) of >= ``min_span`` tokens with at most
    ``budget`` uncovered ones: from each covered start the furthest covered end within the budget
    (a two-pointer walk, ends move forward only)."""
    n = cov.size
    pos = np.flatnonzero(cov)
    gaps = np.concatenate(([0], np.cumsum(~cov)))   # gaps[j] = uncovered tokens before j
    mark = np.zeros(n + 1, np.int64)
    hi = 0
    for ia, a in enumerate(pos):
        hi = max(hi, ia)
        while hi + 1 < pos.size and gaps[pos[hi + 1]] - gaps[a] <= budget:
            hi += 1
        b = pos[hi]
        if b - a + 1 >= min_span:
            mark[a] += 1
            mark[b + 1] -= 1
    return (np.cumsum(mark[:n]) > 0) & cov


@register
@dataclass(frozen=True)
class LongestMatch:
    """ConTAM's best: the longest contaminated run as a share of the item's tokens."""

    name = "longest"
    n: int = 8
    threshold: float = 0.5
    min_count: int = 1
    max_docs: int | None = None

    def measure(self, w: ItemWindows) -> Measure:
        if w.n_tokens == 0:
            return _nan(self.name, "the item has no token")
        hit = _matched(w, self.min_count, self.max_docs)
        best = run = 0
        prev = -2
        for s, h in zip(w.starts, hit):
            if not h:
                prev = -2
                continue
            run = run + 1 if s == prev + 1 else 1
            prev = s
            best = max(best, run)
        tokens = best + w.length - 1 if best else 0
        share = tokens / w.n_tokens
        return Measure(share, share >= self.threshold, {"tokens": tokens})


@register
@dataclass(frozen=True)
class Retrieval:
    """Deng et al.'s retrieval score of one item from its retrieved documents (ranked, best first).

    Each document is cut into ``n``-word chunks (every window of ``n`` consecutive tokens, so the
    score does not depend on where a copy starts; a document shorter than ``n`` is one chunk). A
    chunk's similarity to the item is token-level Rouge-L measured on the shorter side: the longest
    common subsequence of chunk and item tokens over ``min(n, len(item))`` (1.0 when a chunk lies
    inside the item, or a short item inside a chunk, word for word; a document shorter than ``n``
    words is still measured over ``n``, so a one-word page cannot match a long item). The score is the
    best chunk's, contaminated at >= ``threshold``; evidence names the document's rank and the chunk.
    ``masked`` (per item token) marks the tokens of the item's benchmark-template ``n``-grams: they
    match nothing, so a page holding one item does not score its template siblings (Deng et al. do
    not mask; ``masked=None`` is their score). Read by the index engine only
    (``needs_retrieval``): the scan retrieves nothing."""

    name = "retrieval"
    needs_retrieval: ClassVar[bool] = True
    n: int = 13
    threshold: float = 0.8

    def score(self, item: np.ndarray, masked: np.ndarray | None, doc: np.ndarray) -> tuple[float, int, int]:
        """One document's best chunk: (score, chunk start, chunk length) for the item's token
        hashes ``item`` and the document's ``doc``."""
        from . import _kernels

        ids = {int(t): i for i, t in enumerate(dict.fromkeys(item.tolist()))}
        item_ids = np.array([ids[int(t)] for t in item], np.int64)
        if masked is not None and masked.size == item_ids.size:
            item_ids[masked] = -2   # equal to no document token
        doc_ids = np.array([ids.get(int(t), -1) for t in doc], np.int64)
        w = min(self.n, doc_ids.size)
        if not w or (item_ids == -2).all():
            return 0.0, 0, 0
        inside = np.concatenate(([0], np.cumsum(doc_ids >= 0)))
        ub = inside[w:] - inside[:-w]
        length, at = _kernels.best_window_lcs(item_ids, doc_ids, self.n, ub)
        return length / min(self.n, item.size), int(at), w

    def measure_retrieved(self, item: str, documents: list[str], masked: np.ndarray | None = None) -> Measure:
        """The score of ``item`` from its retrieved ``documents`` (ranked, best first); the best
        chunk quoted as stored."""
        from ._tokenize import tokenize_texts

        mine = tokenize_texts([item]).th
        if not mine.size:
            return _nan(self.name, "the item has no token")
        if masked is not None and masked.size == mine.size and masked.all():
            return _nan(self.name, "every n-gram is a benchmark template (masked)")
        best, rank, chunk = 0.0, 0, ""
        tok = tokenize_texts(documents) if documents else None
        for r, text in enumerate(documents, 1):
            assert tok is not None
            a, b = int(tok.doc_tok[r - 1]), int(tok.doc_tok[r])
            score, at, w = self.score(mine, masked, tok.th[a:b])
            if score > best:
                best, rank = score, r
                chunk = text[int(tok.ts[a + at]):int(tok.te[a + at + w - 1])]
        return Measure(best, best >= self.threshold,
                       {"rank": rank, "chunk": chunk[:200], "documents": len(documents)})


@dataclass(frozen=True)
class PartsEvidence:
    """One item's best evidence across the corpus (see :mod:`._verify`): ``kind`` 0 none, 1 the
    question, 2 with its gold answer, 3 with every option; the table's facts about the item."""

    kind: int
    sim: float
    matched: int
    options_found: int
    options: int
    documents: int
    info: int
    info_question: int
    shared: bool
    seeded: bool
    question_query: bool


KINDS = {1: "question", 2: "question+answer", 3: "question+options"}


@register
@dataclass(frozen=True)
class Parts:
    """benchchecker's rule on an item's parts (see the module table)."""

    name = "parts"
    needs_parts: ClassVar[bool] = True
    n: int = 0
    tau_answer: float = 0.75
    tau_question: float = 0.9
    tau_query: float = 0.8
    min_info: int = 4

    def measure_parts(self, e: PartsEvidence) -> Measure:
        values: dict[str, Any] = {"kind": KINDS.get(e.kind), "similarity": round(e.sim, 4),
                                  "documents": e.documents, "matched_tokens": e.matched}
        if e.options:
            values["options_found"] = f"{e.options_found}/{e.options}"
        if e.info < self.min_info:
            return _nan(self.name, f"too short to be distinctive: {e.info} informative word(s) "
                                   f"(needs {self.min_info})")
        if not e.seeded:
            return _nan(self.name, "no 4-word phrase of its question or answer is distinctive (each "
                                   "is in more than 64 items of the benchmark, or the parts are "
                                   "shorter): only its options could tell it apart")
        if e.kind == 0:
            return Measure(0.0, False, values)
        if e.kind >= 2 and e.sim >= self.tau_answer:
            return Measure(e.sim, True, values)
        if e.question_query and e.sim >= self.tau_query:
            return Measure(e.sim, True, values)
        if not e.question_query and e.sim >= self.tau_question and not e.shared \
                and e.info_question >= self.min_info:
            return Measure(e.sim, True, values)
        why = ("the question is shared with other items of the benchmark and its answer was not "
               "found with it" if e.shared else
               f"the question found at similarity {e.sim:.2f} without its answer")
        return Measure(e.sim, None, {**values, "note": why})


DEFAULT_METRICS: tuple[Metric, ...] = (Parts(), AnyNgram(), Coverage(), TokenLevel(), LongestMatch())


def metric_names() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def get_metric(name: str, **params: Any) -> Metric:
    """The registered metric ``name`` with ``params`` (its defaults otherwise)."""
    if name not in _REGISTRY:
        raise InputError(f"unknown overlap metric {name!r}; choose from {', '.join(metric_names())}")
    try:
        return _REGISTRY[name](**params)
    except TypeError as exc:
        raise InputError(f"overlap metric {name}: {exc}") from None
