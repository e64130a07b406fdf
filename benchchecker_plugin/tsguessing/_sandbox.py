"""Rendering task templates we did not write: Jinja in a sandbox, with a time and size budget.

A task's ``doc_to_text`` / ``doc_to_choice`` / ``doc_to_target`` is a Jinja template from a YAML
file the user gave. Rendered as lm-eval renders it (a plain ``jinja2.Environment``), a template
can read any attribute of any object (``{{ cycler.__init__.__globals__ }}``) and loop a billion
times. :func:`sandboxed_environment` gives a :class:`jinja2.sandbox.SandboxedEnvironment` (no
unsafe attributes; ``range`` capped at 100,000 by Jinja) whose every call and ``*`` / ``**``
checks a deadline (:data:`RENDER_SECONDS` per rendering) and whose output is capped at
:data:`RENDER_CHARS`: past either, the rendering raises :class:`TemplateBudgetError`.
"""

from __future__ import annotations

import time
from typing import Any

from ..errors import DataError

RENDER_SECONDS = 2.0
RENDER_CHARS = 1 << 20
_MAX_OPERAND = 1 << 20   # a string or list made by * or ** larger than this is refused


class TemplateBudgetError(DataError):
    """A template that takes longer than :data:`RENDER_SECONDS` or writes more than
    :data:`RENDER_CHARS` characters."""


def sandboxed_environment(like: Any = None) -> Any:
    """A budgeted sandbox with the settings, filters and tests of ``like`` (lm-eval's ``env``)."""
    from jinja2 import BaseLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    class _Budgeted(SandboxedEnvironment):
        intercepted_binops = frozenset(["*", "**"])
        deadline = float("inf")

        def _check(self) -> None:
            if time.monotonic() > self.deadline:
                raise TemplateBudgetError(f"the template takes longer than {RENDER_SECONDS:g} s "
                                          "to render; refused")

        def call(self, context: Any, obj: Any, *args: Any, **kwargs: Any) -> Any:
            self._check()
            return super().call(context, obj, *args, **kwargs)

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            self._check()
            if operator == "**" and isinstance(right, int) and abs(right) > 10_000:
                raise TemplateBudgetError(f"the template raises to the power {right}; refused")
            seq = left if isinstance(left, (str, list, tuple)) else right
            if operator == "*" and isinstance(seq, (str, list, tuple)):
                n = right if isinstance(right, int) else left if isinstance(left, int) else 1
                size = len(seq) * max(n, 0)
                if size > _MAX_OPERAND:
                    raise TemplateBudgetError(f"the template builds a {size}-item sequence; "
                                              "refused")
            return super().call_binop(context, operator, left, right)

    env = _Budgeted(loader=BaseLoader(), undefined=getattr(like, "undefined", StrictUndefined),
                    keep_trailing_newline=getattr(like, "keep_trailing_newline", True))
    if like is not None:
        env.filters.update(like.filters)
        env.tests.update(like.tests)
    return env


def render_budgeted(env: Any, template: Any, doc: dict[str, Any]) -> str:
    """``template`` (compiled by ``env`` from :func:`sandboxed_environment`) rendered with
    ``doc`` within the budget."""
    env.deadline = time.monotonic() + RENDER_SECONDS
    parts: list[str] = []
    size = 0
    try:
        for piece in template.generate(**doc):
            size += len(piece)
            if size > RENDER_CHARS:
                raise TemplateBudgetError(f"the template writes more than {RENDER_CHARS} "
                                          "characters; refused")
            env._check()
            parts.append(piece)
    finally:
        env.deadline = float("inf")
    return "".join(parts)
