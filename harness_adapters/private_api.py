"""The harness private-API lookup, re-exported from its home in the core
(:mod:`benchchecker_plugin.private_api`), so that the core needs no adapter import."""

from benchchecker_plugin.private_api import Harness

__all__ = ["Harness"]
