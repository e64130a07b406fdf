"""lm-eval's private APIs, reached only through :mod:`harness_adapters.lm_eval._compat`: the
installed lm-eval has them; a release without them stops with one line naming lm-eval, the
installed version and the supported range (the harness is changed here, never our code)."""

from __future__ import annotations

import argparse
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from benchchecker_plugin.errors import InputError, MissingExtraError
from harness_adapters.lm_eval import _compat as compat
from harness_adapters.private_api import Harness
from tests.helpers import has_module, needs_module

pytestmark = needs_module("lm_eval")

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"
INSTALLED = importlib.metadata.version("lm-eval") if has_module("lm_eval") else ""


@pytest.fixture
def lm_eval_cli() -> Any:
    """lm-eval's private CLI module (imported by the tests that use it, not at collection)."""
    import lm_eval._cli

    return lm_eval._cli


def test_supported_range_is_the_extras() -> None:
    extras = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert extras["lm-eval"] == [f"{compat.LM_EVAL.dist}{compat.LM_EVAL.supported}"]


def test_installed_version_is_supported_and_has_the_private_api(lm_eval_cli: Any) -> None:
    assert compat.LM_EVAL.version() == INSTALLED
    assert compat.LM_EVAL.in_range() is True
    cli = compat.harness_cli()
    assert isinstance(cli, lm_eval_cli.HarnessCLI)
    parser = compat.run_parser(cli)
    assert isinstance(parser, argparse.ArgumentParser)
    parser.add_argument("--benchchecker-probe", dest="probe", default=None)
    namespace = compat.parse_run(cli, ["--model", "hf", "--tasks", "t1,t2", "--benchchecker-probe", "x"])
    assert (namespace.command, namespace.model, namespace.probe) == ("run", "hf", "x")


def _one_line(err: pytest.ExceptionInfo[MissingExtraError]) -> str:
    text = str(err.value)
    assert "\n" not in text and err.value.exit_code == 2
    assert isinstance(err.value, InputError) and isinstance(err.value, ValueError)
    return text


def test_missing_class_names_harness_version_and_range(monkeypatch: pytest.MonkeyPatch, lm_eval_cli: Any) -> None:
    monkeypatch.delattr(lm_eval_cli, "HarnessCLI")
    with pytest.raises(MissingExtraError) as err:
        compat.harness_cli()
    text = _one_line(err)
    assert text.startswith("`benchchecker lm-eval` needs lm_eval._cli.HarnessCLI")
    assert f"the installed lm-eval {INSTALLED} lacks" in text
    assert f"lm-eval{compat.LM_EVAL.supported}" in text
    assert "please report this" in text   # the installed version is in the range


def test_missing_instance_attribute_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    cli = compat.harness_cli()
    monkeypatch.delattr(cli, "_subparsers")
    with pytest.raises(MissingExtraError, match=re.escape("lm_eval._cli.HarnessCLI._subparsers")):
        compat.run_parser(cli)
    monkeypatch.delattr(cli, "_parser")
    with pytest.raises(MissingExtraError, match=re.escape("lm_eval._cli.HarnessCLI._parser")):
        compat.parse_run(cli, ["--tasks", "x"])


def test_missing_private_module_is_not_reported_as_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """lm-eval is installed but its ``_cli`` package is gone: the version message, not
    ``require``'s "not installed"."""
    for name in [m for m in sys.modules if m == "lm_eval._cli" or m.startswith("lm_eval._cli.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "lm_eval._cli", None)
    with pytest.raises(MissingExtraError) as err:
        compat.harness_cli()
    text = _one_line(err)
    assert "not installed" not in text and f"lm-eval {INSTALLED} lacks" in text


def test_version_outside_the_range_says_what_to_install(monkeypatch: pytest.MonkeyPatch, lm_eval_cli: Any) -> None:
    """The same lookup under a range the installed version is outside of."""
    older = Harness("lm_eval", "lm-eval", f"<{INSTALLED}")
    monkeypatch.delattr(lm_eval_cli, "HarnessCLI")
    with pytest.raises(MissingExtraError) as err:
        older.private("lm_eval._cli", "HarnessCLI", "this command")
    assert _one_line(err).endswith(f"supports lm-eval<{INSTALLED}: pip install 'lm-eval<{INSTALLED}'")


def test_cli_without_the_private_api_is_one_error_line(monkeypatch: pytest.MonkeyPatch, lm_eval_cli: Any) -> None:
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main

    monkeypatch.delattr(lm_eval_cli, "HarnessCLI")
    res = CliRunner().invoke(main, ["lm-eval", "run", "--tasks", "x"])
    assert res.exit_code == 2
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: `benchchecker lm-eval` needs lm_eval._cli.HarnessCLI")
    assert f"lm-eval {INSTALLED}" in last and compat.LM_EVAL.supported in last
