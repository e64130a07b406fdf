"""A command whose harness is not installed says in one line which extra to install."""

from __future__ import annotations

import sys

import pytest

from benchchecker_plugin.errors import MissingExtraError
from benchchecker_plugin.extras import require


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Make ``import <name>`` fail as it does when the package is not installed."""
    def hide(name: str) -> None:
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            monkeypatch.delitem(sys.modules, mod)
        monkeypatch.setitem(sys.modules, name, None)   # import raises ModuleNotFoundError
    return hide


@pytest.mark.parametrize("module,extra", [("lm_eval._cli", "lm-eval"), ("inspect_ai.log", "inspect"),
                                          ("swebench.harness.utils", "swebench")])
def test_missing_harness_names_its_extra(module: str, extra: str, without) -> None:
    without(module.split(".")[0])
    with pytest.raises(MissingExtraError) as err:
        require(module, "this command")
    assert str(err.value).endswith(f"pip install 'benchchecker_plugin[{extra}]'")
    assert err.value.exit_code == 2


def test_wrapper_command_without_its_harness_is_one_line(without) -> None:
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main

    without("lm_eval")
    res = CliRunner().invoke(main, ["lm-eval", "run", "--tasks", "x"])
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines()[-1] == (
        "Error: `benchchecker lm-eval` needs lm-eval, which is not installed: "
        "pip install 'benchchecker_plugin[lm-eval]'")


def test_other_import_errors_are_not_hidden() -> None:
    with pytest.raises(ModuleNotFoundError):
        require("not_a_module_anywhere", "x")
