"""Shared-prompt-prefix caching: which prompts share what (against a brute-force reference), and
generation with shared prefixes equal to generation without, token for token (greedy) and sample
for sample (seeded), for prompts that share nothing, part or all of their text, in mixed batches."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.models import GenerationParams
from benchchecker_plugin.models._prefix import PrefixPlan, shared_prefixes

if TYPE_CHECKING:   # torch and transformers are imported by the tests, not at collection
    from transformers import GPT2LMHeadModel


def _lcp(a: list[int], b: list[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def test_groups_by_hand() -> None:
    head = list(range(100, 120))                                   # 20 shared tokens
    rows = [head + [1, 2], [7, 8, 9], head + [3], head + [1, 2, 5], [7, 8, 9, 10]]
    plan = shared_prefixes(rows, min_tokens=16)
    # the three rows beginning with head share it (all 20 tokens; the shortest keeps 1 of its own);
    # the [7, 8, 9...] pair shares 3 < 16 tokens: no group prefix
    assert plan.lengths == (20, 0, 20, 20, 0)
    assert plan.groups[0] == plan.groups[2] == plan.groups[3] != plan.groups[1]
    assert sorted(plan.order) == list(range(5))
    # a group's rows are neighbours in the order, shortest first
    pos = [plan.order.index(i) for i in (2, 0, 3)]
    assert pos == list(range(min(pos), min(pos) + 3))
    assert plan.shared_tokens == 2 * 20


def test_every_row_keeps_a_token_of_its_own() -> None:
    head = list(range(50, 70))
    plan = shared_prefixes([head, head, head + [1]], min_tokens=4)
    assert plan.lengths == (19, 19, 19)     # identical prompts: all but the last token shared


def test_no_group_below_min_tokens_and_validation() -> None:
    assert shared_prefixes([[1, 2, 3], [1, 2, 4]], min_tokens=4).lengths == (0, 0)
    assert shared_prefixes([], min_tokens=4) == PrefixPlan((), (), ())
    with pytest.raises(InputError, match="min_tokens must be >= 1, got 0"):
        shared_prefixes([[1]], min_tokens=0)


@pytest.mark.parametrize("seed", range(30))
def test_plan_matches_a_brute_force_reference(seed: int) -> None:
    """Rows of different groups share fewer than min_tokens leading tokens (the groups are
    maximal); within a group the shared length is exactly the group's common prefix, cut to keep
    one token of every row, or 0 when that is under min_tokens."""
    rng = random.Random(seed)
    heads = [[rng.randrange(4) for _ in range(rng.randrange(0, 12))] for _ in range(3)]
    rows = [rng.choice(heads) + [rng.randrange(4) for _ in range(rng.randrange(1, 6))] for _ in range(12)]
    k = 4
    plan = shared_prefixes(rows, min_tokens=k)
    for i in range(len(rows)):
        for j in range(len(rows)):
            if plan.groups[i] != plan.groups[j]:
                assert _lcp(rows[i], rows[j]) < k
    for g in set(plan.groups):
        members = [i for i, x in enumerate(plan.groups) if x == g]
        common = min(_lcp(rows[members[0]], rows[i]) for i in members)
        expect = min(common, min(len(rows[i]) for i in members) - 1)
        expect = expect if len(members) > 1 and expect >= k else 0
        assert {plan.lengths[i] for i in members} == {expect}
    assert sorted(plan.order) == list(range(len(rows)))


@pytest.fixture(scope="module")
def tiny() -> tuple[GPT2LMHeadModel, object]:
    from benchchecker_plugin.models import tiny_gpt2, train_tokenizer

    texts = ["def add(a, b):\n    return a + b\n", "class Point:\n    x: int = 0\n    y: int = 0\n",
             "Below is a question from a published benchmark. Write the hidden option.\n"] * 20
    tok = train_tokenizer(texts, 300)
    model = tiny_gpt2(tok, n_positions=256, n_embd=32, n_layer=2, n_head=2, seed=0).eval()
    return model, tok


HEAD = "Below is a question from a published benchmark. Write the hidden option exactly as written.\n"
PROMPTS = [HEAD + "Question: def add(a, b)", "class Point:", HEAD + "Question: class Point: x",
           HEAD + "Question: def add(a, b)",                     # the same text twice
           HEAD + "Q", "for i in range(10):", HEAD + "Question: def add(a, b):\n    return a + b"]


def _models(tiny, batch_size: int):   # type: ignore[no-untyped-def]
    from benchchecker_plugin.models import HFModel

    model, tok = tiny
    plain = HFModel.from_model(model, tok, "hf/tiny", batch_size=batch_size, prefix_cache_mb=0,
                               prefill_cache_mb=0)
    shared = HFModel.from_model(model, tok, "hf/tiny", batch_size=batch_size)
    return plain, shared


@pytest.mark.parametrize("batch_size", [1, 3, 8])
@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_shared_prefix_generation_equals_unshared(tiny, batch_size: int, temperature: float) -> None:
    plain, shared = _models(tiny, batch_size)
    params = GenerationParams(max_tokens=12, temperature=temperature, seed=5)
    want = [c.text for c in plain.generate(PROMPTS, params)]
    got = [c.text for c in shared.generate(PROMPTS, params)]
    assert got == want
    assert shared.prefixes is not None and shared.prefixes.misses >= 1   # a prefix was read apart
    samples = GenerationParams(max_tokens=8, temperature=1.0, seed=2)
    assert [[c.text for c in r] for r in shared.generate_samples(PROMPTS, samples, 3)] == \
        [[c.text for c in r] for r in plain.generate_samples(PROMPTS, samples, 3)]


def _to_eos(ids: list[int], tok) -> list[int]:   # type: ignore[no-untyped-def]
    """``ids`` up to and including the first end-of-sequence token."""
    return ids[:ids.index(tok.eos_token_id) + 1] if tok.eos_token_id in ids else ids


def test_token_ids_equal_in_a_mixed_batch(tiny) -> None:
    """Rows of one batch with different prefixes (and none), pads before and after the prefixes."""
    from benchchecker_plugin.models._decoding import generate_ids
    from benchchecker_plugin.models._prefix import PrefixStore

    model, tok = tiny
    a, b = list(range(40, 60)), list(range(70, 95))
    rows = [a + [1, 2, 3], b + [4], [5, 6, 7, 8], a + [9], b + [10, 11, 12, 13, 14]]
    lengths = [20, 25, 0, 20, 25]
    pad = tok.pad_token_id or 0
    for temperature in (0.0, 1.0):
        params = GenerationParams(max_tokens=10, temperature=temperature, seed=1)
        seeds = [1, 2, 3, 4, 5] if temperature else None
        alone = [generate_ids(model, tok, [r], params, seeds=[s] if seeds else None, pad_token_id=pad)[0]
                 for r, s in zip(rows, seeds or [0] * 5)]
        store = PrefixStore()
        shared = generate_ids(model, tok, rows, params, seeds=seeds, pad_token_id=pad,
                              shared=(lengths, store))
        # A row that ends (end of sequence) stops alone and is padded in a batch: compare up to the end.
        assert [_to_eos(r, tok) for r in shared] == [_to_eos(r, tok) for r in alone]
        assert (store.misses, store.nbytes > 0) == (2, True)


def test_prefix_store_is_lru_within_its_budget(tiny) -> None:
    from benchchecker_plugin.models._prefix import PrefixStore

    model, _ = tiny
    one = PrefixStore().get(model, tuple(range(30)))
    size = sum(int(k.nbytes) + int(v.nbytes) for k, v in one)
    store = PrefixStore(max_bytes=size * 2)
    for p in (tuple(range(30)), tuple(range(1, 31)), tuple(range(30)), tuple(range(2, 32))):
        store.get(model, p)
    assert (store.hits, store.misses) == (1, 3)
    assert store.nbytes <= 2 * size
    store.get(model, tuple(range(1, 31)))          # evicted: the least recently used
    assert store.misses == 4
    with pytest.raises(InputError, match="PrefixStore max_bytes must be >= 0, got -1"):
        PrefixStore(-1)


def test_mmlu_probes_on_smollm2_equal_with_and_without_shared_prefixes(smollm2_model, shared_data) -> None:
    """The real model on real TS-Guessing probes (one subject: they share the hint and instruction):
    greedy answers and seeded samples are the same with shared prefixes as without."""
    import copy

    from benchchecker_plugin.tsguessing import DEFAULT_PARAMS, load_mmlu, prepare_probes

    prompts = [p.prompt for p in prepare_probes(load_mmlu(shared_data / "mmlu")[:60], "multichoice").probes[:8]]
    plain = copy.copy(smollm2_model)
    plain.prefixes, plain.prefill = None, None
    shared = copy.copy(smollm2_model)
    from benchchecker_plugin.models._prefix import PrefixStore

    shared.prefixes = PrefixStore()
    assert [c.text for c in shared.generate(prompts, DEFAULT_PARAMS)] == \
        [c.text for c in plain.generate(prompts, DEFAULT_PARAMS)]
    assert shared.prefixes.misses >= 1
    sampled = GenerationParams(max_tokens=8, temperature=1.0, seed=4)
    assert [[c.text for c in r] for r in shared.generate_samples(prompts[:4], sampled, 2)] == \
        [[c.text for c in r] for r in plain.generate_samples(prompts[:4], sampled, 2)]


def test_shared_prefix_share_counts_the_tokens_read_once() -> None:
    """``shared_prefix_share``: over prompts tokenised one token per character, the share of their
    tokens that their groups' shared beginnings save (a 20-character head in three prompts: two of
    them read it from the group: 40 of 73 tokens)."""
    from benchchecker_plugin.models._decoding import BatchedDecoder
    from benchchecker_plugin.models._prefix import MIN_SHARED_TOKENS

    class Chars(BatchedDecoder):
        def _prompt_ids(self, prompt: str, params: GenerationParams) -> list[int]:
            return [ord(c) for c in prompt]

    head = "h" * max(20, MIN_SHARED_TOKENS)
    prompts = [head + "ab", "xyz", head + "c", head + "abd", "xyzw"]
    total = sum(map(len, prompts))
    got = Chars().shared_prefix_share(prompts, GenerationParams())
    assert got == pytest.approx(2 * len(head) / total)
    assert Chars().shared_prefix_share([], GenerationParams()) == 0.0
