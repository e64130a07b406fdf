"""Batched decoding of a transformers causal LM, shared by the ``hf/`` backend and the in-memory LM
of the membership evaluation (imported only by them: it loads torch and transformers).

- **Batches, greedy or sampled.** Prompts run in left-padded batches with attention masks. Sampling
  (``temperature > 0``) draws each row's next token with that row's own ``torch.Generator``, seeded
  from ``(params.seed, prompt)`` (:func:`prompt_seed`), inside a logits processor that leaves one
  finite logit per row, so transformers' greedy loop takes exactly that token. A row's draws do not
  depend on the other rows, so a sample does not depend on the batch it ran in (up to float rounding
  of the logits, which moves a draw only when it falls within ~1e-6 of a bucket edge).
- **KV cache.** Layers write into preallocated room for the new tokens (``kv_cache.GrowingLayer``) instead
  of concatenating the whole cache at every step, which on a CPU costs more than the step itself
  for a small model and a long prompt batch.
- **Prompts read once.** :meth:`BatchedDecoder.generate_samples` decodes ``n`` samples of each prompt
  from one read of it (the prompt's KV cache repeated ``n`` times); sample ``s`` equals the request
  with seed ``params.seed + s``. :class:`PrefillCache` keeps the KV cache of recent batches' prompts
  (all but the last token; least recently used first out, within a byte budget), so a caller that
  asks the same batch again with another seed recomputes only the last prompt token. Reading the
  prompt dominates on a CPU, so this is where batching the samples of one prompt pays.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

import torch
from transformers import LogitsProcessor, LogitsProcessorList

from ..errors import InputError, ModelError
from ..progress import model_label, progress
from ._base import Completion, GenerationParams
from ._kv_cache import CACHE_ARG, cache_nbytes, new_cache
from ._prefix import PrefixStore, shared_past, shared_prefixes
from ._stop import cut_at_stop

# transformers 5.x renamed generate()'s ``past_key_values`` (and the output field) to ``cache``.

# transformers' length check counts a batch's left padding as tokens and warns that generation
# "exceeded the model's predefined maximum length"; every prompt is cut so that its own tokens plus
# ``max_tokens`` fit the context (``_prompt_ids``), so the warning is noise in our output.
logging.getLogger("transformers.generation.stopping_criteria").setLevel(logging.ERROR)


def prompt_seed(seed: int, prompt: str) -> int:
    """The sampling seed of one prompt: a stable 63-bit hash of ``(seed, prompt)``."""
    digest = hashlib.sha256(f"{seed}\x00{prompt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def sample_seeds(prompt: str, params: GenerationParams, n: int = 1) -> list[int]:
    """Seeds of ``n`` samples of ``prompt``: sample ``s`` gets ``prompt_seed(params.seed + s, prompt)``
    (what a single request with seed ``params.seed + s`` gets), or fresh randomness without a seed."""
    if params.seed is None:
        return [secrets.randbits(63) for _ in range(n)]
    return [prompt_seed(params.seed + s, prompt) for s in range(n)]


class RowSampler(LogitsProcessor):
    """A transformers logits processor that samples each row with its own generator.

    Softmax at ``temperature``, nucleus (``top_p``) filtering, then one draw per row by the Gumbel-max
    rule (argmax of log-probability plus Gumbel noise from the row's own generator, one uniform per
    vocabulary entry); returns scores that are ``-inf`` everywhere except the drawn token (a
    zero-probability token is never drawn). Gumbel-max rather than inverse CDF: a draw changes only
    when the two best noisy scores lie within float rounding of each other, so logits that differ in
    their last bits (a shared-prefix KV cache, another batch shape) give the same samples; an inverse
    CDF draw flips whenever the uniform lands in a rare token's bin, whose width is of that order.
    """

    def __init__(self, seeds: Sequence[int], temperature: float, top_p: float = 1.0) -> None:
        if temperature <= 0:
            raise InputError(f"RowSampler needs temperature > 0, got {temperature}")
        if not 0 < top_p <= 1:
            raise InputError(f"top_p must be in (0, 1], got {top_p}")
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.generators = [torch.Generator().manual_seed(int(s)) for s in seeds]

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if scores.shape[0] != len(self.generators):
            raise ValueError(f"RowSampler has {len(self.generators)} generators for a batch of "
                             f"{scores.shape[0]} rows")
        probs = torch.softmax(scores.detach().float().cpu() / self.temperature, dim=-1)
        if self.top_p < 1.0:
            sorted_p, index = probs.sort(dim=-1, descending=True)
            before = sorted_p.cumsum(dim=-1) - sorted_p  # mass of the tokens ranked above
            sorted_p = sorted_p.masked_fill(before >= self.top_p, 0.0)  # the top token always stays
            probs = torch.zeros_like(probs).scatter_(-1, index, sorted_p)
        # Gumbel-max: one uniform per token from the row's own generator.
        u = torch.stack([torch.rand(probs.shape[-1], generator=g, dtype=torch.float64)
                         for g in self.generators])
        noisy = probs.double().log() - torch.log(-torch.log(u))
        picks = noisy.argmax(dim=-1, keepdim=True)
        out = torch.full_like(scores, float("-inf"))
        out.scatter_(1, picks.to(scores.device), 0.0)
        return out


class PrefillCache:
    """KV caches of recent prompt batches (all tokens but the last), least recently used first out.

    ``max_bytes`` bounds the memory held; a batch whose cache alone exceeds it is not kept. Keys are
    the batch's token ids row by row, so a hit means the very same left-padded input.
    """

    def __init__(self, max_bytes: int = 256 * 2**20) -> None:
        if max_bytes < 0:
            raise InputError(f"PrefillCache max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple, tuple[Any, int]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    @property
    def nbytes(self) -> int:
        return sum(size for _, size in self._entries.values())

    def take(self, key: tuple) -> Any | None:
        """A private copy of the cache stored under ``key`` (generation extends it in place)."""
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return copy.deepcopy(entry[0])

    def store(self, key: tuple, cache: Any) -> bool:
        """Keep ``cache`` (the caller's object: do not extend it afterwards) under ``key``; False
        when it is not kept (no byte budget, a cache type whose size is unknown, or too big)."""
        if self.max_bytes == 0:
            return False
        size = cache_nbytes(cache)
        if size is None or size > self.max_bytes:
            return False
        self._entries[key] = (cache, size)
        self._entries.move_to_end(key)
        while self.nbytes > self.max_bytes:
            self._entries.popitem(last=False)
        return True

    def clear(self) -> None:
        self._entries.clear()


def _prefill(model: Any, input_ids: Any, mask: Any, headroom: int) -> Any | None:
    """The KV cache of ``input_ids`` (left-padded), with the position ids generate() would use."""
    kwargs: dict[str, Any] = {"input_ids": input_ids, "attention_mask": mask, "use_cache": True,
                              CACHE_ARG: new_cache(headroom)}
    if "position_ids" in inspect.signature(model.forward).parameters:
        kwargs["position_ids"] = (mask.long().cumsum(-1) - 1).masked_fill(mask == 0, 0)
    with torch.inference_mode():
        out = model(**kwargs)
    cache = out.get(CACHE_ARG) if hasattr(out, "get") else None
    return cache if hasattr(cache, "get_seq_length") else None


def generate_ids(model: Any, tokenizer: Any, rows: Sequence[Sequence[int]], params: GenerationParams, *,
                 seeds: Sequence[int] | None = None, pad_token_id: int,
                 prefill: PrefillCache | None = None, repeat: int = 1,
                 shared: tuple[Sequence[int], PrefixStore] | None = None) -> list[list[int]]:
    """Generate for one batch of tokenised prompts (``rows``, unpadded); the new token ids per row.

    With ``repeat=n`` every row is continued ``n`` times (``len(rows) * n`` outputs, row by row),
    reading each prompt once. ``seeds`` (one per output) are required when ``params.temperature > 0``.
    ``shared=(lengths, store)``: row ``i``'s first ``lengths[i]`` tokens are a shared prefix whose KV
    cache ``store`` keeps (:mod:`._prefix`).
    """
    if not rows or any(len(r) == 0 for r in rows):
        raise InputError("every prompt needs at least one token" + (
            " (no prompts given)" if not rows else f" (prompt {[len(r) for r in rows].index(0)} has none)"))
    if repeat < 1:
        raise InputError(f"repeat must be >= 1, got {repeat}")
    device = next(model.parameters()).device
    width = max(len(r) for r in rows)
    input_ids = torch.tensor([[pad_token_id] * (width - len(r)) + list(r) for r in rows], device=device)
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=device)
    kwargs: dict[str, Any] = {"max_new_tokens": params.max_tokens, "pad_token_id": pad_token_id,
                              "do_sample": False, "temperature": None, "top_p": None, "top_k": None}
    if params.stop:
        kwargs.update(stop_strings=list(params.stop), tokenizer=tokenizer)
    if params.temperature > 0:
        if seeds is None or len(seeds) != len(rows) * repeat:
            raise InputError(f"sampling needs one seed per output ({len(rows) * repeat}), got "
                             f"{None if seeds is None else len(seeds)}")
        kwargs["logits_processor"] = LogitsProcessorList([RowSampler(seeds, params.temperature,
                                                                     params.top_p)])
    past = built = None
    key: tuple[Any, ...] = tuple(tuple(int(t) for t in r) for r in rows)
    if shared is not None and any(shared[0]):
        key = (key, tuple(shared[0]))
        past = prefill.take(key) if prefill is not None else None
        input_ids, mask, built = shared_past(model, rows, shared[0], shared[1], pad_token_id=pad_token_id,
                                             headroom=params.max_tokens + 1, read=past is None)
        width = input_ids.shape[1]
    elif width >= 2 and (prefill is not None or repeat > 1):
        past = prefill.take(key) if prefill is not None else None
        if past is None:
            built = _prefill(model, input_ids[:, :-1], mask[:, :-1], params.max_tokens + 1)
    if past is None and built is not None:
        past = built
        if prefill is not None and prefill.store(key, past):
            past = copy.deepcopy(past)  # the stored one stays as it is
    if repeat > 1:
        input_ids = input_ids.repeat_interleave(repeat, dim=0)
        mask = mask.repeat_interleave(repeat, dim=0)
        if past is not None:
            past.batch_repeat_interleave(repeat)
    kwargs[CACHE_ARG] = past if past is not None else new_cache(params.max_tokens + 1)
    with torch.inference_mode():
        out = model.generate(input_ids=input_ids, attention_mask=mask, **kwargs)
    return out[:, width:].tolist()


def decode_completion(tokenizer: Any, ids: Sequence[int], eos_ids: set[int],
                      params: GenerationParams) -> Completion:
    """Text of generated ``ids``: cut at the first end-of-sequence token, then at the first stop
    string; ``finish_reason`` is ``stop`` when either cut, else ``length``."""
    ids = list(ids)
    finish = "length"
    for j, t in enumerate(ids):
        if t in eos_ids:
            ids, finish = ids[:j], "stop"
            break
    text = tokenizer.decode(ids, skip_special_tokens=True)
    text, stopped = cut_at_stop(text, params.stop)
    return Completion(text=text, finish_reason="stop" if stopped else finish)


class BatchedDecoder:
    """``generate`` and ``generate_samples`` for a class that holds ``model``, ``tokenizer``,
    ``batch_size``, ``prefill`` (a :class:`PrefillCache` or None), ``prefixes`` (a
    :class:`~.prefix.PrefixStore` or None: shared-prefix caching off), ``spec`` and ``_eos_ids`` and
    turns a prompt into token ids with ``_prompt_ids(prompt, params)``.

    Prompts are sorted by length into batches of ``batch_size`` (a batch of ``n`` samples decodes
    ``batch_size * n`` rows); with ``prefixes``, prompts that share a beginning are batched together
    and read it once (:mod:`._prefix`). A failing batch is split until the failing prompt is found; that
    prompt gets errored completions and the others their answers.
    """

    model: Any
    tokenizer: Any
    batch_size: int
    prefill: PrefillCache | None
    prefixes: PrefixStore | None = None
    spec: str
    _eos_ids: set[int]
    _lock: threading.Lock | None = None

    def _prompt_ids(self, prompt: str, params: GenerationParams) -> list[int]:
        raise NotImplementedError

    def shared_prefix_share(self, prompts: Sequence[str], params: GenerationParams) -> float:
        """The share of ``prompts``' tokens that batches read once for several prompts (their shared
        beginnings, grouped as :meth:`generate` groups them: :mod:`._prefix`), what shared-prefix
        caching can save; ``0.0`` for no prompt."""
        rows = [self._prompt_ids(p, params) for p in prompts]
        return shared_prefixes(rows).shared_tokens / max(1, sum(len(r) for r in rows))

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[Completion]:
        """One completion per prompt, in order."""
        return [c[0] for c in self._decode_all(list(prompts), params, 1)]

    def generate_samples(self, prompts: Sequence[str], params: GenerationParams,
                         n: int) -> list[list[Completion]]:
        """``n`` completions per prompt; completion ``s`` equals ``generate([prompt], params with seed
        params.seed + s)``. Each prompt is read once for all its samples."""
        if n < 1:
            raise InputError(f"n must be >= 1, got {n}")
        if params.temperature == 0:  # greedy: every sample is the same text
            return [c * n for c in self._decode_all(list(prompts), params, 1)]
        return self._decode_all(list(prompts), params, n)

    def _decode_all(self, prompts: list[str], params: GenerationParams, n: int) -> list[list[Completion]]:
        out: list[list[Completion]] = [[] for _ in prompts]
        rows: list[list[int] | None] = [None] * len(prompts)
        lengths = [0] * len(prompts)
        order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
        if self.prefixes is not None and len(prompts) > 1:
            for i, p in enumerate(prompts):  # a prompt that cannot be tokenised fails in its batch
                try:
                    rows[i] = self._prompt_ids(p, params)
                except (RuntimeError, ValueError, ModelError):
                    rows[i] = None
            ok = [i for i in range(len(prompts)) if rows[i] is not None]
            plan = shared_prefixes([rows[i] or [] for i in ok])
            order = [ok[j] for j in plan.order] + [i for i in range(len(prompts)) if rows[i] is None]
            for j, i in enumerate(ok):
                lengths[i] = plan.lengths[j]
        batches = [order[s:s + self.batch_size] for s in range(0, len(order), self.batch_size)]
        with self._lock or nullcontext():
            for batch in progress(batches, desc=f"generate {model_label(self.spec)}",
                                  weights=[len(b) for b in batches]):
                jobs = [_Job(prompts[i], rows[i], lengths[i]) for i in batch]
                for i, c in zip(batch, self._decode_safely(jobs, params, n)):
                    out[i] = c
        return out

    def _decode_safely(self, jobs: list[_Job], params: GenerationParams, n: int) -> list[list[Completion]]:
        try:
            return self._decode_batch(jobs, params, n)
        except (RuntimeError, ValueError, ModelError) as exc:
            if len(jobs) > 1:  # find which item fails; the others still get answers
                return [c for job in jobs for c in self._decode_safely([job], params, n)]
            return [[Completion(text="", error=f"{type(exc).__name__}: {exc}")] * n]

    def _decode_batch(self, jobs: list[_Job], params: GenerationParams, n: int) -> list[list[Completion]]:
        rows = [job.ids if job.ids is not None else self._prompt_ids(job.prompt, params) for job in jobs]
        seeds = ([x for job in jobs for x in sample_seeds(job.prompt, params, n)]
                 if params.temperature > 0 else None)
        lengths = [job.shared for job in jobs]
        shared = (lengths, self.prefixes) if self.prefixes is not None and any(lengths) else None
        new = generate_ids(self.model, self.tokenizer, rows, params, seeds=seeds,
                           pad_token_id=self.tokenizer.pad_token_id, prefill=self.prefill, repeat=n,
                           shared=shared)
        texts = [decode_completion(self.tokenizer, ids, self._eos_ids, params) for ids in new]
        return [texts[k * n:(k + 1) * n] for k in range(len(jobs))]


@dataclass(frozen=True)
class _Job:
    """One prompt of a batch: its text, its token ids when already known, its shared-prefix length."""

    prompt: str
    ids: list[int] | None
    shared: int
