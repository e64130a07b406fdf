"""The controlled check's fine-tune, verified: train a small GPT-2 on the seen probes until it
reproduces their hidden parts, and measure how much of each it does.

Each seen probe becomes one training sequence: the prompt's tokens, then the tokens of
``" " + target + "\\n"`` and the end-of-text token. The two parts are tokenized apart, so the prompt
is read exactly as it is when the model is later asked it (no token straddles the boundary).

:func:`reproduced` is the check: with teacher forcing (one forward pass per batch), the share of
a target's tokens, newline included, that greedy decoding reproduces, i.e. the tokens up to the
first whose arg-max is not the target's, over all of them. A target is *memorised* at 1.0: greedy
decoding then writes it back exactly and ends the line. Training stops as soon as
``stop_share`` of the seen targets are memorised (checked every ``check_every`` steps), or at
``max_steps``; :attr:`Finetuned.record` holds the steps, the loss and the memorised share at every
check, and the seconds.

Speed: one torch thread (as the membership evaluation: on a shared 2-core machine two threads
were slower than one). A 2-layer, width-128 model with a 4,000-token vocabulary memorises 50 MMLU
probes in 80-90 steps of 25 (seeds 0-4; 100 probes in 120), 40-50 s on 2 CPU cores; the 2-layer,
width-64 model trained a fixed 150 epochs before memorised 30% of seed 0's seen half.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..progress import progress

if TYPE_CHECKING:
    from ..models import HFModel


@dataclass(frozen=True)
class FinetuneConfig:
    """Model size, schedule and stopping rule of the fine-tune."""

    vocab_size: int = 4000    # most words one token: an MMLU option fits TS-Guessing's 32-token reply
    n_layer: int = 2
    n_embd: int = 128
    n_head: int = 4
    batch_size: int = 25
    lr: float = 3e-3
    warmup: int = 10
    max_steps: int = 400      # the cap: a draw not memorised by then is reported as such
    check_every: int = 10     # steps between two memorisation checks
    stop_share: float = 1.0   # stop once this share of the seen targets is memorised
    seed: int = 0
    threads: int = 1

    def __post_init__(self) -> None:
        if self.max_steps < 1 or self.check_every < 1 or self.batch_size < 1:
            raise InputError("FinetuneConfig: max_steps, check_every and batch_size must be >= 1")
        if not 0 < self.stop_share <= 1:
            raise InputError(f"FinetuneConfig.stop_share must be in (0, 1], got {self.stop_share}")


@dataclass
class Finetuned:
    """The fine-tuned model (asked in memory, never through the response cache) and its record."""

    model: HFModel
    record: dict[str, Any] = field(default_factory=dict)

    @property
    def memorised_share(self) -> float:
        return float(self.record["memorised_share"])


def encode_examples(tokenizer: Any, examples: Sequence[tuple[str, str]]) -> list[tuple[list[int], int]]:
    """``(ids, start)`` per ``(prompt, target)``: the prompt's ids, then the target line's and the
    end-of-text id; ``start`` is the index of the target's first token."""
    out = []
    for prompt, target in examples:
        head = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        tail = tokenizer(" " + target + "\n", add_special_tokens=False)["input_ids"]
        out.append((list(head) + list(tail) + [tokenizer.eos_token_id], len(head)))
    return out


def _batch(rows: Sequence[tuple[list[int], int]], pad: int) -> tuple[Any, Any, Any]:
    import torch

    width = max(len(ids) for ids, _ in rows)
    ids = torch.full((len(rows), width), pad, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, (row, _) in enumerate(rows):
        ids[i, :len(row)] = torch.tensor(row)
        mask[i, :len(row)] = 1
    return ids, mask, ids.masked_fill(mask == 0, -100)


def reproduced(model: Any, rows: Sequence[tuple[list[int], int]], *, pad: int,
               batch_size: int = 25) -> list[float]:
    """Per row, the share of its target tokens (up to, not including, the end-of-text id) that
    greedy decoding reproduces before its first miss, measured with teacher forcing."""
    import torch

    shares: list[float] = []
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for s in range(0, len(rows), batch_size):
            chunk = rows[s:s + batch_size]
            ids, mask, _ = _batch(chunk, pad)
            best = model(input_ids=ids, attention_mask=mask).logits.argmax(-1)
            for i, (row, start) in enumerate(chunk):
                end = len(row) - 1                       # the target line, not the end-of-text id
                hit = (best[i, start - 1:end - 1] == ids[i, start:end]).tolist()
                first_miss = hit.index(False) if False in hit else len(hit)
                shares.append(first_miss / len(hit))
    model.train(was_training)
    return shares


def finetune(seen: Sequence[tuple[str, str]], vocab_texts: Sequence[str],
             config: FinetuneConfig = FinetuneConfig(), *, spec: str = "local/tiny-contaminated",
             reply_tokens: int | None = None) -> Finetuned:
    """Fit a byte-level BPE tokenizer to ``vocab_texts`` (seen and unseen alike, so only the
    weights carry what was seen) and train a GPT-2 on the ``seen`` ``(prompt, target)`` pairs
    until the stopping rule holds (see the module). ``reply_tokens``: the probe's token limit;
    the record counts the seen targets longer than it (``over_reply_limit``: memorised or not,
    a reply that long is cut, so their exact match is 0)."""
    from ..models import HFModel, adamw_steps, tiny_gpt2, torch_threads, train_tokenizer

    if not seen:
        raise InputError("finetune: no seen (prompt, target) pairs to train on")
    t0 = time.perf_counter()
    with torch_threads(config.threads):
        tok = train_tokenizer(list(vocab_texts), config.vocab_size, roles=("eos", "pad"))
        rows = encode_examples(tok, seen)
        longest = max(len(ids) for ids, _ in rows)
        model = tiny_gpt2(tok, n_positions=max(256, 64 * math.ceil((longest + 64) / 64)),
                          n_embd=config.n_embd, n_layer=config.n_layer, n_head=config.n_head,
                          dropout=0.0, seed=config.seed)
        step_on = adamw_steps(model, config.lr, lambda s: min(1.0, (s + 1) / max(1, config.warmup)))
        rng = random.Random(config.seed)
        order: list[int] = []
        checks: list[dict[str, Any]] = []
        losses: list[float] = []
        shares: list[float] = []   # per seen target, at the last check (the run ends on one)
        share, stopped, step = 0.0, "step cap", 0
        status = {"text": ""}
        model.train()
        t_train = time.perf_counter()
        steps = progress(range(1, config.max_steps + 1), desc="fine-tune tiny GPT-2",
                         unit="steps", status=lambda: status["text"])
        for step in steps:
            if len(order) < config.batch_size:
                order += rng.sample(range(len(rows)), len(rows))
            pick, order = order[:config.batch_size], order[config.batch_size:]
            ids, mask, labels = _batch([rows[i] for i in pick], tok.pad_token_id)
            losses.append(step_on(model(input_ids=ids, attention_mask=mask, labels=labels).loss))
            if step % config.check_every == 0 or step == config.max_steps:
                shares = reproduced(model, rows, pad=tok.pad_token_id)
                share = sum(s == 1.0 for s in shares) / len(shares)
                recent = sum(losses[-config.check_every:]) / len(losses[-config.check_every:])
                checks.append({"step": step, "loss": round(recent, 4),
                               "memorised_share": round(share, 4),
                               "mean_reproduced": round(sum(shares) / len(shares), 4)})
                status["text"] = f"loss {recent:.3f}, memorised {share:.0%}"
                if share >= config.stop_share:
                    stopped = "memorised"
                    break
        train_s = time.perf_counter() - t_train
        model.eval()
    record = {
        "config": asdict(config), "parameters": sum(p.numel() for p in model.parameters()),
        "seen": len(rows), "steps": step, "stopped": stopped,
        "epochs": round(step * config.batch_size / len(rows), 1),
        "memorised_share": share, "memorised": round(share * len(rows)),
        "mean_reproduced": checks[-1]["mean_reproduced"] if checks else None,
        "per_target_reproduced": [round(s, 4) for s in shares],
        "over_reply_limit": (None if reply_tokens is None else
                             sum(len(ids) - 1 - start > reply_tokens for ids, start in rows)),
        "checks": checks, "loss_final": checks[-1]["loss"] if checks else None,
        "train_seconds": round(train_s, 1), "total_seconds": round(time.perf_counter() - t0, 1),
    }
    return Finetuned(HFModel.from_model(model, tok, spec, batch_size=16), record)
