"""Optional harnesses: ``lm-eval``, ``inspect-ai`` and ``swebench`` are extras, not dependencies.

``pip install benchchecker_plugin`` installs the core (detectors, scorer, flags, reports); a
wrapper or loader that needs a harness imports it through :func:`require`, which turns a missing
package into one line naming the extra to install::

    benchchecker lm-eval run ...  ->  Error: `benchchecker lm-eval` needs lm-eval, which is not
    installed: pip install 'benchchecker_plugin[lm-eval]'
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import MissingExtraError

__all__ = ["EXTRAS", "require"]

#: import name -> (distribution, extra)
EXTRAS = {"lm_eval": ("lm-eval", "lm-eval"), "inspect_ai": ("inspect-ai", "inspect"),
          "swebench": ("swebench", "swebench")}


def require(module: str, what: str) -> ModuleType:
    """Import ``module`` (``lm_eval``, ``inspect_ai.log``, ``swebench.harness.utils``, ...) for
    ``what`` (the command or feature), or raise :class:`MissingExtraError` naming the extra."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.split(".", 1)[0]
        if top not in EXTRAS or (exc.name or "").split(".", 1)[0] != top:
            raise
        dist, extra = EXTRAS[top]
        raise MissingExtraError(f"{what} needs {dist}, which is not installed: "
                                f"pip install 'benchchecker_plugin[{extra}]'") from None
