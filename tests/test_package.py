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


def test_the_listed_packages_are_every_package_and_the_shipped_tasks() -> None:
    """pyproject lists its packages (tasks/ is mapped into the package); none may be left out."""
    import json
    import subprocess
    import sys
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    # setuptools' own finders, in a child: importing setuptools in a process where another test
    # already imported the standard library's distutils trips its distutils shim
    script = ("import json, sys; from setuptools import find_namespace_packages, find_packages; "
              "print(json.dumps([find_packages(sys.argv[1], include=['benchchecker_plugin*', "
              "'harness_adapters*']), find_namespace_packages(sys.argv[1] + '/tasks')]))")
    found, namespaces = json.loads(subprocess.run([sys.executable, "-c", script, str(root)],
                                                  capture_output=True, text=True, check=True).stdout)
    tasks = ["benchchecker_plugin.tasks"] + [f"benchchecker_plugin.tasks.{p}" for p in namespaces
                                             if "__pycache__" not in p]
    assert sorted(config["packages"]) == sorted(found + tasks)
    assert config["package-dir"] == {"benchchecker_plugin.tasks": "tasks"}
