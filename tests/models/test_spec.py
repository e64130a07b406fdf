"""Spec strings: parsing, pinned error messages, resolution of local paths and the offline alias."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError, ModelError, ModelSpecError
from benchchecker_plugin.models import (
    DEFAULT_MODEL_SPEC,
    Backend,
    DryRunModel,
    GenerationParams,
    LogprobModel,
    TextModel,
    get_model,
    parse_spec,
    shipped_gguf_path,
)


@pytest.mark.parametrize("spec, backend, name", [
    ("hf/smollm2-135m", Backend.HF, "smollm2-135m"),
    ("hf//abs/path/model", Backend.HF, "/abs/path/model"),
    ("hf/org/repo:file.Q4.gguf", Backend.HF, "org/repo:file.Q4.gguf"),
    ("openai-compatible/llama-3", Backend.OPENAI_COMPATIBLE, "llama-3"),
    ("inspect/openai/gpt-4o-mini", Backend.INSPECT, "openai/gpt-4o-mini"),
    ("inspect/hf//abs/folder", Backend.INSPECT, "hf//abs/folder"),
])
def test_parse_spec(spec: str, backend: Backend, name: str) -> None:
    parsed = parse_spec(spec)
    assert (parsed.backend, parsed.name, parsed.raw) == (backend, name, spec)


def test_unknown_prefix_names_spec_and_lists_prefixes() -> None:
    with pytest.raises(ModelSpecError) as err:
        parse_spec("gpt4")
    assert str(err.value) == ("model spec 'gpt4' is not recognised; valid prefixes: hf/, openai-compatible/, "
                              "inspect/ (e.g. hf/smollm2-135m)")
    assert isinstance(err.value, InputError) and err.value.exit_code == 2


@pytest.mark.parametrize("spec, message", [
    ("", "model spec '' is empty; valid prefixes: hf/, openai-compatible/, inspect/"),
    ("hf/", "model spec 'hf/' names no model after 'hf/'"),
    ("inspect/openai", "model spec 'inspect/openai': expected inspect/<provider>/<model>, "
                       "e.g. inspect/openai/gpt-4o-mini"),
])
def test_malformed_specs(spec: str, message: str) -> None:
    with pytest.raises(ModelSpecError, match="^" + __import__("re").escape(message) + "$"):
        parse_spec(spec)


def test_option_of_another_backend_is_refused() -> None:
    with pytest.raises(ModelSpecError, match=r"^model spec 'hf/smollm2-135m': option\(s\) endpoint do not "
                                             r"apply to hf/ models; valid: batch_size, chat, device"):
        get_model("hf/smollm2-135m", endpoint="chat")


def test_missing_local_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(ModelSpecError,
                       match=f"^model spec 'hf/{missing}': no such file or folder {missing}$"):
        get_model(f"hf/{missing}")
    text = tmp_path / "weights.bin"
    text.write_bytes(b"x")
    with pytest.raises(ModelSpecError, match="is a file but not a .gguf file"):
        get_model(f"hf/{text}")


def test_hub_name_offline_fails_with_model_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))  # an empty HF cache: the name cannot resolve
    with pytest.raises(ModelError, match=r"^hf/no-such-org/no-such-model: cannot load model "
                                         r"no-such-org/no-such-model — not a local folder; as a hub "
                                         r"name it needs network access or a populated HF cache"):
        get_model("hf/no-such-org/no-such-model")


def test_openai_compatible_needs_a_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelSpecError, match=r"^openai-compatible/m: no server URL — pass base_url / "
                                             r"--base-url \(e.g. http://127.0.0.1:8000/v1\) or set "
                                             r"OPENAI_BASE_URL$"):
        get_model("openai-compatible/m")


def test_shipped_gguf_is_found() -> None:
    path = shipped_gguf_path()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000
    assert DEFAULT_MODEL_SPEC == "hf/smollm2-135m"


def test_dry_run_loads_nothing_and_counts(tmp_path: Path) -> None:
    model = get_model(DEFAULT_MODEL_SPEC, dry_run=True)
    assert isinstance(model, DryRunModel) and isinstance(model, TextModel)
    out = model.generate(["a", "b"], GenerationParams())
    assert [c.ok for c in out] == [False, False]
    assert model.summary() == "dry run: 2 model calls (0 cached) for hf/smollm2-135m"


def test_local_folder_gives_a_logprob_model(smollm2_folder: Path) -> None:
    model = get_model(f"hf/{smollm2_folder}", batch_size=2)
    assert isinstance(model, LogprobModel)
    assert model.generate(["1, 2, 3,"], GenerationParams(max_tokens=6))[0].text.startswith(" 4, 5")


def test_alias_uses_the_exported_store(smollm2_folder: Path) -> None:
    model = get_model("hf/smollm2-135m", export_dir=smollm2_folder.parent)
    assert Path(model.source) == smollm2_folder  # type: ignore[attr-defined]


def test_importing_models_loads_no_backend() -> None:
    code = ("import sys, benchchecker_plugin.models as m\n"
            "m.get_model('inspect/openai/gpt-4o', dry_run=True)\n"
            "m.get_model('openai-compatible/x', base_url='http://h/v1', dry_run=True)\n"
            "bad = [x for x in ('torch', 'transformers', 'inspect_ai', 'lm_eval', 'swebench')"
            " if x in sys.modules]\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)
