"""A controlled TS-Guessing check: deliberately contaminate a small model with half of some MMLU
items, then see whether TS-Guessing tells the seen half from the unseen half.

The small model is a GPT-2 built from config (2 layers, byte-level BPE tokenizer trained here on the
sampled items) and trained from scratch on the contaminated half's probe prompts followed by the
masked option: the deliberate-contamination setting of Deng et al., who report ~100% exact match
when the test data is in training. It is then asked through the model layer (``hf/<folder>``),
exactly as ``benchchecker ts-guess`` asks any model.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..flags import ContaminationFlag
from ._data import load_mmlu
from ._probes import prepare_probes


@dataclass(frozen=True)
class ControlledResult:
    """Per-half means and the AUC of the flags' score (Rouge-L) and of exact match."""

    flags: tuple[ContaminationFlag, ...]
    labels: tuple[bool, ...]
    em_contaminated: float
    em_clean: float
    rouge_contaminated: float
    rouge_clean: float
    flagged_contaminated: float
    flagged_clean: float
    auc_rouge: float
    auc_em: float


def train_tiny_lm(folder: str | os.PathLike[str], vocab_texts: Sequence[str], train: Sequence[str], *,
                  epochs: int, batch: int = 25, lr: float = 1e-2, width: int = 64, seed: int = 0) -> Path:
    """Train a byte-level BPE tokenizer on ``vocab_texts`` and a 2-layer GPT-2 on ``train``; save
    both into ``folder`` (a plain transformers folder). Both come from ``models/_tiny_gpt2.py``."""
    import torch

    from ..models import tiny_gpt2, train_tokenizer

    fast = train_tokenizer(vocab_texts, 1000, roles=("eos", "pad"))
    model = tiny_gpt2(fast, n_positions=1024, n_embd=width, n_layer=2, n_head=2, seed=seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    rng = random.Random(seed)
    model.train()
    for _ in range(epochs):
        order = rng.sample(list(train), len(train))
        for s in range(0, len(order), batch):
            enc = fast(order[s:s + batch], return_tensors="pt", padding=True)
            labels = enc["input_ids"].masked_fill(enc["attention_mask"] == 0, -100)
            loss = model(**enc, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    out = Path(folder)
    fast.save_pretrained(out)
    model.save_pretrained(out)
    return out


def controlled_check(mmlu: str | os.PathLike[str] | None, work_dir: str | os.PathLike[str], *,
                     items: int = 100, epochs: int = 150, batch: int = 25, lr: float = 1e-2,
                     width: int = 64, max_chars: int = 700, seed: int = 0) -> ControlledResult:
    """Sample ``items`` usable multichoice probes (prompts of at most ``max_chars`` characters),
    train on a random half, run TS-Guessing on all, and score seen vs unseen."""
    from ..models import get_model
    from ..scoring import roc_auc_score
    from ._guess import run_probes

    probes_all = prepare_probes(load_mmlu(mmlu), "multichoice").probes
    rng = random.Random(seed)
    short = [p for p in probes_all if len(p.prompt) <= max_chars]
    probes = rng.sample(short, items)
    seen = set(rng.sample(range(items), items // 2))
    folder = train_tiny_lm(Path(work_dir) / "tiny-contaminated",
                           [p.prompt + " " + p.target for p in probes],
                           [p.prompt + " " + p.target + "\n" for i, p in enumerate(probes) if i in seen],
                           epochs=epochs, batch=batch, lr=lr, width=width, seed=seed)
    model = get_model(f"hf/{folder}", batch_size=16)
    flags = run_probes(model, probes, batch_size=16, model_name="tiny-contaminated")
    y = np.array([i in seen for i in range(items)], dtype=int)
    em = np.array([float(f.evidence.get("exact_match", 0.0)) for f in flags])
    rouge = np.array([f.score for f in flags])
    flagged = np.array([bool(f.contaminated) for f in flags], dtype=float)
    seen_mask, clean_mask = y == 1, y == 0
    return ControlledResult(
        tuple(flags), tuple(bool(v) for v in y),
        float(em[seen_mask].mean()), float(em[clean_mask].mean()),
        float(rouge[seen_mask].mean()), float(rouge[clean_mask].mean()),
        float(flagged[seen_mask].mean()), float(flagged[clean_mask].mean()),
        float(roc_auc_score(y, rouge)), float(roc_auc_score(y, em)))
