"""Train a small GPT-2 (and its byte-level BPE tokenizer) from scratch on member repositories.

Training text is the member files joined with the end-of-text token; each step samples
``batch_size`` windows of ``n_ctx`` tokens at random offsets (so every token is seen in many
contexts, which is what makes a small model memorise verbatim). Adam, constant learning rate after
a short warm-up; with ``decay_to < 1`` the rate then falls linearly from ``weak_step`` to
``decay_to`` times its value at the last step (a decaying rate memorises in fewer steps: measured
here, 500 decayed steps reached a lower training loss than 800 constant ones; the weak checkpoint
is the same either way), fp32 (bf16 autocast is optional: it is fast only on CPUs with AVX512-BF16 or
AMX; measured 7x slower here without). The state at step ``weak_step`` is kept as the *weak*
memorisation model; the final state is the *strong* one. Everything that determines the models
(config, steps, seed, corpus size) is returned in :attr:`Trained.record`.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from ..models import adamw_steps, tiny_gpt2, torch_threads, train_tokenizer
from ..progress import progress
from ._local_lm import LocalCausalLM

if TYPE_CHECKING:   # torch and transformers are imported when a model is trained, not before
    from ..models import HFModel

@dataclass(frozen=True)
class TrainConfig:
    """Model size and training schedule (defaults: ~4M parameters)."""

    vocab_size: int = 4096
    n_layer: int = 4
    n_embd: int = 256
    n_head: int = 4
    n_ctx: int = 256
    batch_size: int = 16
    lr: float = 2e-3
    warmup: int = 20
    steps: int = 400
    weak_step: int = 60
    decay_to: float = 1.0  # learning-rate factor at the last step (linear from weak_step; 1 = constant)
    seed: int = 0
    threads: int = 1  # under CPU contention one thread trains faster than two
    bf16: bool = False  # bf16 autocast is ~7x slower on CPUs without AVX512-BF16 (measured here)


@dataclass
class Trained:
    """The strong and weak models (sharing one tokenizer) and the training record."""

    strong: HFModel
    weak: HFModel
    record: dict[str, Any] = field(default_factory=dict)


def lr_factor(config: TrainConfig, step: int) -> float:
    """Learning-rate multiplier after ``step`` optimiser steps: linear warm-up over ``warmup``
    steps, constant up to ``weak_step``, then linear to ``decay_to`` at ``steps``."""
    f = min(1.0, (step + 1) / config.warmup)
    span = config.steps - config.weak_step
    if config.decay_to < 1 and span > 0 and step > config.weak_step:
        f *= 1.0 - (1.0 - config.decay_to) * min(1.0, (step - config.weak_step) / span)
    return f


def train_gpt2(texts: Sequence[str], config: TrainConfig = TrainConfig(), *,
               spec: str = "local/gpt2-membership",
               tokenizer_texts: Sequence[str] | None = None) -> Trained:
    """Train the tokenizer on ``tokenizer_texts`` (default: ``texts``) and the model on ``texts``.

    The membership evaluation passes members *and* non-members as ``tokenizer_texts``: a tokenizer
    fitted to the members alone splits non-member code into rarer pieces, which by itself gives
    every loss-based score a large, spurious gap. See the module docstring for the schedule."""
    import torch
    from transformers import GPT2LMHeadModel

    if not texts:
        raise InputError("train_gpt2: no training texts (texts is empty)")
    if not 0 < config.weak_step <= config.steps:
        raise InputError(f"TrainConfig.weak_step must be in 1..steps ({config.steps}), "
                         f"got {config.weak_step}")
    if not 0 < config.decay_to <= 1:
        raise InputError(f"TrainConfig.decay_to must be in (0, 1], got {config.decay_to}")
    rng = np.random.default_rng(config.seed)
    t0 = time.perf_counter()
    with torch_threads(config.threads):
        tok = train_tokenizer(list(tokenizer_texts or texts), config.vocab_size)
        t_tok = time.perf_counter()
        ids: list[int] = []
        for enc in tok(list(texts), add_special_tokens=False)["input_ids"]:
            ids.extend(enc)
            ids.append(tok.eos_token_id)
        data = torch.tensor(ids, dtype=torch.long)
        tokenize_s = time.perf_counter() - t_tok
        if data.numel() <= config.n_ctx + 1:
            raise InputError(f"training texts have {data.numel()} tokens; need more than "
                             f"TrainConfig.n_ctx + 1 ({config.n_ctx + 1})")
        model = tiny_gpt2(tok, n_positions=config.n_ctx, n_embd=config.n_embd, n_layer=config.n_layer,
                          n_head=config.n_head, dropout=0.0, seed=config.seed)
        step_on = adamw_steps(model, config.lr, lambda s: lr_factor(config, s))
        model.train()
        weak_state: dict[str, torch.Tensor] | None = None
        losses: list[float] = []
        t_train = time.perf_counter()
        for step in progress(range(1, config.steps + 1), desc="train GPT-2"):
            starts = rng.integers(0, data.numel() - config.n_ctx, size=config.batch_size)
            batch = torch.stack([data[s:s + config.n_ctx] for s in starts])
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=config.bf16):
                loss = model(input_ids=batch, labels=batch).loss
            losses.append(step_on(loss))
            if step == config.weak_step:
                weak_state = copy.deepcopy(model.state_dict())
        train_s = time.perf_counter() - t_train
    weak_model = GPT2LMHeadModel(model.config)
    weak_model.load_state_dict(weak_state)  # type: ignore[arg-type]
    record = {
        "config": asdict(config), "parameters": sum(p.numel() for p in model.parameters()),
        "train_tokens": int(data.numel()), "train_chars": sum(len(t) for t in texts),
        "tokenizer_chars": sum(len(t) for t in (tokenizer_texts or texts)),
        "epochs_strong": config.steps * config.batch_size * config.n_ctx / data.numel(),
        "epochs_weak": config.weak_step * config.batch_size * config.n_ctx / data.numel(),
        "loss_at_weak": float(np.mean(losses[max(0, config.weak_step - 5):config.weak_step])),
        "loss_final": float(np.mean(losses[-5:])), "tokenizer_seconds": round(t_tok - t0, 2),
        "tokenize_seconds": round(tokenize_s, 2), "train_seconds": round(train_s, 1),
        "total_seconds": round(time.perf_counter() - t0, 1),
    }
    return Trained(LocalCausalLM(model, tok, f"{spec}-strong"),
                   LocalCausalLM(weak_model, tok, f"{spec}-weak"), record)
