"""Shared-prompt-prefix caching for local models: prompts that begin with the same tokens read that
beginning once, and its KV cache serves every prompt that has it.

Serving engines do this for every request (vLLM's automatic prefix caching, SGLang's RadixAttention);
on a CPU, where reading the prompt is most of the cost, it matters more. Every TS-Guessing probe of a
benchmark subject starts with the same hint and instruction text, and Stage I's probes of one
repository often share long code prefixes.

- **Detected, not declared** (:func:`shared_prefixes`): the prompts' token ids are sorted; a run of
  neighbours that keep at least ``min_tokens`` leading tokens in common is a group, and its prefix is
  what all of them share (the running common prefix), cut so that every prompt keeps at least one
  token of its own (the last prompt token is what ``generate`` is fed).
- **Read once** (:class:`PrefixStore`): the KV cache of each group prefix, computed for one row, is
  kept (least recently used first out, within a byte budget) across batches and calls.
- **Assembled per batch** (:func:`shared_past`): row ``i`` of a batch is laid out as
  ``[pads | prefix_i | pads | suffix_i]`` (prefixes right-aligned to the longest one, suffixes
  left-padded after them); the stored prefix caches are copied into the first part, the suffixes
  (all but their last token) are read in one batched forward pass with the attention mask and
  position ids of that layout, and ``generate`` continues from there. Pad positions are masked and
  positions count real tokens only, so a row computes what it computes alone (up to float rounding
  of batched arithmetic, as for any batch); a sample still draws from its own per-prompt generator.
"""

from __future__ import annotations

import inspect
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError

MIN_SHARED_TOKENS = 16  # a shorter common beginning is not worth a separate forward pass


@dataclass(frozen=True)
class PrefixPlan:
    """Which prompts share which prefix: row ``i`` shares its first ``lengths[i]`` tokens (0: none)
    with the other rows of group ``groups[i]``; ``order`` lists the rows so that a group's rows are
    neighbours (groups in token order, each by length)."""

    lengths: tuple[int, ...]
    groups: tuple[int, ...]
    order: tuple[int, ...]

    @property
    def shared_tokens(self) -> int:
        """Prompt tokens read once instead of once per row: sum over groups of (size - 1) x prefix."""
        sizes: dict[int, int] = {}
        for g, n in zip(self.groups, self.lengths):
            if n:
                sizes[g] = sizes.get(g, 0) + 1
        first = {g: n for g, n in zip(self.groups, self.lengths) if n}
        return sum((size - 1) * first[g] for g, size in sizes.items())


def _common(a: Sequence[int], b: Sequence[int], limit: int) -> int:
    n = min(len(a), len(b), limit)
    for k in range(n):
        if a[k] != b[k]:
            return k
    return n


def shared_prefixes(rows: Sequence[Sequence[int]], min_tokens: int = MIN_SHARED_TOKENS) -> PrefixPlan:
    """The group prefix of every row (see the module docstring); rows in no group get 0."""
    if min_tokens < 1:
        raise InputError(f"min_tokens must be >= 1, got {min_tokens}")
    by_ids = sorted(range(len(rows)), key=lambda i: tuple(rows[i]))
    lengths = [0] * len(rows)
    group_of = [0] * len(rows)
    groups: list[list[int]] = []
    current: list[int] = []
    common = 0
    for i in by_ids:
        if current:
            shared = _common(rows[current[0]], rows[i], common)
            if shared >= min_tokens:
                current.append(i)
                common = shared
                continue
            groups.append(current)
        current, common = [i], len(rows[i])
    if current:
        groups.append(current)
    order: list[int] = []
    for g, group in enumerate(groups):
        for i in group:
            group_of[i] = g
        if len(group) > 1:
            # every row keeps at least one token of its own
            n = min(_common_of(rows, group), min(len(rows[i]) for i in group) - 1)
            if n >= min_tokens:
                for i in group:
                    lengths[i] = n
        order.extend(sorted(group, key=lambda i: len(rows[i])))
    return PrefixPlan(tuple(lengths), tuple(group_of), tuple(order))


def _common_of(rows: Sequence[Sequence[int]], group: Sequence[int]) -> int:
    """Length of the common prefix of ``rows[i]`` for ``i`` in ``group``."""
    first = rows[group[0]]
    n = len(first)
    for i in group[1:]:
        n = _common(first, rows[i], n)
    return n


class PrefixStore:
    """KV caches of prompt prefixes, one row each, keyed by the prefix's token ids; least recently
    used first out within ``max_bytes``. Thread-safe; the stored tensors are never written to."""

    def __init__(self, max_bytes: int = 256 * 2**20) -> None:
        if max_bytes < 0:
            raise InputError(f"PrefixStore max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[int, ...], tuple[list[tuple[Any, Any]], int]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def nbytes(self) -> int:
        return sum(size for _, size in self._entries.values())

    def get(self, model: Any, prefix: tuple[int, ...]) -> list[tuple[Any, Any]]:
        """Per layer (keys, values) of ``prefix`` read alone (shape [1, heads, len, dim])."""
        with self._lock:
            entry = self._entries.get(prefix)
            if entry is not None:
                self._entries.move_to_end(prefix)
                self.hits += 1
                return entry[0]
            self.misses += 1
        layers = _read_prefix(model, prefix)
        size = sum(int(k.nbytes) + int(v.nbytes) for k, v in layers)
        with self._lock:
            if 0 < size <= self.max_bytes:
                self._entries[prefix] = (layers, size)
                while self.nbytes > self.max_bytes:
                    self._entries.popitem(last=False)
        return layers

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def _takes_positions(model: Any) -> bool:
    return "position_ids" in inspect.signature(model.forward).parameters


def _read_prefix(model: Any, prefix: tuple[int, ...]) -> list[tuple[Any, Any]]:
    import torch
    from transformers import DynamicCache

    from ._kv_cache import CACHE_ARG

    device = next(model.parameters()).device
    ids = torch.tensor([list(prefix)], device=device)
    kwargs: dict[str, Any] = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "use_cache": True,
                              CACHE_ARG: DynamicCache()}
    if _takes_positions(model):
        kwargs["position_ids"] = torch.arange(len(prefix), device=device)[None, :]
    with torch.inference_mode():
        out = model(**kwargs)
    cache = out.get(CACHE_ARG)
    return [(layer.keys[:, :, :len(prefix)].clone(), layer.values[:, :, :len(prefix)].clone())
            for layer in cache.layers]


def shared_past(model: Any, rows: Sequence[Sequence[int]], lengths: Sequence[int], store: PrefixStore, *,
                pad_token_id: int, headroom: int, read: bool = True) -> tuple[Any, Any, Any]:
    """``(input_ids, attention_mask, cache)`` for ``generate``: the batch in the shared-prefix layout
    and the KV cache of all but its last position (the stored prefixes, then the suffixes read in
    one pass); ``read=False`` gives the layout alone (cache ``None``)."""
    import torch

    from ._kv_cache import CACHE_ARG, new_cache

    if len(rows) != len(lengths) or any(not 0 <= n < len(r) for r, n in zip(rows, lengths)):
        raise InputError("every row needs a prefix length in [0, len(row))")
    device = next(model.parameters()).device
    head = max(lengths)
    tail = max(len(r) - n for r, n in zip(rows, lengths))
    ids, mask = [], []
    for r, n in zip(rows, lengths):
        suffix = list(r[n:])
        ids.append([pad_token_id] * (head - n) + list(r[:n]) + [pad_token_id] * (tail - len(suffix)) + suffix)
        mask.append([0] * (head - n) + [1] * n + [0] * (tail - len(suffix)) + [1] * len(suffix))
    input_ids = torch.tensor(ids, device=device)
    attention = torch.tensor(mask, device=device)
    if not read:
        return input_ids, attention, None
    prefixes = {tuple(r[:n]) for r, n in zip(rows, lengths) if n}
    stored = {p: store.get(model, p) for p in prefixes}
    cache = new_cache(headroom + tail)
    n_layers = len(next(iter(stored.values())))
    for layer in range(n_layers):
        like_k, like_v = next(iter(stored.values()))[layer]
        keys = like_k.new_zeros(len(rows), like_k.shape[1], head, like_k.shape[-1])
        values = like_v.new_zeros(len(rows), like_v.shape[1], head, like_v.shape[-1])
        for i, (r, n) in enumerate(zip(rows, lengths)):
            if n:
                k, v = stored[tuple(r[:n])][layer]
                keys[i, :, head - n:] = k[0]
                values[i, :, head - n:] = v[0]
        cache.update(keys, values, layer)
    if tail > 1:  # read the suffixes but their last token
        kwargs: dict[str, Any] = {"input_ids": input_ids[:, head:-1], "attention_mask": attention[:, :-1],
                                  "use_cache": True, CACHE_ARG: cache}
        if _takes_positions(model):
            positions = (attention.long().cumsum(-1) - 1).masked_fill(attention == 0, 0)
            kwargs["position_ids"] = positions[:, head:-1]
        with torch.inference_mode():
            model(**kwargs)
    return input_ids, attention, cache
