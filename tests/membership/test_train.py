from dataclasses import replace

import pytest

from benchchecker_plugin.membership import TrainConfig, train_gpt2
from benchchecker_plugin.membership._train import lr_factor

pytestmark = pytest.mark.model

TEXTS = ["def area(w, h):\n    return w * h  # rectangle\n" * 6,
         "class Stack:\n    def push(self, item):\n        self.items.append(item)\n" * 6]


def test_training_records_and_learns():
    cfg = TrainConfig(vocab_size=300, n_layer=1, n_embd=32, n_head=2, n_ctx=32, batch_size=4,
                      steps=40, weak_step=5, lr=5e-3, warmup=2)
    tr = train_gpt2(TEXTS, cfg)
    rec = tr.record
    assert rec["config"]["steps"] == 40 and rec["config"]["seed"] == 0
    assert rec["parameters"] > 0 and rec["train_tokens"] > 32
    assert rec["loss_final"] < rec["loss_at_weak"]
    assert tr.strong.spec.endswith("-strong") and tr.weak.spec.endswith("-weak")
    # the two regimes are different models over one tokenizer
    s = tr.strong.token_scores([TEXTS[0]])[0].logprobs.mean()
    w = tr.weak.token_scores([TEXTS[0]])[0].logprobs.mean()
    assert s > w


def test_bad_config():
    with pytest.raises(ValueError, match="weak_step"):
        train_gpt2(TEXTS, TrainConfig(steps=5, weak_step=6))


def test_lr_factor_warms_up_holds_until_the_weak_step_then_decays_linearly():
    cfg = TrainConfig(steps=100, weak_step=20, warmup=10, decay_to=0.1)
    f = [lr_factor(cfg, s) for s in range(cfg.steps)]
    assert f[0] == pytest.approx(0.1) and f[9] == 1.0
    assert f[10:cfg.weak_step + 1] == [1.0] * (cfg.weak_step - 9)  # the weak checkpoint is unaffected
    assert all(a > b for a, b in zip(f[cfg.weak_step + 1:], f[cfg.weak_step + 2:]))
    assert f[60] == pytest.approx(1 - 0.9 * 40 / 80)
    assert lr_factor(cfg, cfg.steps) == pytest.approx(0.1)
    # default: constant after the warm-up
    assert {lr_factor(TrainConfig(steps=50, weak_step=5), s) for s in range(20, 50)} == {1.0}


def test_decay_keeps_the_weak_model_and_changes_the_strong_one():
    """Guards the schedule: the weak checkpoint does not depend on the decay; the decayed strong
    model differs from the constant-rate one."""
    base = TrainConfig(vocab_size=300, n_layer=1, n_embd=32, n_head=2, n_ctx=32, batch_size=4,
                       steps=40, weak_step=10, lr=5e-3, warmup=2)
    const, decayed = train_gpt2(TEXTS, base), train_gpt2(TEXTS, replace(base, decay_to=0.05))
    assert const.record["loss_at_weak"] == decayed.record["loss_at_weak"]
    w1 = const.weak.token_scores([TEXTS[1]])[0].logprobs
    w2 = decayed.weak.token_scores([TEXTS[1]])[0].logprobs
    assert (w1 == w2).all()
    s1 = const.strong.token_scores([TEXTS[1]])[0].logprobs
    s2 = decayed.strong.token_scores([TEXTS[1]])[0].logprobs
    assert not (s1 == s2).all()
    with pytest.raises(ValueError, match="decay_to"):
        train_gpt2(TEXTS, replace(base, decay_to=0.0))
