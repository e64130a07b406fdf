"""What a rescore is configured by has one record and one set of defaults
(:class:`benchchecker_plugin.rescore_options.RescoreOptions`): no function of the package or the
adapters, and no command-line option, carries its own default for the bootstrap size, its seed
or the minimums."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.rescore_options import RescoreOptions, RescoreOverrides

ROOT = Path(__file__).resolve().parent.parent
DEFINITION = ROOT / "benchchecker_plugin" / "rescore_options.py"
#: parameters whose default is RescoreOptions' alone (``seed`` where it seeds a bootstrap)
OWNED = ("n_boot", "min_clean", "min_resolved_clean")
OPTIONS = ("--n-boot", "--min-clean", "--min-resolved-clean", "--tolerance")


def _sources() -> list[Path]:
    return [p for pkg in ("benchchecker_plugin", "harness_adapters")
            for p in sorted((ROOT / pkg).rglob("*.py")) if p != DEFINITION]


def _literal(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is not None


def _own_defaults(path: Path) -> list[str]:
    """``file:line name=value`` for every literal default of an owned parameter in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            positional = a.posonlyargs + a.args
            pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
            pairs += [(arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
            names = {arg.arg for arg in positional + a.kwonlyargs}
            owned = OWNED + (("seed",) if "n_boot" in names else ())
            found += [f"{path.name}:{node.lineno} {arg.arg}={ast.unparse(d)}"
                      for arg, d in pairs if arg.arg in owned and _literal(d)]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            flag = node.args[0].value   # click.option("--n-boot", default=1000) or argparse's
            default = next((k.value for k in node.keywords if k.arg == "default"), None)
            if flag in OPTIONS and default is not None and _literal(default):
                found.append(f"{path.name}:{node.lineno} {flag} default={ast.unparse(default)}")
    return found


def test_no_signature_or_option_has_its_own_rescore_default() -> None:
    own = [hit for path in _sources() for hit in _own_defaults(path)]
    assert not own, own


def test_the_check_sees_a_literal_default(tmp_path: Path) -> None:
    """The walk itself: a planted literal default is found, a reference to the record is not."""
    planted = tmp_path / "_planted_defaults.py"
    planted.write_text("def f(x, *, n_boot=1000, seed=0): ...\n"
                       "def g(n_boot=RescoreOptions.n_boot, seed=0): ...\n"
                       "def h(seed=0): ...\n"
                       "click.option('--min-clean', default=20)\n", encoding="utf-8")
    assert _own_defaults(planted) == [
        "_planted_defaults.py:1 n_boot=1000", "_planted_defaults.py:1 seed=0",
        "_planted_defaults.py:2 seed=0", "_planted_defaults.py:4 --min-clean default=20"]


def test_the_defaults_are_the_command_lines() -> None:
    """The one set of defaults: what ``benchchecker rescore`` / ``leaderboard`` applied before
    the record existed (20 clean, 10 resolved clean, 1,000 resamples, seed 0, 2% tolerance)."""
    d = RescoreOptions()
    assert (d.min_clean, d.min_resolved_clean, d.n_boot, d.seed, d.ci, d.tolerance) == (
        20, 10, 1000, 0, 0.95, 0.02)
    assert (d.benchmark, d.tiers_path, d.instances_path, d.tier_field, d.id_field, d.group_hard) == (
        "swe-bench-verified", None, None, "difficulty", "instance_id", False)


def test_overrides_name_the_fields_and_nothing_else() -> None:
    assert set(RescoreOverrides.__annotations__) == {f.name for f in dataclasses.fields(RescoreOptions)}
    base = RescoreOptions(seed=3)
    assert RescoreOptions.of(base, n_boot=0) == RescoreOptions(seed=3, n_boot=0)
    assert RescoreOptions.of(base) is base and RescoreOptions.of() == RescoreOptions()
    with pytest.raises(TypeError, match="unexpected keyword argument 'nboot'"):
        RescoreOptions.of(nboot=3)  # type: ignore[call-arg]


@pytest.mark.parametrize(("field", "value", "message"), [
    ("n_boot", -1, "n_boot must be a non-negative integer, got -1"),
    ("n_boot", True, "n_boot must be a non-negative integer, got True"),
    ("ci", 1.0, "ci must lie strictly between 0 and 1, got 1.0"),
    ("min_clean", 2.5, "min_clean must be a non-negative integer, got 2.5"),
    ("min_resolved_clean", -3, "min_resolved_clean must be a non-negative integer, got -3"),
])
def test_check_names_the_bad_number(field: str, value: object, message: str) -> None:
    with pytest.raises(InputError) as err:
        dataclasses.replace(RescoreOptions(), **{field: value}).check()  # type: ignore[arg-type]
    assert str(err.value) == message
