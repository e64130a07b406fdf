import numpy as np
import pytest

from benchchecker_plugin.membership import LocalCausalLM
from benchchecker_plugin.models import GenerationParams, LogprobModel, TextModel

pytestmark = pytest.mark.model

TEXT = "def add(a, b):\n    return a + b\n\nclass Box:\n    size = 3\n" * 4


@pytest.fixture(scope="module")
def lm():
    from benchchecker_plugin.models import tiny_gpt2, train_tokenizer

    tok = train_tokenizer([TEXT], 280)
    model = tiny_gpt2(tok, n_positions=16, n_embd=32, n_layer=1, n_head=2, eos_in_config=False, seed=0)
    return LocalCausalLM(model, tok, "local/test", batch_size=3)


def _direct(lm, ids):
    import torch

    with torch.no_grad():
        logits = lm.model(input_ids=torch.tensor([ids])).logits[0].double()
    logp = torch.log_softmax(logits[:-1], -1)
    return logp.gather(-1, torch.tensor(ids[1:]).unsqueeze(-1)).squeeze(-1).numpy(), logp


def test_protocols(lm):
    assert isinstance(lm, TextModel) and isinstance(lm, LogprobModel)


def test_token_scores_match_direct_computation_within_one_window(lm):
    import torch

    text = "def add(a, b):"
    ids = lm.tokenizer(text, add_special_tokens=False)["input_ids"]
    assert len(ids) <= 16
    (ts,) = lm.token_scores([text])
    ref, logp = _direct(lm, ids)
    np.testing.assert_allclose(ts.logprobs, ref, rtol=1e-5, atol=1e-5)
    p = logp.exp()
    mu = (p * logp).sum(-1).numpy()
    np.testing.assert_allclose(ts.mu, mu, rtol=1e-5, atol=1e-5)
    sd = (p * (logp - torch.tensor(mu)[:, None]) ** 2).sum(-1).sqrt().numpy()  # float64, centred
    np.testing.assert_allclose(ts.sigma, sd, rtol=1e-5, atol=1e-5)
    assert [text[s:e] for s, e in ts.offsets] == lm.tokenizer.convert_ids_to_tokens(ids[1:]) or \
        "".join(text[s:e] for s, e in ts.offsets) == text[ts.offsets[0][0]:]


def test_long_text_slides_windows_and_scores_every_token_once(lm):
    ids = lm.tokenizer(TEXT, add_special_tokens=False)["input_ids"]
    assert len(ids) > 40
    ts_long, ts_short = lm.token_scores([TEXT, "def add"])  # mixed lengths in one batch
    assert ts_long.logprobs.shape == (len(ids) - 1,) == ts_long.mu.shape
    ref, _ = _direct(lm, ids[:16])
    np.testing.assert_allclose(ts_long.logprobs[:15], ref, rtol=1e-5, atol=1e-5)
    # token 16+ are scored in the second window (start 8), with 8 tokens of context
    ref2, _ = _direct(lm, ids[8:24])
    np.testing.assert_allclose(ts_long.logprobs[15:23], ref2[7:15], rtol=1e-5, atol=1e-5)
    assert len(ts_short.logprobs) == len(lm.tokenizer("def add", add_special_tokens=False)["input_ids"]) - 1


def test_generate_is_seeded_and_batched(lm):
    p = GenerationParams(max_tokens=5, temperature=1.0, seed=3)
    a = lm.generate(["def add", "class Box", "x"], p)
    b = lm.generate(["def add", "class Box", "x"], p)
    assert [c.text for c in a] == [c.text for c in b] and len(a) == 3 and all(c.ok for c in a)
    greedy = lm.generate(["def add"], GenerationParams(max_tokens=5, temperature=0.0))
    assert greedy[0].ok


def test_generate_samples_equal_one_request_per_seed(lm):
    prompts = ["def add", "class Box", "x", "return a"]
    p = GenerationParams(max_tokens=6, temperature=1.0, seed=10)
    calls = lm.calls
    samples = lm.generate_samples(prompts, p, 4)
    assert lm.calls == calls + 1
    for s in range(4):
        one = lm.generate(prompts, GenerationParams(max_tokens=6, temperature=1.0, seed=10 + s))
        assert [c.text for c in one] == [smp[s].text for smp in samples]
    assert all(len({c.text for c in smp}) > 1 for smp in samples[:2])  # samples differ across seeds
    greedy = lm.generate_samples(prompts, GenerationParams(max_tokens=6), 3)
    assert all(len({c.text for c in smp}) == 1 for smp in greedy)
    with pytest.raises(ValueError, match="n must be >= 1"):
        lm.generate_samples(prompts, p, 0)
