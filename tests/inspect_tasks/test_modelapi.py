"""The ``benchchecker/`` Inspect provider takes the CLI's model options through ``-M``
(issue 13, item 6: ``-M threads=1`` was rejected)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

HELPER = Path(__file__).resolve().parents[1] / "tsguessing" / "tiny_lm.py"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = importlib.util.spec_from_file_location("tsguessing_tiny_lm_modelapi", HELPER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_tiny_lm(tmp_path_factory.mktemp("tiny"), ["a b c d e f g"])


@pytest.fixture
def restore_threads():  # type: ignore[no-untyped-def]
    import torch

    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


@pytest.mark.model
def test_inspect_get_model_accepts_the_cli_model_options(tiny: Path, tmp_path: Path,
                                                         restore_threads) -> None:
    import torch
    from inspect_ai.model import get_model

    from benchchecker_plugin.models import CachedModel

    torch.set_num_threads(2)
    model = get_model(f"benchchecker/hf/{tiny}", threads=1, batch_size=2, device="cpu",
                      cache_dir=str(tmp_path / "cache"), memoize=False)
    assert torch.get_num_threads() == 1
    inner = model.api._model
    assert isinstance(inner, CachedModel) and inner.inner.batch_size == 2
    assert Path(inner.cache.dir) == tmp_path / "cache"
    plain = get_model(f"benchchecker/hf/{tiny}", no_cache="true", memoize=False)
    assert not isinstance(plain.api._model, CachedModel)


def test_bad_threads_is_one_clear_error() -> None:
    from benchchecker_plugin.errors import InputError
    from benchchecker_plugin.inspect_tasks.modelapi import build_model

    with pytest.raises(InputError, match="threads must be >= 1, got 0"):
        build_model("hf/unused", {"threads": 0})
