"""An Inspect model provider backed by benchchecker's model layer: ``--model benchchecker/<SPEC>``.

``inspect eval ... --model benchchecker/hf/HuggingFaceTB/SmolLM2-135M`` sends each sample's text
to ``benchchecker_plugin.models.get_model("hf/HuggingFaceTB/SmolLM2-135M")`` as a plain prompt (no
chat template; messages are joined by blank lines), so an Inspect run and ``benchchecker
ts-guess`` ask the same model the same prompts through the same cache.

``-M`` takes the model options every benchchecker command has (``cli/_options.py``): ``threads``,
``device``, ``batch_size``, ``max_concurrency``, ``cache_dir``, plus the backend's own (``chat``,
``dtype``, ...).

Under Inspect, Inspect's semantics hold (otherwise ``--epochs 3 --temperature 1.0`` gave three
byte-identical epochs, and a re-run replayed the old answers):

- **Sampling** is independent per request: without ``--seed`` each sampled request draws fresh
  randomness, as every provider does; with ``--seed S`` the k-th request of the same prompt and
  parameters in a run samples with seed ``S + k`` (so epoch 2 is not epoch 1 again, and a re-run
  with the same seed reproduces the run).
- **The response cache is opt-in** (``-M cache=true``; Inspect's own cache is ``generate(cache=
  True)``), and its entries are per request as above, hence per epoch (Inspect's ``CachePolicy``
  default); with the cache and no ``--seed`` the seeds start at 0, so a re-run replays each
  epoch's own answers. ``-M no_cache=true`` is accepted and changes nothing.
- **Token counts** are the model's own (its tokenizer's) where the backend has one.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo

from ..errors import ModelError
from ..models import GenerationParams


class BenchcheckerModelAPI(ModelAPI):
    """Inspect ``ModelAPI`` over a :class:`~benchchecker_plugin.models.TextModel`."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, api_key_vars=[],
                         config=config if config is not None else GenerateConfig())
        self._cached = _flag(model_args.get("cache", False))
        self._model = build_model(model_name, model_args)
        self._asked: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()

    def _seed(self, prompt: str, params: GenerationParams, seed: int | None) -> int | None:
        """``seed + k`` for the k-th request of ``(prompt, params)`` in this run; ``None`` (fresh
        randomness) without a seed."""
        if seed is None:
            return None
        key = (prompt, repr(sorted(params.cache_key().items())))
        with self._lock:
            k = self._asked[key]
            self._asked[key] += 1
        return seed + k

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        prompt = "\n\n".join(m.text for m in input)
        params = GenerationParams(max_tokens=config.max_tokens or 32, temperature=config.temperature or 0.0,
                                  stop=tuple(config.stop_seqs or ()), seed=None,
                                  top_p=config.top_p if config.top_p is not None else 1.0)
        seed = config.seed if config.seed is not None else 0 if self._cached else None
        params = replace(params, seed=self._seed(prompt, params, seed))
        completion = (await asyncio.to_thread(self._model.generate, [prompt], params))[0]
        if completion.error is not None:
            raise ModelError(f"{self.model_name}: {completion.error}")
        return ModelOutput.from_content(model=self.model_name, content=completion.text, stop_reason="stop") \
            .model_copy(update={"usage": self._usage(prompt, completion.text)})

    def _usage(self, prompt: str, text: str) -> ModelUsage:
        """Tokens of the prompt and of the answer by the model's tokenizer (0 without one)."""
        tokenizer = getattr(self._model, "tokenizer", None)
        if tokenizer is None:
            return ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        n_in = len(tokenizer(prompt)["input_ids"])
        n_out = len(tokenizer(text, add_special_tokens=False)["input_ids"]) if text else 0
        return ModelUsage(input_tokens=n_in, output_tokens=n_out, total_tokens=n_in + n_out)


def _flag(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in ("1", "true", "yes")


def build_model(spec: str, args: dict[str, Any]) -> Any:
    """The model of ``spec`` with ``-M`` options read as the CLI's model options (the response
    cache only with ``cache=true``)."""
    from pathlib import Path

    from ..models import ModelOptions, set_threads

    args = dict(args)
    if args.get("threads") is not None:
        set_threads(int(args.pop("threads")))
    args.pop("threads", None)
    shared = {k: args.pop(k) for k in ("device", "batch_size", "max_concurrency") if k in args}
    cache_dir = args.pop("cache_dir", None)
    args.pop("no_cache", None)   # the cache is opt-in under Inspect (-M cache=true)
    opts = ModelOptions(spec=spec, cache_dir=Path(str(cache_dir)) if cache_dir else None,
                        no_cache=not _flag(args.pop("cache", False)),
                        batch_size=int(shared.get("batch_size", 8)),
                        max_concurrency=int(shared.get("max_concurrency", 8)),
                        device=str(shared.get("device", "cpu")))
    return opts.build(**args)


#: ``-M`` options that say how the provider runs its model, not what the model answers
_RUN_ARGS = ("threads", "device", "batch_size", "max_concurrency", "cache_dir", "no_cache", "cache")


def provider_identity(spec: str, args: Mapping[str, Any]) -> str:
    """The response cache's identity of the model ``--model benchchecker/<spec> -M args`` answers
    with: that of ``spec`` itself with the options that change its answers (``chat``, ...), so
    ``ts-guess --model <spec>`` and this provider share cached answers."""
    from ..models import BACKENDS, model_identity, parse_spec

    parsed = parse_spec(spec)
    opts = {k: v for k, v in args.items() if k not in _RUN_ARGS and k in BACKENDS[parsed.backend].options}
    return model_identity(parsed, opts)


@modelapi(name="benchchecker")
def benchchecker_provider() -> type[ModelAPI]:
    return BenchcheckerModelAPI
