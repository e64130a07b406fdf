"""Batched decoding: per-row seeded sampling, the prefill cache, and outputs that do not depend on
batching or on prefill reuse (a small GPT-2 built from config, and the real SmolLM2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from benchchecker_plugin.models import GenerationParams

if TYPE_CHECKING:   # torch and transformers are imported by the tests, not at collection
    from transformers import GPT2LMHeadModel


@pytest.fixture(scope="module")
def tiny() -> tuple[GPT2LMHeadModel, object]:
    from benchchecker_plugin.models import tiny_gpt2, train_tokenizer

    texts = ["def add(a, b):\n    return a + b\n", "class Point:\n    x: int = 0\n    y: int = 0\n",
             "for i in range(10):\n    print(i * i)\n"] * 20
    tok = train_tokenizer(texts, 300)
    model = tiny_gpt2(tok, n_positions=128, n_embd=32, n_layer=2, n_head=2, seed=0).eval()
    return model, tok


ROWS = [[5, 6, 7], [8, 9, 10, 11, 12, 13, 14], [20], [30, 31, 32, 33]]


def _gen(model, tok, rows, params, seeds, prefill=None):
    from benchchecker_plugin.models._decoding import generate_ids

    return generate_ids(model, tok, rows, params, seeds=seeds, pad_token_id=tok.pad_token_id or 0,
                        prefill=prefill)


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_output_does_not_depend_on_batching_or_prefill_reuse(tiny, temperature) -> None:
    from benchchecker_plugin.models._decoding import PrefillCache

    model, tok = tiny
    params = GenerationParams(max_tokens=10, temperature=temperature, seed=3)
    seeds = [11, 12, 13, 14]
    alone = [_gen(model, tok, [r], params, [s])[0] for r, s in zip(ROWS, seeds)]
    cache = PrefillCache()
    batched = _gen(model, tok, ROWS, params, seeds, cache)
    reused = _gen(model, tok, ROWS, params, seeds, cache)
    assert batched == alone == reused
    assert (cache.misses, cache.hits) == (1, 1)
    assert all(len(x) == 10 for x in batched)


def test_greedy_equals_transformers_own_generate(tiny) -> None:
    """Our KV cache (grown in place, prefill computed apart, rows repeated) changes no token."""
    import torch

    from benchchecker_plugin.models._decoding import PrefillCache, generate_ids

    model, tok = tiny
    pad = tok.pad_token_id or 0
    width = max(len(r) for r in ROWS)
    ids = torch.tensor([[pad] * (width - len(r)) + r for r in ROWS])
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in ROWS])
    with torch.inference_mode():
        plain = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=12, do_sample=False,
                               pad_token_id=pad)[:, width:].tolist()
    ours = generate_ids(model, tok, ROWS, GenerationParams(max_tokens=12), pad_token_id=pad,
                        prefill=PrefillCache(), repeat=3)
    assert ours == [row for row in plain for _ in range(3)]


def test_samples_differ_by_seed_and_repeat_by_seed(tiny) -> None:
    from benchchecker_plugin.models._decoding import PrefillCache

    model, tok = tiny
    params = GenerationParams(max_tokens=8, temperature=1.0)
    cache = PrefillCache()
    a = _gen(model, tok, ROWS, params, [1, 2, 3, 4], cache)
    b = _gen(model, tok, ROWS, params, [5, 6, 7, 8], cache)  # same prompts, other seeds: reused prefill
    assert cache.hits == 1
    assert sum(x != y for x, y in zip(a, b)) >= 3
    assert _gen(model, tok, ROWS, params, [1, 2, 3, 4]) == a


def test_row_sampler_draws_each_row_from_its_own_generator() -> None:
    import torch

    from benchchecker_plugin.models._decoding import RowSampler

    torch.manual_seed(0)
    scores = torch.randn(3, 50)
    together = RowSampler([1, 2, 3], 1.0)(None, scores)
    for i, seed in enumerate([1, 2, 3]):
        alone = RowSampler([seed], 1.0)(None, scores[i:i + 1])
        assert torch.equal(together[i], alone[0])
    assert ((together == 0).sum(dim=1) == 1).all()  # one finite logit per row
    assert torch.isinf(together).sum() == 3 * 49


def test_row_sampler_matches_the_softmax_distribution() -> None:
    import torch

    from benchchecker_plugin.models._decoding import RowSampler

    scores = torch.tensor([[2.0, 1.0, 0.0, -1.0]])
    n = 4000
    counts = torch.zeros(4)
    sampler = RowSampler([0], temperature=1.0)
    for _ in range(n):
        counts[int(sampler(None, scores).argmax())] += 1
    expected = torch.softmax(scores[0], dim=0) * n
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 16.3  # 3 degrees of freedom, p = 0.001


def test_top_p_keeps_only_the_nucleus() -> None:
    import torch

    from benchchecker_plugin.models._decoding import RowSampler

    scores = torch.log(torch.tensor([[0.5, 0.3, 0.15, 0.05]]))
    seen = {int(RowSampler([s], 1.0, top_p=0.7)(None, scores).argmax()) for s in range(300)}
    assert seen == {0, 1}  # 0.5 + 0.3 reaches 0.7; the tail is never drawn
    assert {int(RowSampler([s], 1.0, top_p=0.1)(None, scores).argmax()) for s in range(50)} == {0}


def test_zero_probability_tokens_are_never_drawn() -> None:
    import torch

    from benchchecker_plugin.models._decoding import RowSampler

    scores = torch.tensor([[float("-inf"), 0.0, float("-inf"), 0.0, float("-inf")]])
    assert {int(RowSampler([s], 1.0)(None, scores).argmax()) for s in range(200)} == {1, 3}


def test_row_sampler_validates() -> None:
    import torch

    from benchchecker_plugin.models._decoding import RowSampler

    with pytest.raises(ValueError, match="temperature > 0"):
        RowSampler([1], 0.0)
    with pytest.raises(ValueError, match="top_p"):
        RowSampler([1], 1.0, top_p=0.0)
    with pytest.raises(ValueError, match="1 generators for a batch of 2"):
        RowSampler([1], 1.0)(None, torch.zeros(2, 4))


def test_prefill_cache_is_lru_within_its_byte_budget(tiny) -> None:
    from benchchecker_plugin.models._decoding import PrefillCache

    model, tok = tiny
    params = GenerationParams(max_tokens=2)
    probe = PrefillCache()
    _gen(model, tok, [ROWS[1]], params, [0], probe)
    one = probe.nbytes
    assert one > 0
    cache = PrefillCache(max_bytes=2 * one)
    for r in ([ROWS[1]], [list(range(40, 47))], [list(range(50, 57))]):
        _gen(model, tok, r, params, [0], cache)
    assert cache.nbytes == 2 * one
    _gen(model, tok, [ROWS[1]], params, [0], cache)  # evicted first: a miss
    _gen(model, tok, [list(range(50, 57))], params, [0], cache)  # still there: a hit
    assert (cache.hits, cache.misses) == (1, 4)
    copy = cache.take(((50, 51, 52, 53, 54, 55, 56),))
    assert copy.get_seq_length() == 6  # all prompt tokens but the last
    assert PrefillCache(max_bytes=one - 1).store(("k",), copy) is False  # too big to keep


def test_generate_ids_validates(tiny) -> None:
    from benchchecker_plugin.models._decoding import PrefillCache, generate_ids

    model, tok = tiny
    with pytest.raises(ValueError, match="at least one token"):
        _gen(model, tok, [[1], []], GenerationParams(max_tokens=2), [0, 0])
    with pytest.raises(ValueError, match="one seed per output"):
        generate_ids(model, tok, [[1]], GenerationParams(max_tokens=2, temperature=1.0), seeds=None,
                     pad_token_id=0)
    with pytest.raises(ValueError, match="max_bytes"):
        PrefillCache(-1)


def test_sample_seeds_are_stable_per_prompt_or_random_without_a_seed() -> None:
    from benchchecker_plugin.models._decoding import sample_seeds

    fixed = GenerationParams(temperature=1.0, seed=4)
    assert sample_seeds("a", fixed, 3) == sample_seeds("a", fixed, 3)
    assert sample_seeds("a", fixed, 3)[1] == sample_seeds("a", GenerationParams(temperature=1.0, seed=5))[0]
    assert sample_seeds("a", fixed) != sample_seeds("b", fixed)
    free = GenerationParams(temperature=1.0, seed=None)
    assert sample_seeds("a", free) != sample_seeds("a", free)
    assert all(0 <= s < 2**63 for s in sample_seeds("x", free, 5))


@pytest.mark.model
def test_sampled_batches_on_smollm2_equal_one_at_a_time(smollm2_model) -> None:
    prompts = ["Tell me a joke", "Name a color", "def fibonacci(n):", "The capital of France is"]
    params = GenerationParams(max_tokens=6, temperature=1.0, seed=5)
    batched = [c.text for c in smollm2_model.generate(prompts, params)]
    single = [smollm2_model.generate([p], params)[0].text for p in prompts]
    assert batched == single
    hits = smollm2_model.prefill.hits
    again = [c.text for c in smollm2_model.generate(prompts, params)]
    assert again == batched and smollm2_model.prefill.hits > hits
