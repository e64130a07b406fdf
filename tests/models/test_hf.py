"""The hf/ backend on the real SmolLM2-135M: batching, stop strings, seeds, chat, token scores."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pytest

from benchchecker_plugin.models import GenerationParams

if TYPE_CHECKING:   # the hf backend imports torch and transformers: not at collection
    from benchchecker_plugin.models import HFModel

pytestmark = pytest.mark.model

PROMPTS = [
    "The capital of France is",
    "def fibonacci(n):",
    "Once upon a time, in a small village by the sea, there lived",
    "1, 2, 3,",
    "import numpy as np\nimport",
]


def test_batched_equals_one_at_a_time_under_greedy(smollm2_model: HFModel) -> None:
    params = GenerationParams(max_tokens=8)
    batched = smollm2_model.generate(PROMPTS, params)
    single = [smollm2_model.generate([p], params)[0] for p in PROMPTS]
    assert [c.text for c in batched] == [c.text for c in single]
    assert all(c.ok and c.text for c in batched)
    assert batched[3].text.startswith(" 4, 5")  # the model really continues the prompt


def test_stop_string_ends_the_answer(smollm2_model: HFModel) -> None:
    free = smollm2_model.generate(["def fibonacci(n):"], GenerationParams(max_tokens=8))[0]
    assert "\n" in free.text and free.finish_reason == "length"
    params = GenerationParams(max_tokens=8, stop=("if",))
    stopped = smollm2_model.generate(["def fibonacci(n):"], params)[0]
    assert stopped.finish_reason == "stop"
    assert stopped.text == free.text[:free.text.index("if")]


def test_sampling_is_seeded_per_prompt(smollm2_model: HFModel) -> None:
    from benchchecker_plugin.models._decoding import prompt_seed

    params = GenerationParams(max_tokens=6, temperature=1.0, seed=7)
    first = smollm2_model.generate(["Tell me a joke", "Name a color"], params)
    again = smollm2_model.generate(["Name a color", "Tell me a joke"], params)
    assert [c.text for c in first] == [c.text for c in reversed(again)]
    other_seed = [smollm2_model.generate(["Tell me a joke"], GenerationParams(
        max_tokens=6, temperature=1.0, seed=s))[0].text for s in range(3)]
    assert len(set(other_seed)) > 1
    assert prompt_seed(7, "a") != prompt_seed(7, "b") and prompt_seed(7, "a") == prompt_seed(7, "a")


def test_chat_template_is_applied_only_with_chat(smollm2_model: HFModel) -> None:
    assert smollm2_model._format("Hi") == "Hi"
    chat = smollm2_model.with_chat()
    assert chat.model is smollm2_model.model and not smollm2_model.chat
    assert chat.cache_identity == "hf/smollm2-135m?chat=1" != smollm2_model.cache_identity
    formatted = chat._format("Hi")
    answer = chat.generate(["What is the capital of France?"], GenerationParams(max_tokens=10))[0]
    assert formatted.startswith("<|im_start|>system") and formatted.endswith("<|im_start|>assistant\n")
    assert "Paris" in answer.text


def test_token_scores_match_a_manual_forward_pass(smollm2_model: HFModel) -> None:
    import torch

    texts = ["Hello world, this is a test.", "x", "The quick brown fox jumps over the lazy dog again"]
    scores = smollm2_model.token_scores(texts)
    tok, model = smollm2_model.tokenizer, smollm2_model.model
    for text, s in zip(texts, scores):
        ids = tok(text)["input_ids"]
        assert len(s.tokens) == len(s.offsets) == len(s.logprobs) == len(s.mu) == len(s.sigma) == len(ids) - 1
        assert list(s.tokens) == tok.convert_ids_to_tokens(ids[1:])
        ends = [b for _, b in s.offsets]
        assert ends == sorted(ends) and (not ends or ends[-1] == len(text))
        assert all(a < b for a, b in s.offsets)
        if len(ids) < 2:
            continue
        with torch.inference_mode():
            logits = model(torch.tensor([ids])).logits[0].double()
        logp = torch.log_softmax(logits, -1).numpy()
        expected = np.array([logp[i, ids[i + 1]] for i in range(len(ids) - 1)])
        np.testing.assert_allclose(s.logprobs, expected, atol=2e-4)  # batched (padded) vs alone
        p = np.exp(logp[:-1])
        mu = (p * logp[:-1]).sum(-1)
        np.testing.assert_allclose(s.mu, mu, atol=2e-4)
        np.testing.assert_allclose(s.sigma, np.sqrt((p * (logp[:-1] - mu[:, None]) ** 2).sum(-1)), atol=2e-4)
        assert np.all(s.logprobs <= 0) and np.all(s.sigma > 0)
    assert scores[1].logprobs.shape == (0,)  # one token: nothing to score


def test_token_scores_follow_the_token_budget_and_chunks(smollm2_model: HFModel, monkeypatch) -> None:
    """Regression: scoring padded every batch to its longest file and kept batch x length x
    vocabulary scores in memory (20 GB on six 6,000-token files). Batches now respect a token
    budget and statistics are computed in chunks of positions; neither changes a score."""
    import benchchecker_plugin.models._hf as hf
    from benchchecker_plugin.models import HFModel

    texts = ["def f(x):\n    return x * 2\n" * k for k in (1, 3, 9, 2)]
    reference = smollm2_model.token_scores(texts)
    monkeypatch.setattr(hf, "_SCORE_CHUNK", 7)
    monkeypatch.setattr(smollm2_model, "score_token_budget", 40)
    calls: list[int] = []
    real = smollm2_model._score_batch
    monkeypatch.setattr(smollm2_model, "_score_batch", lambda batch: calls.append(len(batch)) or real(batch))
    small = smollm2_model.token_scores(texts)
    longest = max(len(smollm2_model.tokenizer(t)["input_ids"]) for t in texts)
    assert longest > 40 and max(calls) < len(texts) and sum(calls) == len(texts)
    for a, b in zip(reference, small):
        assert a.tokens == b.tokens and a.offsets == b.offsets
        for x, y in ((a.logprobs, b.logprobs), (a.mu, b.mu), (a.sigma, b.sigma)):
            np.testing.assert_allclose(x, y, atol=2e-4)
    with pytest.raises(ValueError, match="score_token_budget"):
        HFModel("hf/x", "/nonexistent", score_token_budget=0)


def test_prompt_longer_than_the_context_keeps_its_end(tmp_path, smollm2_folder) -> None:
    """Regression: a prompt + max_tokens beyond the model's context crashed in the position
    embeddings; the prompt is now cut from the left, as the continuation depends on its end."""
    from transformers import AutoTokenizer

    from benchchecker_plugin.models import HFModel, tiny_gpt2

    tok = AutoTokenizer.from_pretrained(smollm2_folder)
    tiny = tiny_gpt2(tok, n_positions=32, n_embd=16, n_layer=1, n_head=2, eos_in_config=False, seed=0)
    tiny.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    model = HFModel("hf/tiny", str(tmp_path), batch_size=2)
    assert model.context_length == 32
    params = GenerationParams(max_tokens=4)
    long_prompt = " ".join(f"word{i}" for i in range(60))
    ids = tok(long_prompt)["input_ids"]
    assert len(ids) > 32
    tail = tok.decode(ids[-28:])
    (got,) = model.generate([long_prompt], params)
    assert got.ok, got.error
    assert got.text == model.generate([tail], params)[0].text
    (bad,) = model.generate(["x"], GenerationParams(max_tokens=40))
    assert bad.error == ("ModelError: hf/tiny: max_tokens=40 leaves no room for the prompt in a context "
                         "of 32 tokens")


def test_loading_prints_no_transformers_progress_bar(tmp_path, smollm2_folder, capfd) -> None:
    """transformers 5 draws a "Loading weights" bar on every load; ours is quiet, and the caller's
    own setting of transformers' bars is given back afterwards."""
    from transformers import AutoTokenizer
    from transformers.utils import logging as hf_logging

    from benchchecker_plugin.models import HFModel, tiny_gpt2

    tok = AutoTokenizer.from_pretrained(smollm2_folder)
    tiny_gpt2(tok, n_positions=32, n_embd=16, n_layer=1, n_head=2, seed=0).save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    hf_logging.enable_progress_bar()
    capfd.readouterr()
    HFModel("hf/tiny", str(tmp_path))
    assert "Loading weights" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()
