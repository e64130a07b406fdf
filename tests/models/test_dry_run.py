"""--dry-run: counts calls, answers from the cache where it can, never makes up an answer."""

from __future__ import annotations

from pathlib import Path

from benchchecker_plugin.models import (
    DRY_RUN_ERROR,
    CachedModel,
    DryRunModel,
    GenerationParams,
    ResponseCache,
    get_model,
)
from tests.helpers import ScriptedModel

PARAMS = GenerationParams(max_tokens=4)


def _upper() -> ScriptedModel:
    """Answers each prompt in upper case, cached under the default model's name."""
    return ScriptedModel(lambda prompt, _: prompt.upper(), spec="hf/smollm2-135m",
                         cache_identity="hf/smollm2-135m")


def test_counts_calls_and_cached_answers(tmp_path: Path) -> None:
    CachedModel(_upper(), ResponseCache(tmp_path)).generate(["a", "b"], PARAMS)
    dry = get_model("hf/smollm2-135m", cache_dir=tmp_path, dry_run=True)
    assert isinstance(dry, DryRunModel)
    out = dry.generate(["a", "b", "c", "d", "e"], PARAMS)
    assert [c.text for c in out[:2]] == ["A", "B"] and all(c.cached for c in out[:2])
    assert all(c.error == DRY_RUN_ERROR and c.text == "" for c in out[2:])
    assert (dry.calls, dry.cached, dry.total) == (3, 2, 5)
    assert dry.recorded == ["c", "d", "e"]
    assert dry.summary() == "dry run: 5 model calls (2 cached) for hf/smollm2-135m"
    scores = dry.token_scores(["x"])
    assert scores[0].logprobs.shape == (0,) and dry.calls == 4
    assert ResponseCache(tmp_path).stats().entries == 2  # a dry run writes nothing


def test_chat_option_changes_the_identity(tmp_path: Path) -> None:
    CachedModel(_upper(), ResponseCache(tmp_path)).generate(["a"], PARAMS)
    dry = get_model("hf/smollm2-135m", cache_dir=tmp_path, dry_run=True, chat=True)
    dry.generate(["a"], PARAMS)
    assert (dry.calls, dry.cached) == (1, 0)
