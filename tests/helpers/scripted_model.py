"""``ScriptedModel``: a stand-in text model that answers from a script and records what it was asked.

It satisfies the ``TextModel`` Protocol (``benchchecker_plugin.models._base``): a ``spec`` and
``generate(prompts, params) -> list[Completion]``, one completion per prompt, in order. It has no
``token_scores``, so it is not a ``LogprobModel``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from benchchecker_plugin.models import Completion, GenerationParams

__all__ = ["Answer", "ScriptedModel"]

Answer = str | Completion | None
"""A scripted answer: a text, a ready ``Completion`` (to set ``finish_reason``), or ``None``: no
answer, so the item fails (a ``Completion`` with ``error``)."""


class ScriptedModel:
    """Answers each prompt from ``answers`` and records every request.

    ``answers``: a mapping keyed by ``(prompt, seed)`` or by ``prompt`` (the seeded key wins), or a
    callable ``(prompt, params) -> Answer``. A prompt without an answer fails as an item with
    ``missing_error``.
    ``fail_on``: prompts that fail as items: a mapping ``prompt -> error message``, or a collection
    of prompts (message ``error``).
    ``raises``: the backend as a whole fails: an exception raised by every call, or a callable
    ``(prompts, params) -> exception or None`` that decides per call. A call that raises records
    nothing.
    ``crash_after``: raise ``RuntimeError("simulated crash mid-batch")`` once this many prompts
    have been answered in all (mid-call; the prompts answered before stay recorded).
    ``cache_identity``: set only when given (the response cache then keys on it instead of ``spec``).

    Records (under a lock, so threads may share the model): ``prompts`` (each prompt answered or
    failed, in order), ``batches`` (the size of each call) and ``params`` (each call's parameters).
    """

    def __init__(self, answers: Mapping[Any, Answer] | Callable[[str, GenerationParams], Answer] = (),
                 *, spec: str = "scripted", fail_on: Mapping[str, str] | Collection[str] = (),
                 error: str = "boom", missing_error: str = "no scripted answer",
                 raises: BaseException | Callable[[Sequence[str], GenerationParams], BaseException | None]
                 | None = None,
                 crash_after: int | None = None, cache_identity: str | None = None) -> None:
        self.answers = answers if callable(answers) else dict(answers)
        self.spec = spec
        self.fail_on = dict(fail_on) if isinstance(fail_on, Mapping) else dict.fromkeys(fail_on, error)
        self.missing_error = missing_error
        self.raises = raises
        self.crash_after = crash_after
        if cache_identity is not None:
            self.cache_identity = cache_identity
        self.prompts: list[str] = []
        self.batches: list[int] = []
        self.params: list[GenerationParams] = []
        self._lock = threading.Lock()

    def _answer(self, prompt: str, params: GenerationParams) -> Completion:
        if prompt in self.fail_on:
            return Completion(text="", error=self.fail_on[prompt])
        if callable(self.answers):
            answer = self.answers(prompt, params)
        else:
            answer = self.answers.get((prompt, params.seed), self.answers.get(prompt))
        if answer is None:
            return Completion(text="", error=self.missing_error)
        return answer if isinstance(answer, Completion) else Completion(text=answer)

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Completion]:
        failure = self.raises(prompts, params) if callable(self.raises) else self.raises
        if failure is not None:
            raise failure
        with self._lock:
            self.batches.append(len(prompts))
            self.params.append(params)
        out = []
        for p in prompts:
            with self._lock:
                if self.crash_after is not None and len(self.prompts) >= self.crash_after:
                    raise RuntimeError("simulated crash mid-batch")
                self.prompts.append(p)
            out.append(self._answer(p, params))
        return out
