"""The ``inspect/<provider>/<model>`` backend: Inspect's model layer answers (its providers, retries,
rate limits, connection limits), so every API model Inspect supports works here.

``inspect_ai`` is imported when such a model is built, never when benchchecker is imported.
Prompts go to the model as one user message each; ``max_concurrency`` becomes Inspect's
``max_connections``. A request that fails after Inspect's own retries becomes an errored item.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any, TypedDict

from ..errors import ModelError, ModelSpecError
from ._base import Completion, GenerationParams
from ._stop import cut_at_stop

#: Inspect providers that refuse ``temperature=0.0``: Inspect's ``hf/`` samples by default
#: (``do_sample=True``) and transformers refuses a zero temperature when sampling; ``top_k=1``
#: (argmax) is greedy there.
_TOP_K_GREEDY = frozenset({"hf"})


def greedy_fields(provider_model: str) -> dict[str, Any]:
    """The ``GenerateConfig`` fields that ask Inspect's ``provider_model`` (``hf/gpt2``,
    ``openai/gpt-4o``; or just the provider) for greedy decoding, the way it accepts it."""
    if provider_model.split("/", 1)[0] in _TOP_K_GREEDY:
        return {"temperature": None, "top_k": 1}
    return {"temperature": 0.0}


class _BaseConfig(TypedDict):
    """The ``GenerateConfig`` fields fixed when the model is built."""

    max_connections: int
    max_retries: int | None
    timeout: int | None


class InspectModel:
    """Wraps ``inspect_ai.model.get_model(provider_model, ...)``; ``model_args`` go to the provider."""

    def __init__(self, spec: str, provider_model: str, *, base_url: str | None = None,
                 api_key: str | None = None, max_concurrency: int = 8, max_retries: int | None = 4,
                 timeout: int | None = None, **model_args: Any) -> None:
        try:
            from ..extras import require

            require("inspect_ai.model", "an inspect/ model spec")
            from inspect_ai.model import GenerateConfig
            from inspect_ai.model import get_model as inspect_get_model
        except ImportError as exc:  # pragma: no cover - inspect-ai is a dependency
            raise ModelSpecError(f"{spec}: needs the inspect-ai package ({exc})") from exc
        self.spec = spec
        self._provider_model = provider_model
        self.batch_size = max_concurrency * 4
        self.cache_identity = self.identity_for(spec, base_url=base_url)
        self._config_cls = GenerateConfig
        self._base_config = _BaseConfig(max_connections=max_concurrency, max_retries=max_retries,
                                        timeout=timeout)
        try:
            self._model = inspect_get_model(provider_model, base_url=base_url, api_key=api_key,
                                            memoize=False,
                                            config=GenerateConfig(**self._base_config),
                                            **model_args)
        except (ValueError, KeyError, ImportError, OSError, RuntimeError) as exc:
            raise ModelSpecError(f"{spec}: Inspect cannot build model {provider_model!r}: {exc}") from exc

    @staticmethod
    def identity_for(spec: str, *, base_url: str | None = None) -> str:
        """The cache identity (spec and server; never the key), computable without Inspect."""
        return spec + ("" if base_url is None else f"?base_url={base_url}")

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Completion]:
        """All prompts concurrently through Inspect (which applies its connection limit)."""
        decoding = greedy_fields(self._provider_model) if params.temperature == 0 else \
            {"temperature": params.temperature}
        config = self._config_cls(max_tokens=params.max_tokens, top_p=params.top_p, seed=params.seed,
                                  stop_seqs=list(params.stop) or None, **decoding, **self._base_config)

        async def one(prompt: str) -> Completion:
            output = await self._model.generate(prompt, config=config)
            if output.error:
                return Completion(text="", error=f"{self.spec}: {output.error}")
            text, stopped = cut_at_stop(output.completion, params.stop)
            reason = "stop" if stopped else str(output.stop_reason) if output.choices else None
            return Completion(text=text, finish_reason=_finish(reason))

        async def run_all() -> list[Completion | BaseException]:
            return await asyncio.gather(*(one(p) for p in prompts), return_exceptions=True)

        answers = _run(run_all())
        out = []
        for a in answers:
            if isinstance(a, Completion):
                out.append(a)
            elif isinstance(a, Exception):
                out.append(Completion(text="", error=f"{type(a).__name__}: {a}"))
            else:  # KeyboardInterrupt, SystemExit: not an item failure
                raise a
        return out


def _finish(reason: str | None) -> str | None:
    return {"max_tokens": "length", "model_length": "length"}.get(reason or "", reason)


def _run(coro: Any) -> Any:
    """``asyncio.run`` — in a helper thread when the caller already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # handed back to the caller below
            box["error"] = exc

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "error" in box:
        raise ModelError(f"inspect model call failed: {box['error']}") from box["error"]
    return box["value"]
