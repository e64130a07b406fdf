"""Whether the Hugging Face hub can be reached, asked once, before a harness loads hub datasets.

With no network and no offline setting, ``huggingface_hub`` retries every request five times
(1 + 2 + 4 + 8 + 8 s) before the one line that names the local-copy option can be printed.
:func:`offline_unless_reachable` asks once -- a TCP connection to the hub's host (``HF_ENDPOINT``,
default ``https://huggingface.co``) with a short timeout -- and, when it fails, turns on the
libraries' own offline mode (``HF_HUB_OFFLINE``, ``HF_DATASETS_OFFLINE``, in the environment and
in ``huggingface_hub`` and ``datasets`` if they are imported already): a hub dataset then fails at
once, and local copies load as before. Nothing is asked when offline mode is already on.
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any
from urllib.parse import urlsplit

__all__ = ["hub_endpoint", "hub_reachable", "load_hub_dataset", "offline_unless_reachable"]

_TRUE = {"1", "ON", "YES", "TRUE"}


def hub_endpoint() -> str:
    """The hub's address, as ``huggingface_hub`` reads it."""
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def hub_reachable(endpoint: str | None = None, timeout: float = 3.0) -> bool:
    """Whether a TCP connection to ``endpoint``'s host and port opens within ``timeout`` seconds."""
    parts = urlsplit(endpoint or hub_endpoint())
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:   # no route, refused, unknown host, timed out: not reachable
        return False


def _offline_already() -> bool:
    return any(os.environ.get(k, "").upper() in _TRUE
               for k in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"))


def offline_unless_reachable(timeout: float = 3.0) -> bool:
    """Turn on offline mode when the hub cannot be reached (module doc); whether it was turned
    on by this call."""
    if _offline_already() or hub_reachable(timeout=timeout):
        return False
    os.environ["HF_HUB_OFFLINE"] = os.environ["HF_DATASETS_OFFLINE"] = "1"
    hub = sys.modules.get("huggingface_hub.constants")
    if hub is not None:
        hub.HF_HUB_OFFLINE = True   # type: ignore[attr-defined]
    config = sys.modules.get("datasets.config")
    if config is not None:
        config.HF_HUB_OFFLINE = config.HF_DATASETS_OFFLINE = True   # type: ignore[attr-defined]
    return True


def load_hub_dataset(*args: Any, **kwargs: Any) -> Any:
    """``datasets.load_dataset(*args, **kwargs)`` for a dataset named on the hub, with the hub
    asked once first (:func:`offline_unless_reachable`): out of reach, it fails at once instead of
    after the hub client's retries."""
    import datasets

    offline_unless_reachable()
    return datasets.load_dataset(*args, **kwargs)
