"""inspect/ delegates to Inspect's model layer; tested offline with Inspect's own providers."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from benchchecker_plugin.errors import ModelSpecError
from benchchecker_plugin.models import GenerationParams, InspectModel, get_model

if TYPE_CHECKING:   # the hf backend imports torch and transformers: not at collection
    from benchchecker_plugin.models import HFModel

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")


def _echo(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> Any:
    """mockllm output: echoes the prompt and the config it got (usage set: no tiktoken download)."""
    from inspect_ai.model import ModelOutput, ModelUsage

    prompt = input[-1].text
    if prompt == "explode":
        raise ValueError("provider refused 'explode'")
    content = f"{prompt}|{config.max_tokens}|{config.temperature}|{config.seed}|END more"
    output = ModelOutput.from_content(model="mockllm", content=content)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def test_generate_through_inspect_mockllm(tmp_path: Path) -> None:
    model = get_model("inspect/mockllm/model", model_args={"custom_outputs": _echo}, max_retries=0,
                      cache_dir=tmp_path)
    params = GenerationParams(max_tokens=7, temperature=0.5, seed=3, stop=("END",))
    out = model.generate(["first", "explode", "third"], params)
    assert out[0].ok and out[0].text == "first|7|0.5|3|" and out[0].finish_reason == "stop"
    assert out[2].text == "third|7|0.5|3|"
    assert not out[1].ok and "provider refused 'explode'" in (out[1].error or "")
    again = model.generate(["first", "third"], params)
    assert all(c.cached for c in again)


def test_inside_a_running_event_loop() -> None:
    """Adapters may call us from async code (Inspect solvers): no 'loop already running' error."""
    model = InspectModel("inspect/mockllm/model", "mockllm/model", custom_outputs=_echo)

    async def caller() -> str:
        return model.generate(["x"], GenerationParams(max_tokens=2))[0].text

    assert asyncio.run(caller()) == "x|2|0.0|0|END more"


def test_unknown_provider_is_a_spec_error() -> None:
    with pytest.raises(ModelSpecError, match=r"^inspect/nosuchprovider/m: Inspect cannot build model "
                                             r"'nosuchprovider/m'"):
        get_model("inspect/nosuchprovider/m")


@pytest.mark.slow
@pytest.mark.model
def test_inspect_hf_provider_matches_our_chat_model(smollm2_folder: Path,
                                                    smollm2_model: HFModel) -> None:
    """Inspect's own hf/ provider on the exported folder answers like our hf/ backend with chat."""
    model = get_model(f"inspect/hf/{smollm2_folder}",
                      model_args={"device": "cpu", "do_sample": False})
    prompts = ["What is the capital of France?", "Name a primary color."]
    params = GenerationParams(max_tokens=8)
    theirs = model.generate(prompts, params)
    ours = smollm2_model.with_chat().generate(prompts, params)
    assert all(c.ok for c in theirs), [c.error for c in theirs]
    assert [c.text.strip() for c in theirs] == [c.text.strip() for c in ours]
