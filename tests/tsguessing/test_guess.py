"""Running probes through a TextModel: batching, per-item failures, summary."""

from __future__ import annotations

import math

import pytest

from benchchecker_plugin.tsguessing import BenchmarkItem, Mode, prepare_probes, run_probes, ts_guess
from tests.helpers import ScriptedModel

ITEMS = [BenchmarkItem("mmlu", f"anatomy/{i}", f"Which structure number {i} is described here?",
                       (f"alpha{i}", f"bravo{i}", f"charlie{i}", f"delta{i}"), 0, {"subject": "anatomy"})
         for i in range(5)]


def _broken() -> ScriptedModel:
    """A backend that is down: every call raises."""
    return ScriptedModel(spec="fake/broken", raises=ConnectionError("server down"))


def test_batches_failures_and_summary() -> None:
    """The masked option answered for even items, item 3 failing; prompts sent in batches of 2."""
    probes = prepare_probes(ITEMS, Mode.MULTICHOICE).probes
    answers = {p.prompt: " " + (p.target if i % 2 == 0 else "no idea") for i, p in enumerate(probes)}
    model = ScriptedModel(answers, fail_on={probes[3].prompt: "RuntimeError: boom"}, spec="fake/echo")
    assert [p.instance_id for p in probes] == [f"anatomy/{i}" for i in range(5)]
    result = ts_guess(model, ITEMS, "multichoice", batch_size=2)
    assert model.batches == [2, 2, 1]
    assert [f.contaminated for f in result.flags] == [True, False, True, None, True]
    assert result.flags[3].evidence["error"] == "RuntimeError: boom"
    s = result.summary()
    assert (s["probes"], s["answered"], s["failed"], s["contaminated"]) == (5, 4, 1, 3)
    assert s["exact_match"] == pytest.approx(3 / 4)
    assert all(f.model == "fake/echo" for f in result.flags)


def test_a_failing_batch_fails_its_items_only() -> None:
    probes = prepare_probes(ITEMS, Mode.MULTICHOICE).probes
    flags = run_probes(_broken(), probes, batch_size=4, model_name="named")
    assert [f.contaminated for f in flags] == [None] * 5
    assert flags[0].evidence["error"] == "ConnectionError: server down" and flags[0].model == "named"


def test_limit_and_empty_summary_is_nan() -> None:
    result = ts_guess(_broken(), ITEMS, "question", limit=2)
    assert len(result.flags) == 2
    with pytest.warns(RuntimeWarning, match="no probe was answered"):
        assert math.isnan(result.summary()["exact_match"])
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        run_probes(_broken(), [], batch_size=0)


def test_generation_has_no_stop_string() -> None:
    """Issue 6: a newline stop emptied every reply that began with a blank line."""
    from benchchecker_plugin.tsguessing import DEFAULT_PARAMS, MAX_TOKENS, generation_params

    assert DEFAULT_PARAMS.stop == () and DEFAULT_PARAMS.temperature == 0.0
    assert DEFAULT_PARAMS.max_tokens == MAX_TOKENS
    assert generation_params(8).stop == () and generation_params(8).max_tokens == 8


def test_replies_starting_with_a_newline_are_answers() -> None:
    """Every reply is the masked option after blank lines and an announcement, then more text, as
    SmolLM2's are; the generation parameters asked with are recorded."""
    probes = prepare_probes(ITEMS, Mode.MULTICHOICE).probes
    model = ScriptedModel({p.prompt: f"\n\nThe answer is:\nB: {p.target}\n\nQuestion: next" for p in probes},
                          spec="fake/newline")
    result = ts_guess(model, ITEMS, "multichoice", batch_size=4)
    assert [f.evidence["answer"] for f in result.flags] == [p.target for p in probes]
    assert all(f.contaminated for f in result.flags)
    assert {p.stop for p in model.params} == {()}
