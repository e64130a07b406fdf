"""A thin TextModel + LogprobModel over an in-memory transformers causal LM.

The membership evaluation trains its GPT-2 in this process and probes it right away; this adapter
lets Stage I and the baselines talk to it through the model Protocols (``models/base.py``), exactly
as they talk to any backend of ``benchchecker_plugin.models``. A saved model folder can be loaded
with :meth:`LocalCausalLM.from_folder` (and a GGUF checkpoint with ``gguf_file=``).
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np
import torch

from ..models.base import Completion, GenerationParams, TokenScores
from ..models.decoding import BatchedDecoder, PrefillCache

__all__ = ["LocalCausalLM"]


class LocalCausalLM(BatchedDecoder):
    """``generate`` (batched greedy or sampled decoding, left padding, per-prompt seeds) and
    ``token_scores`` (batched sliding windows of the model's context, ``mu``/``sigma`` of log p(z)
    under p for Min-K%++)."""

    def __init__(self, model: Any, tokenizer: Any, spec: str, *, batch_size: int = 16,
                 prefill_cache_mb: int = 256) -> None:
        self.model = model.eval()
        self.prefill = PrefillCache(prefill_cache_mb * 2**20) if prefill_cache_mb else None
        self.tokenizer = tokenizer
        self.spec = spec
        self.batch_size = batch_size
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.n_ctx = int(getattr(model.config, "n_positions", 0)
                         or getattr(model.config, "max_position_embeddings", 1024))
        eos = tokenizer.eos_token_id
        self._eos_ids = {eos} if eos is not None else set()
        self.calls = 0  # generate / generate_samples / token_scores calls that reached the model

    @classmethod
    def from_folder(cls, folder: str | os.PathLike[str], *, gguf_file: str | None = None,
                    spec: str | None = None, dtype: torch.dtype = torch.float32) -> "LocalCausalLM":
        from transformers import AutoModelForCausalLM, AutoTokenizer

        kw = {"gguf_file": gguf_file} if gguf_file else {}
        tok = AutoTokenizer.from_pretrained(folder, **kw)
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype, **kw)
        return cls(model, tok, spec or f"hf/{folder}")

    def _prompt_ids(self, prompt: str, params: GenerationParams) -> list[int]:
        room = max(1, self.n_ctx - params.max_tokens)
        return self.tokenizer(prompt, add_special_tokens=False)["input_ids"][-room:] \
            or [self.tokenizer.eos_token_id]

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Completion]:
        self.calls += 1
        return super().generate(prompts, params)

    def generate_samples(self, prompts: Sequence[str], params: GenerationParams,
                         n: int) -> list[list[Completion]]:
        self.calls += 1
        return super().generate_samples(prompts, params, n)

    @torch.inference_mode()
    def token_scores(self, texts: Sequence[str]) -> list[TokenScores]:
        self.calls += 1
        tok = self.tokenizer
        enc = [tok(t, add_special_tokens=False, return_offsets_mapping=True) for t in texts]
        # Windows: (text index, first token, last token, first scored position in window).
        windows: list[tuple[int, int, int, int]] = []
        stride = max(1, self.n_ctx // 2)
        for k, e in enumerate(enc):
            n = len(e["input_ids"])
            start = 0
            while True:
                end = min(n, start + self.n_ctx)
                windows.append((k, start, end, 1 if start == 0 else self.n_ctx - stride))
                if end >= n:
                    break
                start += stride
        parts: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = [[] for _ in texts]
        for i in range(0, len(windows), self.batch_size):
            chunk = windows[i:i + self.batch_size]
            seqs = [enc[k]["input_ids"][a:b] for k, a, b, _ in chunk]
            width = max(len(s) for s in seqs)
            ids = torch.tensor([s + [tok.pad_token_id] * (width - len(s)) for s in seqs])
            mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs])
            logits = self.model(input_ids=ids, attention_mask=mask).logits.float()
            logp = torch.log_softmax(logits[:, :-1], dim=-1)
            p = logp.exp()
            mu = (p * logp).sum(-1)
            sigma = ((p * logp * logp).sum(-1) - mu * mu).clamp_min(0).sqrt()
            nxt = ids[:, 1:]
            lp = logp.gather(-1, nxt.unsqueeze(-1)).squeeze(-1)
            for row, ((k, a, b, first), s) in enumerate(zip(chunk, seqs)):
                lo, hi = first - 1, len(s) - 1  # positions predicting tokens first..len-1
                if hi > lo:
                    parts[k].append((lp[row, lo:hi].numpy(), mu[row, lo:hi].numpy(),
                                     sigma[row, lo:hi].numpy()))
        out = []
        for k, e in enumerate(enc):
            ids = e["input_ids"][1:]
            offs = tuple(tuple(o) for o in e["offset_mapping"][1:])
            arrs = parts[k]
            cat = (lambda j: np.concatenate([a[j] for a in arrs]) if arrs else np.zeros(0))
            out.append(TokenScores(tuple(tok.convert_ids_to_tokens(ids)), offs,
                                   cat(0).astype(np.float64), cat(1).astype(np.float64),
                                   cat(2).astype(np.float64)))
        return out
