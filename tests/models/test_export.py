"""The exported default model is a plain folder every harness loads.

Regression (issue 13, item 1): the export kept ``"quantization_config": {"quant_method": "gguf"}``
in ``config.json``, so ``lm_eval --model hf --model_args pretrained=<folder>`` and plain
``from_pretrained(folder)`` died asking for a GGUF file. Such an old export in the cache must be
detected and exported again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.models._gguf import EXPORT_MARKER, is_current_export

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``benchchecker models path hf/smollm2-135m`` into a fresh cache dir (exports the GGUF)."""
    import torch

    torch.set_num_threads(1)
    cache = tmp_path_factory.mktemp("cache")
    result = CliRunner().invoke(main, ["models", "path", "hf/smollm2-135m", "--cache-dir", str(cache)])
    assert result.exit_code == 0, result.output
    folder = Path(result.stdout.strip())
    assert folder.parent == (cache / "models").resolve()
    return folder


def test_config_has_no_gguf_keys(exported: Path) -> None:
    config = json.loads((exported / "config.json").read_text())
    assert "quantization_config" not in config and "gguf_file" not in config
    assert config["model_type"] == "llama"
    assert is_current_export(exported)


def test_plain_from_pretrained_loads_it(exported: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(exported))
    assert getattr(model, "hf_quantizer", None) is None
    params = dict(model.named_parameters())
    assert params and all(type(p.data) is torch.Tensor and p.dtype == torch.float32 for p in params.values())


def test_lm_eval_hflm_loads_it(exported: Path) -> None:
    from lm_eval.models.huggingface import HFLM

    lm = HFLM(pretrained=str(exported), device="cpu", batch_size=1)
    assert lm.tok_decode(lm.tok_encode("The capital of France")) == "The capital of France"
    assert getattr(lm.model, "hf_quantizer", None) is None


def test_old_export_is_replaced(exported: Path) -> None:
    """An export without the format marker (an old bad one) is exported again by the command."""
    config_path = exported / "config.json"
    config = json.loads(config_path.read_text())
    config["quantization_config"] = {"quant_method": "gguf", "gguf_file": "x.gguf", "dequantize": False}
    config_path.write_text(json.dumps(config))
    (exported / EXPORT_MARKER).unlink()
    assert not is_current_export(exported)
    cache = exported.parent.parent
    result = CliRunner().invoke(main, ["models", "path", "hf/smollm2-135m", "--cache-dir", str(cache)])
    assert result.exit_code == 0, result.output
    assert Path(result.stdout.strip()) == exported
    assert is_current_export(exported)
    assert "quantization_config" not in json.loads(config_path.read_text())
    assert sorted(p.name for p in exported.parent.iterdir()) == [exported.name]  # no leftovers


def test_hub_name_is_refused_with_a_hint(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["models", "path", "hf/org/not-a-folder", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "pass 'org/not-a-folder' to the harness as it is" in result.output
