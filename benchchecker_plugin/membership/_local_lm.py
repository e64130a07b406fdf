"""The membership evaluation's in-memory causal LM: the ``hf`` backend built from a loaded model.

The evaluation trains its GPT-2 in this process and probes it right away, through the model
Protocols (``models/_base.py``) exactly as Stage I and the baselines talk to any backend.
:func:`LocalCausalLM` is :meth:`~benchchecker_plugin.models._hf.HFModel.from_model` with this
evaluation's defaults (batches of 16), so generation, windowing and the Min-K%++ vocabulary
statistics are the ``hf`` backend's own. A saved model folder is ``HFModel(spec, folder)`` (a GGUF
checkpoint with ``gguf_file=``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # the hf backend imports torch and transformers: only when a model is built
    from ..models import HFModel


def LocalCausalLM(model: Any, tokenizer: Any, spec: str, *, batch_size: int = 16,  # noqa: N802
                  prefill_cache_mb: int = 256, prefix_cache_mb: int = 256) -> HFModel:
    """``model`` (a transformers causal LM in memory) and its ``tokenizer`` as an ``hf`` backend
    named ``spec``; kept under the name the membership code and its tests have always used."""
    from ..models import HFModel

    return HFModel.from_model(model, tokenizer, spec, batch_size=batch_size,
                              prefill_cache_mb=prefill_cache_mb, prefix_cache_mb=prefix_cache_mb)
