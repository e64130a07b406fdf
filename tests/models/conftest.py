"""Shared model fixtures: the shipped SmolLM2 exported once as a plain folder, loaded once.

The export (GGUF → plain folder, tens of seconds) lands in the default model store
(``$BENCHCHECKER_CACHE_DIR/models`` or ``~/.cache/benchchecker/models``) and is reused by later runs.
Torch runs on one thread: on a shared two-core machine two threads are several times slower.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


@pytest.fixture(scope="session")
def smollm2_folder() -> Path:
    """A plain transformers folder of SmolLM2-135M-Instruct (exported from the shipped GGUF)."""
    import torch

    from benchchecker_plugin.models import default_cache_dir, ensure_exported, shipped_gguf_path

    torch.set_num_threads(1)
    return ensure_exported(shipped_gguf_path(), default_cache_dir() / "models")


@pytest.fixture(scope="session")
def smollm2(smollm2_folder: Path) -> Iterator[object]:
    """The loaded local model (``HFModel``, raw prompts, batch size 4), shared by the session."""
    from benchchecker_plugin.models.hf import HFModel

    yield HFModel("hf/smollm2-135m", str(smollm2_folder), batch_size=4)
