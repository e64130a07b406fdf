"""The ``benchchecker/`` Inspect provider takes the CLI's model options through ``-M``
(issue 13, item 6: ``-M threads=1`` was rejected)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import tiny_lm


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_lm.build_tiny_lm(tmp_path_factory.mktemp("tiny"), ["a b c d e f g"])


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
                      cache_dir=str(tmp_path / "cache"), cache="true", memoize=False)
    assert torch.get_num_threads() == 1
    inner = model.api._model
    assert isinstance(inner, CachedModel) and inner.inner.batch_size == 2
    assert Path(inner.cache.dir) == tmp_path / "cache"
    plain = get_model(f"benchchecker/hf/{tiny}", no_cache="true", memoize=False)
    assert not isinstance(plain.api._model, CachedModel)
    # the cache is opt-in under Inspect, as Inspect's own is (issue 29)
    assert not isinstance(get_model(f"benchchecker/hf/{tiny}", memoize=False).api._model,
                          CachedModel)


def _epochs(tiny: Path, log_dir: Path, **options: object) -> list[list[str]]:
    """Completions per sample, in epoch order, of a 2-sample task run for 3 epochs at
    temperature 1.0 through ``benchchecker/hf/<tiny>``."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.solver import generate

    task = Task(dataset=[Sample(input="a b c", target="d", id=1),
                         Sample(input="e f", target="g", id=2)], solver=generate())
    seed = options.pop("seed", None)
    model = get_model(f"benchchecker/hf/{tiny}", memoize=False, **options)   # a fresh process's
    [log] = eval(task, model=model, epochs=3, temperature=1.0, max_tokens=12, seed=seed,
                 display="none", log_dir=str(log_dir))
    assert log.status == "success", log.error
    samples = sorted(log.samples, key=lambda s: (s.id, s.epoch))
    usage = log.stats.model_usage[f"benchchecker/hf/{tiny}"]
    assert usage.input_tokens > 0 and usage.output_tokens > 0   # real counts, not 0 (issue 29)
    return [[s.output.completion for s in samples if s.id == i] for i in (1, 2)]


@pytest.mark.slow
@pytest.mark.model
def test_epochs_sample_independently_and_the_cache_is_per_epoch(tiny: Path, tmp_path: Path,
                                                                restore_threads) -> None:
    """Issue 29, item 1: ``--epochs 3 --temperature 1.0`` gave three byte-identical completions
    (seed 0 on every request, and a default-on cache keyed on seed + prompt), so variance and
    pass@k collapsed and a re-run replayed the old answers."""
    for epochs in _epochs(tiny, tmp_path / "plain"):
        assert len(set(epochs)) > 1, epochs
    seeded = _epochs(tiny, tmp_path / "seeded", seed=7)
    assert all(len(set(e)) > 1 for e in seeded), seeded
    assert _epochs(tiny, tmp_path / "again", seed=7) == seeded     # a seed reproduces the run
    cache = str(tmp_path / "cache")
    first = _epochs(tiny, tmp_path / "c1", cache="true", cache_dir=cache)
    assert all(len(set(e)) > 1 for e in first), first               # per-epoch entries
    assert _epochs(tiny, tmp_path / "c2", cache="true", cache_dir=cache) == first


def test_bad_threads_is_one_clear_error() -> None:
    from benchchecker_plugin.errors import InputError
    from benchchecker_plugin.inspect_tasks._modelapi import build_model

    with pytest.raises(InputError, match="threads must be >= 1, got 0"):
        build_model("hf/unused", {"threads": 0})
