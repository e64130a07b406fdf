import pytest

from benchchecker_plugin.membership import TrainConfig, train_gpt2

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
