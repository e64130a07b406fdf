"""The model Protocols every detector talks to, and the records they exchange."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import InputError


@dataclass(frozen=True)
class GenerationParams:
    """Sampling parameters of one generation request (part of the cache key).

    ``seed`` makes temperature > 0 sampling reproducible where the backend supports it; detectors
    that want several independent samples of one prompt vary the seed.
    """

    max_tokens: int = 32
    temperature: float = 0.0
    stop: tuple[str, ...] = ()
    seed: int | None = 0
    top_p: float = 1.0

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise InputError(f"GenerationParams.max_tokens must be >= 1, got {self.max_tokens}")
        if self.temperature < 0:
            raise InputError(f"GenerationParams.temperature must be >= 0, got {self.temperature}")
        object.__setattr__(self, "stop", tuple(self.stop))

    def cache_key(self) -> dict[str, object]:
        return {"max_tokens": self.max_tokens, "temperature": self.temperature,
                "stop": list(self.stop), "seed": self.seed, "top_p": self.top_p}


@dataclass(frozen=True)
class Completion:
    """One generated text. ``error`` is set (and ``text`` empty) when this item failed;
    a failed item is never treated as an answer."""

    text: str
    finish_reason: str | None = None
    error: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class TokenScores:
    """Per-token scores of one text under a local model.

    ``logprobs[i]`` is log p(token_i | tokens_<i); the first token has no context and is left out,
    so ``tokens``, ``offsets`` and the arrays all describe tokens 1..n-1. ``offsets`` are character
    spans into the scored text. ``mu`` and ``sigma`` are the mean and standard deviation of
    log p(z | context) over the vocabulary at each position (for Min-K%++).
    """

    tokens: tuple[str, ...]
    offsets: tuple[tuple[int, int], ...]
    logprobs: np.ndarray
    mu: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sigma: np.ndarray = field(default_factory=lambda: np.zeros(0))


@runtime_checkable
class TextModel(Protocol):
    """Anything that turns a batch of prompts into completions (API models included)."""

    spec: str

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Completion]:
        """One completion per prompt, in order. A failing item gives a Completion with ``error``
        set; the call raises only if the backend as a whole cannot be used."""
        ...


@runtime_checkable
class LogprobModel(TextModel, Protocol):
    """A local model that can also score given texts token by token."""

    def token_scores(self, texts: Sequence[str]) -> list[TokenScores]:
        ...
