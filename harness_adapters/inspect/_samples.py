"""What an Inspect sample says about itself, read the same way by the detectors of every task:
its question text and its instance id."""

from __future__ import annotations

from typing import Any


def input_text(sample: Any) -> str | None:
    """The sample's question: its ``input`` text, or the text of its last user message."""
    value = getattr(sample, "input", None)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        users = [m for m in value if getattr(m, "role", None) == "user"]
        return str(users[-1].text) if users else None
    return None


def fallback_id(sample: Any, position: int) -> str:
    """The id of a sample that is not in the reference: ``metadata["instance_id"]``, its sample
    id, or (no id: Inspect numbers such samples 1..N in run order) ``position + 1``."""
    meta = getattr(sample, "metadata", None) or {}
    if meta.get("instance_id") not in (None, ""):
        return str(meta["instance_id"])
    return str(sample.id) if getattr(sample, "id", None) is not None else str(position + 1)
