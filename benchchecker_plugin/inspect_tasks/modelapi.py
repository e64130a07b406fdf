"""An Inspect model provider backed by benchchecker's model layer: ``--model benchchecker/<SPEC>``.

``inspect eval ... --model benchchecker/hf/HuggingFaceTB/SmolLM2-135M`` sends each sample's text
to ``benchchecker_plugin.models.get_model("hf/HuggingFaceTB/SmolLM2-135M")`` as a plain prompt (no
chat template; messages are joined by blank lines), so an Inspect run and ``benchchecker
ts-guess`` ask the same model the same prompts through the same cache.

``-M`` takes the model options every benchchecker command has (``cli/options.py``): ``threads``,
``device``, ``batch_size``, ``max_concurrency``, ``cache_dir``, ``no_cache``, plus the
backend's own (``chat``, ``dtype``, ...). The response cache is on by default, as in
``benchchecker ts-guess``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo

from ..errors import ModelError
from ..models import GenerationParams

__all__ = ["BenchcheckerModelAPI", "benchchecker_provider"]


class BenchcheckerModelAPI(ModelAPI):
    """Inspect ``ModelAPI`` over a :class:`~benchchecker_plugin.models.TextModel`."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, api_key_vars=[],
                         config=config if config is not None else GenerateConfig())
        self._model = build_model(model_name, model_args)

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        prompt = "\n\n".join(m.text for m in input)
        params = GenerationParams(max_tokens=config.max_tokens or 32, temperature=config.temperature or 0.0,
                                  stop=tuple(config.stop_seqs or ()),
                                  seed=config.seed if config.seed is not None else 0,
                                  top_p=config.top_p if config.top_p is not None else 1.0)
        completion = (await asyncio.to_thread(self._model.generate, [prompt], params))[0]
        if completion.error is not None:
            raise ModelError(f"{self.model_name}: {completion.error}")
        return ModelOutput.from_content(model=self.model_name, content=completion.text, stop_reason="stop") \
            .model_copy(update={"usage": ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)})


def _flag(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in ("1", "true", "yes")


def build_model(spec: str, args: dict[str, Any]) -> Any:
    """The model of ``spec`` with ``-M`` options read as the CLI's model options."""
    from pathlib import Path

    from ..cli.options import ModelOptions, set_threads

    args = dict(args)
    if args.get("threads") is not None:
        set_threads(int(args.pop("threads")))
    args.pop("threads", None)
    shared = {k: args.pop(k) for k in ("device", "batch_size", "max_concurrency") if k in args}
    cache_dir = args.pop("cache_dir", None)
    opts = ModelOptions(spec=spec, cache_dir=Path(str(cache_dir)) if cache_dir else None,
                        no_cache=_flag(args.pop("no_cache", False)),
                        batch_size=int(shared.get("batch_size", 8)),
                        max_concurrency=int(shared.get("max_concurrency", 8)),
                        device=str(shared.get("device", "cpu")))
    return opts.build(**args)


@modelapi(name="benchchecker")
def benchchecker_provider() -> type[ModelAPI]:
    return BenchcheckerModelAPI
