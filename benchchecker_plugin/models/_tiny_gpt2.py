"""A small GPT-2 built from config and the byte-level BPE tokenizer trained for it (no download).

The one builder behind every model this project makes itself: the membership evaluation's trained
GPT-2 (``membership/_train.py``), the controlled TS-Guessing check's fine-tune
(``tsguessing/_finetune.py``) and the test fixtures. :func:`train_tokenizer` fits a byte-level BPE tokenizer whose only special token
is ``<|endoftext|>``; :func:`tiny_gpt2` builds a randomly initialised GPT-2 sized to that tokenizer's
vocabulary; :func:`adamw_steps` is the optimiser both trainers step it with. The training loop
(what a batch is, when to stop), saving and wrapping (``HFModel.from_model``) stay with the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

EOS = "<|endoftext|>"
TOKEN_ROLES = ("bos", "eos", "pad", "unk")  # the roles the end-of-text token can be given


def train_tokenizer(texts: Sequence[str], vocab_size: int, *,
                    roles: Sequence[str] = ("eos", "pad", "bos")) -> Any:
    """A byte-level BPE tokenizer trained on ``texts`` (a transformers fast tokenizer).

    ``<|endoftext|>`` is its only special token; ``roles`` names the special-token roles it plays
    (any of :data:`TOKEN_ROLES`). No post-processor: encoding adds no token to the text."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    unknown = sorted(set(roles) - set(TOKEN_ROLES))
    if unknown:
        raise ValueError(f"unknown token roles {unknown}; choose from {list(TOKEN_ROLES)}")
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[EOS], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(list(texts), trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, **{f"{role}_token": EOS for role in roles})


def tiny_gpt2(tokenizer: Any, *, n_positions: int = 1024, n_embd: int = 64, n_layer: int = 2,
              n_head: int = 2, eos_in_config: bool = True, dropout: float | None = None,
              seed: int | None = None) -> Any:
    """A randomly initialised ``GPT2LMHeadModel`` with ``len(tokenizer)`` tokens of vocabulary.

    ``eos_in_config`` writes the tokenizer's end-of-text id as the config's ``bos_token_id`` and
    ``eos_token_id`` (else GPT-2's defaults stay); ``dropout`` sets all three dropout rates (None:
    GPT-2's defaults); ``seed`` seeds torch's global generator just before the weights are drawn
    (None: the caller's generator state decides them)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    kwargs: dict[str, Any] = {}
    if eos_in_config:
        kwargs.update(bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)
    if dropout is not None:
        kwargs.update(resid_pdrop=dropout, embd_pdrop=dropout, attn_pdrop=dropout)
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=n_positions, n_embd=n_embd,
                        n_layer=n_layer, n_head=n_head, **kwargs)
    if seed is not None:
        torch.manual_seed(seed)
    model = GPT2LMHeadModel(config)
    model.loss_type = "ForCausalLM"   # GPT-2's own; unset, transformers warns on the first loss
    return model


def adamw_steps(model: Any, lr: float, factor: Callable[[int], float]) -> Callable[[Any], float]:
    """The optimiser step of a model trained here: ``step(loss)`` back-propagates ``loss``, clips
    the gradients to norm 1 and takes one AdamW step (no weight decay) at ``lr`` times
    ``factor(steps taken)`` (a ``LambdaLR`` schedule); it returns the loss as a float."""
    import torch

    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)

    def step(loss: Any) -> float:
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        return float(loss.detach())

    return step
