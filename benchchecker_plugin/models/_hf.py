"""The ``hf/`` backend: a local transformers causal LM (folder, hub name or GGUF file), CPU or GPU,
or a model already in memory (:meth:`HFModel.from_model`, e.g. the GPT-2 the membership evaluation
trains).

Generation, greedy or sampled, runs in left-padded batches of ``batch_size`` through
:mod:`._decoding`: a sampled answer uses its own generator seeded from ``(params.seed, prompt)``, so it
is reproducible and does not depend on the batch or order it ran in; a batch of prompts seen again
(the samples of one query) reuses its prompt KV cache (``prefill_cache_mb``, 0 turns it off), and
prompts that begin with the same tokens read that beginning once (:mod:`._prefix`;
``prefix_cache_mb``, 0 turns it off).

``token_scores`` runs one forward pass per batch (right padding) and returns, for every token after
the first, log p(token | prefix), the mean and standard deviation of log p over the vocabulary at
that position (Min-K%++; float64, centred) and the token's character span (fast tokenizer offset
mapping). A text longer than the model's context is scored in half-overlapping windows.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, ModelError
from ..progress import model_label, progress
from ._base import Completion, GenerationParams, TokenScores
from ._decoding import BatchedDecoder, PrefillCache
from ._prefix import PrefixStore


def _pick_device(device: str | None) -> str:
    import torch

    if device in (None, "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    return str(device)


class HFModel(BatchedDecoder):
    """A local causal LM behind :class:`~benchchecker_plugin.models._base.LogprobModel`.

    ``source`` is a local folder or a hub name; ``gguf_file`` names a GGUF file inside it (for a
    hub repo) or is an absolute path. ``chat=True`` wraps each prompt in the tokenizer's chat
    template (a single user turn, generation prompt added); otherwise prompts are raw text.
    ``generate`` and ``generate_samples`` come from :class:`~.decoding.BatchedDecoder`; ``calls``
    counts the ``generate`` / ``generate_samples`` / ``token_scores`` calls that reached the model.
    """

    _lock: threading.Lock  # always set in _configure (the base class allows None)

    def __init__(self, spec: str, source: str, *, gguf_file: str | None = None, device: str | None = "cpu",
                 dtype: str | None = None, chat: bool = False, batch_size: int = 8,
                 prefill_cache_mb: int = 256, score_token_budget: int = 8192,
                 prefix_cache_mb: int = 256) -> None:
        self._configure(spec, source, _pick_device(device), chat=chat, batch_size=batch_size,
                        prefill_cache_mb=prefill_cache_mb, score_token_budget=score_token_budget,
                        prefix_cache_mb=prefix_cache_mb)
        self._attach(*self._load(source, gguf_file, dtype))

    @classmethod
    def from_model(cls, model: Any, tokenizer: Any, spec: str, *, chat: bool = False, batch_size: int = 8,
                   prefill_cache_mb: int = 256, score_token_budget: int = 8192,
                   prefix_cache_mb: int = 256) -> HFModel:
        """An already loaded causal LM and its tokenizer (say, one trained in this process) as this
        backend; the model is put in eval mode and stays on the device it is on."""
        self = cls.__new__(cls)
        device = str(next(model.parameters()).device)
        self._configure(spec, f"<in-memory {type(model).__name__}>", device, chat=chat,
                        batch_size=batch_size, prefill_cache_mb=prefill_cache_mb,
                        score_token_budget=score_token_budget, prefix_cache_mb=prefix_cache_mb)
        self._attach(model.eval(), tokenizer)
        return self

    def _configure(self, spec: str, source: str, device: str, *, chat: bool, batch_size: int,
                   prefill_cache_mb: int, score_token_budget: int, prefix_cache_mb: int = 256) -> None:
        if batch_size < 1:
            raise InputError(f"batch_size must be >= 1, got {batch_size}")
        if prefill_cache_mb < 0:
            raise InputError(f"prefill_cache_mb must be >= 0, got {prefill_cache_mb}")
        if prefix_cache_mb < 0:
            raise InputError(f"prefix_cache_mb must be >= 0, got {prefix_cache_mb}")
        if score_token_budget < 1:
            raise InputError(f"score_token_budget must be >= 1, got {score_token_budget}")
        self.score_token_budget = score_token_budget
        self.spec = spec
        self.source = source
        self.chat = chat
        self.batch_size = batch_size
        self.device = device
        self.cache_identity = self.identity_for(spec, chat=chat)
        self._lock = threading.Lock()
        self.prefill = PrefillCache(prefill_cache_mb * 2**20) if prefill_cache_mb else None
        self.prefixes = PrefixStore(prefix_cache_mb * 2**20) if prefix_cache_mb else None
        self.calls = 0  # generate / generate_samples / token_scores calls that reached the model

    def _attach(self, model: Any, tokenizer: Any) -> None:
        self.model, self.tokenizer = model, tokenizer
        self._check_chat(self.chat)
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        eos = self.model.generation_config.eos_token_id
        eos_ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        if self.tokenizer.eos_token_id is not None:
            eos_ids.add(self.tokenizer.eos_token_id)
        self._eos_ids = eos_ids

    def with_chat(self, chat: bool = True) -> HFModel:
        """The same loaded model with ``chat`` switched (shares weights and lock; nothing reloads)."""
        self._check_chat(chat)
        twin = copy.copy(self)
        twin.chat = chat
        twin.cache_identity = self.identity_for(self.spec, chat=chat)
        return twin

    @staticmethod
    def identity_for(spec: str, *, chat: bool = False) -> str:
        """The cache identity of this spec with these options (computable without loading): the
        model's one name (:func:`~.names.canonical_model_name`, so ``hf/<the exported default
        model's folder>`` and ``hf/smollm2-135m`` share answers, whichever harness asked)."""
        from ._names import canonical_model_name

        return canonical_model_name(spec) + ("?chat=1" if chat else "")

    def _load(self, source: str, gguf_file: str | None, dtype: str | None) -> tuple[Any, Any]:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        kwargs: dict[str, Any] = {}
        if gguf_file:
            kwargs["gguf_file"] = gguf_file
        if dtype not in (None, "auto"):
            if not isinstance(getattr(torch, str(dtype), None), torch.dtype):
                raise ModelError(f"{self.spec}: unknown dtype {dtype!r} (try float32, bfloat16, float16)")
            kwargs["dtype"] = getattr(torch, str(dtype))
        from transformers.utils import logging as hf_logging

        where = f"{source} (GGUF {gguf_file})" if gguf_file else source
        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()   # transformers' "Loading weights" bar: noise in our output
        try:
            tokenizer = AutoTokenizer.from_pretrained(source, **{k: v for k, v in kwargs.items()
                                                                 if k == "gguf_file"})
            model = AutoModelForCausalLM.from_pretrained(source, **kwargs)
        except (OSError, ValueError, KeyError) as exc:
            hint = "" if Path(source).exists() else (
                " — not a local folder; as a hub name it needs network access or a populated HF cache "
                "(HF_HUB_OFFLINE=1 forbids downloads)")
            raise ModelError(f"{self.spec}: cannot load model {where}{hint}: {exc}") from exc
        finally:
            if bars:
                hf_logging.enable_progress_bar()
        # transformers wraps PreTrainedModel.to in functools.wraps; typeshed's _Wrapped does not bind self
        model.to(self.device)  # type: ignore[arg-type]
        model.eval()
        return model, tokenizer

    @property
    def context_length(self) -> int | None:
        """Longest sequence (prompt + generated tokens) the model accepts, when its config says."""
        config = self.model.config
        for name in ("max_position_embeddings", "n_positions"):
            value = getattr(config, name, None)
            if isinstance(value, int) and value > 0:
                return value
        return None

    def _check_chat(self, chat: bool) -> None:
        if chat and not getattr(self.tokenizer, "chat_template", None):
            raise ModelError(f"{self.spec}: chat=True but the tokenizer of {self.source} has no "
                             "chat template")

    # -- generation ------------------------------------------------------------------------
    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Completion]:
        """One completion per prompt, in order (see :class:`~.decoding.BatchedDecoder`)."""
        self.calls += 1
        return super().generate(prompts, params)

    def generate_samples(self, prompts: Sequence[str], params: GenerationParams,
                         n: int) -> list[list[Completion]]:
        """``n`` completions per prompt (see :class:`~.decoding.BatchedDecoder`)."""
        self.calls += 1
        return super().generate_samples(prompts, params, n)

    def _format(self, prompt: str) -> str:
        if not self.chat:
            return prompt
        return str(self.tokenizer.apply_chat_template([{"role": "user", "content": prompt}],
                                                      tokenize=False, add_generation_prompt=True))

    def _prompt_ids(self, prompt: str, params: GenerationParams) -> list[int]:
        ids = self.tokenizer(self._format(prompt), add_special_tokens=not self.chat)["input_ids"]
        context = self.context_length
        if context is not None:  # keep the end of the prompt (what the continuation depends on)
            keep = context - params.max_tokens
            if keep < 1:
                raise ModelError(f"{self.spec}: max_tokens={params.max_tokens} leaves no room for the "
                                 f"prompt in a context of {context} tokens")
            ids = ids[-keep:]
        if not ids:  # an empty prompt: generate unconditionally
            bos = self.tokenizer.bos_token_id
            ids = [self.tokenizer.eos_token_id if bos is None else bos]
        return list(ids)

    # -- scoring ---------------------------------------------------------------------------
    def token_scores(self, texts: Sequence[str]) -> list[TokenScores]:
        """Per-token log-probabilities (and vocabulary mean/std of log p) of each text.

        A text longer than the context is scored in windows (:func:`_windows`). Windows are sorted
        by token count into batches of at most ``batch_size`` windows and ``score_token_budget``
        padded tokens (a long window gets a batch of its own), and the per-position vocabulary
        statistics are computed ``_SCORE_CHUNK`` positions at a time, so memory follows the
        budget, not ``batch_size`` x the longest file x the vocabulary.
        """
        self.calls += 1
        texts = list(texts)
        if not getattr(self.tokenizer, "is_fast", False):
            raise ModelError(f"{self.spec}: token_scores needs a fast tokenizer (character offsets)")
        enc = self.tokenizer(texts, return_offsets_mapping=True) if texts else {"input_ids": []}
        rows = list(zip(enc["input_ids"], enc.get("offset_mapping", [])))  # each text tokenised once
        windows = [(k, a, b, first) for k, (ids, _) in enumerate(rows)
                   for a, b, first in _windows(len(ids), self.context_length)]
        batches: list[list[int]] = []
        for w in sorted(range(len(windows)), key=lambda w: windows[w][2] - windows[w][1]):
            last = batches[-1] if batches else None
            # sorted by length: window w is the longest of the batch it would join
            if last and len(last) < self.batch_size \
                    and (len(last) + 1) * (windows[w][2] - windows[w][1]) <= self.score_token_budget:
                last.append(w)
            else:
                batches.append([w])
        parts: list[_Stats | None] = [None] * len(windows)
        with self._lock:
            for batch in progress(batches, desc=f"score {model_label(self.spec)}",
                                  weights=[len(b) for b in batches]):
                chunk = [(rows[windows[w][0]][0][windows[w][1]:windows[w][2]], windows[w][3]) for w in batch]
                for w, stats in zip(batch, self._score_batch(chunk)):
                    parts[w] = stats
        per_text: list[list[_Stats]] = [[] for _ in rows]
        for (k, *_), scored in zip(windows, parts):  # windows are in text order, then token order
            if scored is not None:
                per_text[k].append(scored)
        return [TokenScores(tokens=tuple(self.tokenizer.convert_ids_to_tokens(ids[1:])),
                            offsets=tuple((int(a), int(b)) for a, b in offsets[1:]),
                            logprobs=_concat(p, 0), mu=_concat(p, 1), sigma=_concat(p, 2))
                for (ids, offsets), p in zip(rows, per_text)]

    def _score_batch(self, rows: list[tuple[list[int], int]]) -> list[_Stats]:
        """Score token windows ``(ids, first)`` in one right-padded forward pass: log p, vocabulary
        mean and standard deviation of log p for the tokens ``ids[first:]``."""
        import torch

        width = max(len(ids) for ids, _ in rows)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([ids + [pad] * (width - len(ids)) for ids, _ in rows], device=self.device)
        mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in rows],
                            device=self.device)
        with torch.inference_mode():
            logits = self.model(input_ids=input_ids, attention_mask=mask).logits
            result = []
            for i, (id_list, first) in enumerate(rows):
                n = len(id_list)  # position p - 1 predicts token p
                parts = [_vocab_stats(logits[i, a - 1:min(a + _SCORE_CHUNK, n) - 1],
                                      input_ids[i, a:min(a + _SCORE_CHUNK, n)])
                         for a in range(first, n, _SCORE_CHUNK)]
                result.append((_concat(parts, 0), _concat(parts, 1), _concat(parts, 2)))
        return result


_SCORE_CHUNK = 512  # positions whose vocabulary statistics are computed at once (float64)
_Stats = tuple[np.ndarray, np.ndarray, np.ndarray]  # log p, mu, sigma of the scored tokens


def _windows(n: int, context: int | None) -> list[tuple[int, int, int]]:
    """``(start, end, first)`` token windows that score tokens ``1..n-1`` of an ``n``-token text,
    each window scoring its tokens ``first..end-start-1``.

    A text that fits the context is one window. A longer one slides a window of ``context`` tokens
    by ``context // 2``; each later window scores only the tokens the previous one did not, so
    every token after the first window is predicted from at least half a context of prefix."""
    if n < 2:
        return []
    if context is None or n <= context:
        return [(0, n, 1)]
    stride = max(1, context // 2)
    out, start = [], 0
    while True:
        end = min(n, start + context)
        out.append((start, end, 1 if start == 0 else context - stride))
        if end >= n:
            return out
        start += stride


def _concat(parts: Sequence[Sequence[np.ndarray]], k: int) -> np.ndarray:
    """The ``k``-th arrays of ``parts`` joined (float64; empty when there are none)."""
    return np.concatenate([p[k] for p in parts]).astype(np.float64) if parts else np.zeros(0)


def _vocab_stats(logits: Any, ids: Any) -> _Stats:
    """log p of ``ids`` and the mean / standard deviation of log p over the vocabulary, per position."""
    import torch

    logp = torch.log_softmax(logits.double(), dim=-1)
    tok_lp = logp.gather(-1, ids[:, None])[:, 0]
    probs = logp.exp()
    mu = (probs * logp).sum(-1)
    sigma = (probs * (logp - mu[:, None]) ** 2).sum(-1).sqrt()
    return (tok_lp.cpu().numpy().astype(np.float64), mu.cpu().numpy().astype(np.float64),
            sigma.cpu().numpy().astype(np.float64))
