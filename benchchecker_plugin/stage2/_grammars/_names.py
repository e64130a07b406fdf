"""Small helpers shared by the grammar modules: node text and field look-up."""

from __future__ import annotations

from typing import Any


def text(node: Any) -> str:
    """The source text of ``node`` with whitespace removed (UTF-8, undecodable bytes replaced)."""
    return "".join(node.text.decode("utf-8", "replace").split())


def field(node: Any, *names: str) -> Any:
    """The first of ``names`` that ``node`` has as a field, else ``None``."""
    for name in names:
        child = node.child_by_field_name(name)
        if child is not None:
            return child
    return None
