"""Probe counting, with a scripted stand-in for a model backend (the Protocol's input side)."""

from dataclasses import dataclass

import pytest

from benchchecker_plugin.stage1 import Query, probe
from tests.helpers import ScriptedModel  # answers keyed by (prompt, seed) or prompt; records batch sizes

Q1 = Query("a.py", 1, "q1", "alpha_one", "p")
Q2 = Query("a.py", 2, "q2", "beta_two", "p")
Q3 = Query("a.py", 3, "q3", "gamma_three", "p")


def test_hits_majority_and_failures():
    model = ScriptedModel({("q1", 0): " alpha_one(", ("q1", 1): " alpha_one", ("q1", 2): " nope",
                           "q2": " beta_twoo", })
    res = probe(model, [Q1, Q2, Q3], n_samples=3, batch_size=2)
    r1, r2, r3 = res
    assert (r1.hits, r1.ok, r1.hit) == (2, 3, True)
    assert (r2.hits, r2.hit) == (0, False)
    assert r3.failed and not r3.hit and r3.errors == 3
    # 2 batches (prompts sorted by length), each sent once per seed, its samples one after another
    assert model.batches == [2, 2, 2, 1, 1, 1]


def test_a_crashing_batch_is_recorded_as_errors():
    def down_at_seed_1(prompts, params):  # noqa: ANN001, ANN202
        return RuntimeError("server down") if params.seed == 1 else None

    model = ScriptedModel({"q1": "alpha_one"}, raises=down_at_seed_1)
    res = probe(model, [Q1], n_samples=2)
    assert res[0].errors == 1 and res[0].hits == 1 and res[0].ok == 1


def test_probe_validates():
    with pytest.raises(ValueError, match="n_samples"):
        probe(ScriptedModel({}), [Q1], n_samples=0)


def test_results_keep_query_order_when_batches_are_sorted_by_length():
    qs = [Query("a.py", i, "x" * (10 - i), f"target_{i}", "p") for i in range(6)]
    model = ScriptedModel({q.query: q.target for q in qs})
    res = probe(model, qs, n_samples=1, batch_size=4)
    assert [r.query for r in res] == qs and all(r.hit for r in res)


def test_generate_samples_path_equals_one_call_per_seed() -> None:
    from benchchecker_plugin.membership import LocalCausalLM
    from benchchecker_plugin.models import tiny_gpt2, train_tokenizer

    tok = train_tokenizer(["def alpha_one(x):\n    return beta_two(x)\n"] * 8, 280)
    lm = LocalCausalLM(tiny_gpt2(tok, n_positions=64, n_embd=16, n_layer=1, n_head=2, eos_in_config=False,
                                 seed=0), tok, "local/tiny", batch_size=2)

    @dataclass
    class PerSeed:  # the same model without generate_samples: one generate call per seed
        spec = "local/tiny"

        def generate(self, prompts, params):
            return lm.generate(prompts, params)

    queries = [Q1, Q2, Q3]
    calls = lm.calls
    together = probe(lm, queries, n_samples=4, batch_size=2, seed=3)
    assert lm.calls == calls + 2  # two batches, all four samples of each in one call
    apart = probe(PerSeed(), queries, n_samples=4, batch_size=2, seed=3)
    assert lm.calls == calls + 2 + 8
    assert [r.samples for r in together] == [r.samples for r in apart]
    assert all(len(r.samples) == 4 and r.errors == 0 for r in together)
