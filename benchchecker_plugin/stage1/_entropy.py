"""Target entropy: how unpredictable a target is for a reference model that has not memorised it.

For each query, the reference model scores ``query + gap + target`` (one forward pass via
``LogprobModel.token_scores``); the entropy score is the largest loss (``-log p``, nats) among the
target's sub-tokens, i.e. the tokens whose character span overlaps the target. One surprising
sub-token is enough to make an exact reproduction unlikely by chance, so the maximum (not the mean)
is used. Hits on high-entropy targets are stronger evidence; :mod:`._test` weights them by it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from ..models import LogprobModel, TokenScores
from ._queries import Query


def max_subtoken_loss(scores: TokenScores, start: int, end: int) -> float:
    """Largest ``-logprob`` among tokens overlapping characters ``[start, end)``; ``nan`` (with a
    warning) when no scored token overlaps (e.g. the target was the very first token)."""
    losses = [-float(lp) for (s, e), lp in zip(scores.offsets, np.asarray(scores.logprobs))
              if s < end and e > start]
    if not losses:
        warnings.warn(f"no scored sub-token overlaps characters {start}..{end}; entropy is nan",
                      RuntimeWarning, stacklevel=2)
        return math.nan
    return max(losses)


def score_entropy(reference: LogprobModel, queries: Sequence[Query], *,
                  batch_size: int = 16) -> list[Query]:
    """The queries with ``entropy`` set from ``reference`` (batched forward passes)."""
    out: list[Query] = []
    for i in range(0, len(queries), batch_size):
        chunk = queries[i:i + batch_size]
        texts = [q.query + q.gap + q.target for q in chunk]
        scored = reference.token_scores(texts)
        for q, text, ts in zip(chunk, texts, scored):
            start = len(q.query) + len(q.gap)
            out.append(q.with_entropy(max_subtoken_loss(ts, start, len(text))))
    return out
