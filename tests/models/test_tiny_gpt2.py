"""The one small-GPT-2 builder (``models/_tiny_gpt2.py``): tokenizer roles, config options, seeding."""

from __future__ import annotations

import pytest

from benchchecker_plugin.models._tiny_gpt2 import EOS, tiny_gpt2, train_tokenizer

TEXTS = ["def add(a, b):\n    return a + b\n", "class Box:\n    size = 3\n"] * 4


def test_tokenizer_has_one_special_token_in_the_given_roles() -> None:
    tok = train_tokenizer(TEXTS, 280, roles=("eos", "pad"))
    assert tok.eos_token == tok.pad_token == EOS and tok.bos_token is None and tok.unk_token is None
    assert tok.all_special_tokens == [EOS]
    ids = tok("def add", add_special_tokens=True)["input_ids"]
    assert ids == tok("def add", add_special_tokens=False)["input_ids"]  # nothing is added
    assert tok.decode(tok(TEXTS[0])["input_ids"]) == TEXTS[0]
    with pytest.raises(ValueError, match="unknown token roles \\['sep'\\]"):
        train_tokenizer(TEXTS, 280, roles=("eos", "sep"))


def test_model_follows_tokenizer_sizes_options_and_seed() -> None:
    import torch

    tok = train_tokenizer(TEXTS, 280)
    a = tiny_gpt2(tok, n_positions=16, n_embd=32, n_layer=1, n_head=2, dropout=0.0, seed=5)
    b = tiny_gpt2(tok, n_positions=16, n_embd=32, n_layer=1, n_head=2, dropout=0.0, seed=5)
    c = tiny_gpt2(tok, n_positions=16, n_embd=32, n_layer=1, n_head=2, seed=6, eos_in_config=False)
    cfg = a.config
    assert (cfg.vocab_size, cfg.n_positions, cfg.n_embd, cfg.n_layer, cfg.n_head) == (len(tok), 16, 32, 1, 2)
    assert cfg.bos_token_id == cfg.eos_token_id == tok.eos_token_id
    assert cfg.resid_pdrop == cfg.embd_pdrop == cfg.attn_pdrop == 0.0
    assert c.config.eos_token_id != tok.eos_token_id and c.config.resid_pdrop > 0  # GPT-2 defaults
    weights = [m.transformer.wte.weight for m in (a, b, c)]
    assert torch.equal(weights[0], weights[1]) and not torch.equal(weights[0], weights[2])
