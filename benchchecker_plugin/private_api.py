"""Private APIs of a harness, looked up in one place and checked against the versions we support.

The wrappers reuse a few of a harness's private names (lm-eval's ``HarnessCLI``, Inspect's
``inspect_ai._cli`` / ``_eval`` / ``_util`` helpers), which a new release may move or drop without
notice. Each harness has one ``compat`` module (:mod:`harness_adapters.lm_eval._compat`,
:mod:`harness_adapters.inspect._compat`, and the core's :mod:`benchchecker_plugin.swebench_compat`)
that fetches those names through a :class:`Harness`; the other modules import them only from there.
It lives in the core so that the core's own compat module needs no adapter import. A missing name stops the command with one line naming
the harness, the installed version and the supported range (from ``pyproject.toml``'s extras)::

    Error: `benchchecker lm-eval` needs lm_eval._cli.HarnessCLI (a private API of lm-eval), which
    the installed lm-eval 0.5.0 lacks; benchchecker supports lm-eval>=0.4.13,<0.5: pip install
    'lm-eval>=0.4.13,<0.5'

(one line in fact; a version inside the range that lacks the name asks for a report instead).

A harness that is not installed at all gets :func:`benchchecker_plugin.extras.require`'s message.
Nothing here imports a harness until a name is asked for.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass
from typing import Any

from .errors import MissingExtraError
from .extras import require

__all__ = ["Harness"]


@dataclass(frozen=True)
class Harness:
    """One harness: its import name (``lm_eval``), distribution (``lm-eval``) and the version
    specifier we support (``>=0.4.13,<0.5``)."""

    module: str
    dist: str
    supported: str

    def version(self) -> str | None:
        """The installed distribution's version (``None``: not installed, or no metadata)."""
        try:
            return importlib.metadata.version(self.dist)
        except importlib.metadata.PackageNotFoundError:
            return None

    def in_range(self) -> bool | None:
        """Whether the installed version lies in :attr:`supported` (``None``: unknown)."""
        version = self.version()
        if version is None:
            return None
        from packaging.specifiers import SpecifierSet
        from packaging.version import InvalidVersion, Version

        try:
            return Version(version) in SpecifierSet(self.supported, prereleases=True)
        except InvalidVersion:
            return None

    def private(self, module: str, name: str, what: str) -> Any:
        """``module.name`` for ``what`` (the command): :class:`MissingExtraError` naming the
        extra when the harness is not installed, or :meth:`incompatible` when it lacks the name."""
        require(self.module, what)
        try:
            found = importlib.import_module(module)
        except ImportError as exc:
            if (exc.name or "").split(".", 1)[0] != self.module:  # a dependency of the harness
                raise
            raise self.incompatible(f"{module}.{name}", what) from None
        return self.attribute(found, name, f"{module}.{name}", what)

    def attribute(self, obj: Any, name: str, described: str, what: str) -> Any:
        """``obj.name`` (``described`` names it in the error), or :meth:`incompatible`."""
        try:
            return getattr(obj, name)
        except AttributeError:
            raise self.incompatible(described, what) from None

    def incompatible(self, described: str, what: str) -> MissingExtraError:
        """The one-line error for a private name ``described`` the installed harness lacks."""
        version = self.version() or "(unknown version)"
        wanted = f"{self.dist}{self.supported}"
        advice = (f" ({version} is in that range: please report this)" if self.in_range()
                  else f": pip install '{wanted}'")
        return MissingExtraError(f"{what} needs {described} (a private API of {self.dist}), which "
                                 f"the installed {self.dist} {version} lacks; benchchecker supports "
                                 f"{wanted}{advice}")
