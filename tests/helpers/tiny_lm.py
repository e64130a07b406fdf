"""Test helper: a tiny GPT-2 (built from config, byte-level BPE trained on the texts, both by
``benchchecker_plugin.models._tiny_gpt2``), optionally trained to memorise some texts, saved as a
Hugging Face folder; and a TextModel over it.

Imported as ``tests.helpers.tiny_lm`` (torch loads only when a model is built).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def build_tiny_lm(folder: Path, vocab_texts: Sequence[str], memorise: Sequence[str] = (),
                  steps: int = 150, seed: int = 0) -> Path:
    """Save a 2-layer GPT-2 + tokenizer in ``folder``; train it on ``memorise`` (greedy decoding then
    reproduces those texts' continuations)."""
    import torch

    from benchchecker_plugin.models import tiny_gpt2, train_tokenizer

    torch.set_num_threads(1)  # 2 threads on a busy 2-core machine are ~10x slower here
    fast = train_tokenizer(vocab_texts, 600, roles=("eos", "bos", "unk", "pad"))
    model = tiny_gpt2(fast, n_positions=1024, n_embd=64, n_layer=2, n_head=2, seed=seed)
    if memorise:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        batch = fast(list(memorise), return_tensors="pt", padding=True)
        labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
        model.train()
        for _ in range(steps):
            loss = model(**batch, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
    fast.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder


def text_model(folder: Path, batch_size: int = 1):  # type: ignore[no-untyped-def]
    """The tiny model through the model layer (``hf/<folder>``)."""
    from benchchecker_plugin.models import get_model

    return get_model(f"hf/{folder}", batch_size=batch_size)
