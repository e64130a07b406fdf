"""Package-level guarantees: sorted public API, and no harness imported by the core."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import benchchecker_plugin


def _packages():
    yield benchchecker_plugin
    for info in pkgutil.walk_packages(benchchecker_plugin.__path__, "benchchecker_plugin."):
        if info.ispkg:
            yield importlib.import_module(info.name)


def test_every_package_exports_a_sorted_all_that_exists() -> None:
    for pkg in _packages():
        exported = getattr(pkg, "__all__", None)
        if exported is None:
            continue
        assert list(exported) == sorted(exported), pkg.__name__
        for name in exported:
            assert hasattr(pkg, name), f"{pkg.__name__}.{name}"


def test_core_imports_no_harness() -> None:
    code = ("import sys, benchchecker_plugin, benchchecker_plugin.flags, benchchecker_plugin.models, "
            "benchchecker_plugin.cli\n"
            "bad = [m for m in ('lm_eval', 'inspect_ai', 'swebench') if m in sys.modules]\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)
