"""The one question asked of the hub before a harness loads its datasets: reachable or not, and
offline mode turned on when not (so huggingface_hub's retries never start)."""

from __future__ import annotations

import socket

import pytest

from benchchecker_plugin.hub_reach import hub_endpoint, hub_reachable, offline_unless_reachable


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]      # closed again when the block ends: nothing listens


@pytest.fixture()
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for k in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_ENDPOINT"):
        monkeypatch.setenv(k, "")     # recorded, so what the test's code sets is undone after it
        monkeypatch.delenv(k)
    return monkeypatch


def test_reachable_is_a_tcp_connection_to_the_endpoint() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        assert hub_reachable(f"http://127.0.0.1:{port}", timeout=2)
    assert not hub_reachable(f"http://127.0.0.1:{_closed_port()}", timeout=2)
    assert not hub_reachable("https://no-such-host.invalid", timeout=2)


def test_offline_mode_is_turned_on_only_when_the_hub_is_out_of_reach(clean_env: pytest.MonkeyPatch) -> None:
    import datasets.config
    import huggingface_hub.constants

    clean_env.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    clean_env.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    clean_env.setattr(datasets.config, "HF_DATASETS_OFFLINE", False)
    clean_env.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    assert hub_endpoint().startswith("http://127.0.0.1:")
    assert offline_unless_reachable(timeout=2) is True
    import os

    assert os.environ["HF_HUB_OFFLINE"] == os.environ["HF_DATASETS_OFFLINE"] == "1"
    # the libraries read their setting at import: already imported, they are told too
    assert huggingface_hub.constants.HF_HUB_OFFLINE is True
    assert datasets.config.HF_HUB_OFFLINE is True and datasets.config.HF_DATASETS_OFFLINE is True
    # offline already: nothing is asked (a listening endpoint would not change that either)
    assert offline_unless_reachable(timeout=2) is False


def test_a_reachable_hub_changes_nothing(clean_env: pytest.MonkeyPatch) -> None:
    import os

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        clean_env.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.getsockname()[1]}")
        assert offline_unless_reachable(timeout=2) is False
    assert "HF_HUB_OFFLINE" not in os.environ and "HF_DATASETS_OFFLINE" not in os.environ


def test_a_hub_dataset_is_loaded_after_the_question(clean_env: pytest.MonkeyPatch) -> None:
    """``load_hub_dataset``: offline mode is on by the time ``datasets.load_dataset`` is called
    (the hub out of reach), and the call gets the arguments as given."""
    import os

    import datasets
    import datasets.config
    import huggingface_hub.constants

    from benchchecker_plugin.hub_reach import load_hub_dataset

    clean_env.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    clean_env.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    clean_env.setattr(datasets.config, "HF_DATASETS_OFFLINE", False)
    clean_env.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    seen = []
    clean_env.setattr(datasets, "load_dataset",
                      lambda *a, **kw: seen.append((a, kw, os.environ.get("HF_HUB_OFFLINE"))) or "ds")
    assert load_hub_dataset("cais/mmlu", "all", split="test") == "ds"
    assert seen == [(("cais/mmlu", "all"), {"split": "test"}, "1")]
