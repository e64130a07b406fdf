"""The KV cache our decoding writes into: layers that grow in place (no O(length) copy per token)
and the name ``generate`` returns the cache under (``cache`` or ``past_key_values``, by
transformers version)."""

from __future__ import annotations

import functools
from typing import Any

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer
from transformers.generation.utils import GenerateDecoderOnlyOutput

CACHE_ARG = "cache" if "cache" in getattr(GenerateDecoderOnlyOutput, "__dataclass_fields__", {}) \
    else "past_key_values"


def cache_nbytes(cache: Any) -> int | None:
    layers = getattr(cache, "layers", None)
    if layers is None:
        return None
    total = 0
    for layer in layers:
        for t in (getattr(layer, "keys", None), getattr(layer, "values", None)):
            if t is not None and hasattr(t, "nbytes"):
                total += int(t.nbytes)
    return total


class GrowingLayer(DynamicLayer):
    """A dynamic KV layer that writes into a buffer with ``headroom`` free positions instead of
    concatenating the whole cache at every step (which copies O(length) per token); ``keys`` and
    ``values`` are views of the filled part, as transformers expects of a dynamic layer."""

    def __init__(self, headroom: int) -> None:
        super().__init__()
        self.headroom = headroom
        self._k: torch.Tensor | None = None
        self._v: torch.Tensor | None = None
        self._n = 0

    def _views(self) -> tuple[torch.Tensor, torch.Tensor]:
        assert self._k is not None and self._v is not None
        keys, values = self._k[:, :, :self._n], self._v[:, :, :self._n]
        self.keys, self.values = keys, values
        return keys, values

    def _alloc(self, like_k: torch.Tensor, like_v: torch.Tensor, batch: int, length: int) -> None:
        k = like_k.new_empty(batch, like_k.shape[1], length + self.headroom, like_k.shape[-1])
        v = like_v.new_empty(batch, like_v.shape[1], length + self.headroom, like_v.shape[-1])
        if self._n and self._k is not None and self._v is not None:
            k[:, :, :self._n] = self._k[:, :, :self._n]
            v[:, :, :self._n] = self._v[:, :, :self._n]
        self._k, self._v = k, v

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any,
               **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        need = self._n + key_states.shape[-2]
        if self._k is None or need > self._k.shape[-2]:
            self._alloc(key_states, value_states, key_states.shape[0], need)
        assert self._k is not None and self._v is not None
        self._k[:, :, self._n:need] = key_states
        self._v[:, :, self._n:need] = value_states
        self._n = need
        return self._views()

    def crop(self, tokens_to_remove: int) -> None:
        if self._k is None:
            super().crop(tokens_to_remove)
            return
        self._n = max(0, self._n - abs(int(tokens_to_remove)))
        self._views()

    def batch_repeat_interleave(self, repeats: int) -> None:
        if self._k is None or self._v is None:
            super().batch_repeat_interleave(repeats)
            return
        k = self._k[:, :, :self._n].repeat_interleave(repeats, dim=0)
        v = self._v[:, :, :self._n].repeat_interleave(repeats, dim=0)
        self._k = self._v = None
        n, self._n = self._n, 0
        self._alloc(k, v, k.shape[0], n)
        assert self._k is not None and self._v is not None
        self._k[:, :, :n], self._v[:, :, :n], self._n = k, v, n
        self._views()


def new_cache(headroom: int) -> DynamicCache:
    """A DynamicCache whose layers grow in place (:class:`GrowingLayer`)."""
    cache = DynamicCache()
    cache.layers = []
    # transformers types this as a layer class but only ever calls it with no arguments
    cache.layer_class_to_replicate = functools.partial(GrowingLayer, headroom)  # type: ignore[assignment]
    return cache
