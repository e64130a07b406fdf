"""The shared test helpers (``tests/helpers``) do what the tests that use them rely on."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.flags import ContaminationFlag, write_flags
from benchchecker_plugin.models import Completion, GenerationParams, LogprobModel, TextModel
from tests.helpers import SHARED_DATA, ScriptedModel, comparable_flags, require_shared_data

PARAMS = GenerationParams(max_tokens=4, seed=1)


def test_scripted_model_is_a_text_model_only() -> None:
    model = ScriptedModel({})
    assert isinstance(model, TextModel) and not isinstance(model, LogprobModel)
    assert not hasattr(model, "cache_identity")
    assert ScriptedModel({}, cache_identity="x").cache_identity == "x"


def test_answers_failures_and_records() -> None:
    model = ScriptedModel({("a", 1): "seeded", ("a", 2): "other seed", "a": "plain", "b": "bee",
                           "c": Completion("see", finish_reason="length")}, fail_on={"b": "down"})
    out = model.generate(["a", "b", "c", "d"], PARAMS)
    assert [c.text for c in out] == ["seeded", "", "see", ""]
    assert [c.error for c in out] == [None, "down", None, "no scripted answer"]
    assert out[2].finish_reason == "length"
    assert model.generate(["a"], GenerationParams(seed=5))[0].text == "plain"
    assert model.prompts == ["a", "b", "c", "d", "a"] and model.batches == [4, 1]
    assert model.params == [PARAMS, GenerationParams(seed=5)]
    echo = ScriptedModel(lambda prompt, params: f"{prompt}:{params.max_tokens}", fail_on=["x"])
    assert [(c.text, c.error) for c in echo.generate(["y", "x"], PARAMS)] == [("y:4", None), ("", "boom")]


def test_raises_and_crash_after() -> None:
    def down_when_seeded(prompts, params):  # noqa: ANN001, ANN202
        return ConnectionError("down") if params.seed else None

    down = ScriptedModel({"a": "x"}, raises=down_when_seeded)
    with pytest.raises(ConnectionError, match="down"):
        down.generate(["a"], PARAMS)
    assert down.prompts == [] and down.batches == []
    assert down.generate(["a"], GenerationParams(seed=None))[0].text == "x"
    crash = ScriptedModel({"a": "x"}, crash_after=3)
    crash.generate(["a", "a"], PARAMS)
    with pytest.raises(RuntimeError, match="simulated crash mid-batch"):
        crash.generate(["a", "a"], PARAMS)
    assert len(crash.prompts) == 3


def test_comparable_flags_drop_only_the_creation_time(tmp_path: Path) -> None:
    flags = [ContaminationFlag(benchmark="mmlu", instance_id=f"anatomy/{i}", model="m", method="x",
                               contaminated=bool(i), score=float(i)) for i in range(2)]
    write_flags(tmp_path / "f.jsonl", flags)
    from_file, from_list = comparable_flags(tmp_path / "f.jsonl"), comparable_flags(flags)
    assert from_file == from_list and sorted(from_file) == ["anatomy/0", "anatomy/1"]
    assert "created_at" not in from_file["anatomy/1"] and from_file["anatomy/1"]["score"] == 1.0


def test_require_shared_data_skips_with_the_missing_path() -> None:
    with pytest.raises(pytest.skip.Exception, match="no_such_folder"):
        require_shared_data("no_such_folder")
    assert SHARED_DATA.is_absolute()
