"""``--dry-run``: count the model calls a command would make, without loading or calling a model.

``get_model(spec, dry_run=True)`` returns a :class:`DryRunModel`. It answers from the response
cache where it can (so the count says how many calls are already cached), records every other
prompt as a call it would make, and answers it with an errored :class:`Completion` — never with a
made-up text. Its ``summary()`` is the line a command prints: ``"N model calls (M cached)"``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from ._base import Completion, GenerationParams, TokenScores
from ._cache import ResponseCache, completion_key, scores_key

DRY_RUN_ERROR = "dry run: model not called"


class DryRunModel:
    """Stands in for the model of ``spec``; counts calls (``calls``) and cache hits (``cached``).

    ``recorded`` holds the prompts (and texts to score) that would have gone to the model, in the
    order asked. ``token_scores`` of an uncached text gives empty arrays (nothing is computed).
    """

    def __init__(self, spec: str, cache_identity: str, cache: ResponseCache | None = None) -> None:
        self.spec = spec
        self.cache_identity = cache_identity
        self.cache = cache
        self.calls = 0
        self.cached = 0
        self.recorded: list[str] = []
        self._lock = threading.Lock()

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Completion]:
        keys = [completion_key(self.cache_identity, p, params) for p in prompts]
        found = self.cache.get_completions(keys) if self.cache is not None else {}
        out = []
        with self._lock:
            for k, p in zip(keys, prompts):
                if k in found:
                    self.cached += 1
                    out.append(found[k])
                else:
                    self.calls += 1
                    self.recorded.append(p)
                    out.append(Completion(text="", error=DRY_RUN_ERROR))
        return out

    def token_scores(self, texts: Sequence[str]) -> list[TokenScores]:
        keys = [scores_key(self.cache_identity, t) for t in texts]
        found = self.cache.get_scores(keys) if self.cache is not None else {}
        out = []
        with self._lock:
            for k, t in zip(keys, texts):
                if k in found:
                    self.cached += 1
                    out.append(found[k])
                else:
                    self.calls += 1
                    self.recorded.append(t)
                    out.append(TokenScores(tokens=(), offsets=(), logprobs=np.zeros(0)))
        return out

    @property
    def total(self) -> int:
        """Every request asked of this model: ``calls`` to make plus ``cached`` answers."""
        return self.calls + self.cached

    def summary(self) -> str:
        """``"<total> model calls (<cached> cached)"`` with the spec, for a command to print."""
        return f"dry run: {self.total} model calls ({self.cached} cached) for {self.spec}"
