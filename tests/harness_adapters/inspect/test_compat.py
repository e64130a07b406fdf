"""Inspect's private APIs, reached only through :mod:`harness_adapters.inspect._compat`: the
installed inspect-ai has every one; a release without one stops with one line naming inspect-ai,
the installed version and the supported range (the harness is changed here, never our code)."""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
import tomllib
from pathlib import Path

import click
import pytest

from benchchecker_plugin.errors import MissingExtraError
from harness_adapters.inspect import _compat as compat
from tests.helpers import has_module, needs_module

pytestmark = needs_module("inspect_ai")

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"
INSTALLED = importlib.metadata.version("inspect-ai") if has_module("inspect_ai") else ""
ACCESSORS = {"eval_command": lambda: compat.eval_command(),
             "parse_cli_config": lambda: compat.parse_cli_config(None, None),
             "load_tasks": lambda: compat.load_tasks(["(a task file)"]),  # see test_load_tasks
             "resolve_task_sample_ids": lambda: compat.resolve_task_sample_ids("t", None, ["t"]),
             "slice_dataset": lambda: compat.slice_dataset([], None, None),
             "parse_sample_id": lambda: compat.parse_sample_id(None),
             "parse_samples_limit": lambda: compat.parse_samples_limit(None),
             "PrerequisiteError": lambda: compat.prerequisite_error()}


def test_supported_range_is_the_extras() -> None:
    extras = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert extras["inspect"] == [f"{compat.INSPECT.dist}{compat.INSPECT.supported}"]


def test_every_private_name_has_an_accessor() -> None:
    assert set(ACCESSORS) == set(compat.PRIVATE_NAMES)


def test_installed_version_is_supported_and_has_every_private_name() -> None:
    assert compat.INSPECT.version() == INSTALLED
    assert compat.INSPECT.in_range() is True
    for name, module in compat.PRIVATE_NAMES.items():
        assert hasattr(importlib.import_module(module), name), f"{module}.{name}"
        if name != "load_tasks":
            ACCESSORS[name]()   # resolves and runs against the real Inspect
    command = compat.eval_command()
    assert isinstance(command, click.Command) and command.name == "eval"
    limit = compat.parse_samples_limit("3-5")   # `--limit 3-5`: samples 3 to 5, counted from 1
    assert list(range(1, 11))[slice(*limit)] == [3, 4, 5]
    assert compat.parse_sample_id("a, b") == ["a", "b"]
    assert issubclass(compat.prerequisite_error(), Exception)


def test_load_tasks_loads_a_task_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tiny_task.py").write_text(
        "from inspect_ai import Task, task\n"
        "from inspect_ai.dataset import MemoryDataset, Sample\n\n\n"
        "@task\ndef tiny(n: int = 1):\n"
        "    return Task(dataset=MemoryDataset([Sample(input='q', target='a', id=i)\n"
        "                                       for i in range(n)]))\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)   # Inspect globs task files relative to the working directory
    args = compat.parse_cli_config(["n=3"], None)
    tasks = compat.load_tasks(["tiny_task.py"], args)
    assert [t.name for t in tasks] == ["tiny"] and len(tasks[0].dataset) == 3


@pytest.mark.parametrize("name", sorted(ACCESSORS))
def test_missing_name_is_one_line_naming_harness_version_and_range(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module = compat.PRIVATE_NAMES[name]
    monkeypatch.delattr(importlib.import_module(module), name)
    with pytest.raises(MissingExtraError) as err:
        ACCESSORS[name]()
    text = str(err.value)
    assert "\n" not in text and err.value.exit_code == 2
    assert text.startswith(f"`benchchecker inspect eval` needs {module}.{name} (a private API of "
                           f"inspect-ai), which the installed inspect-ai {INSTALLED} lacks")
    assert f"inspect-ai{compat.INSPECT.supported}" in text


def test_missing_private_module_is_not_reported_as_not_installed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("inspect_ai._util.samples")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "inspect_ai._util.samples", None)
    with pytest.raises(MissingExtraError) as err:
        compat.parse_samples_limit("1")
    assert "not installed" not in str(err.value)
    assert f"inspect-ai {INSTALLED} lacks" in str(err.value)


def test_eval_command_that_is_not_a_command_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import inspect_ai._cli.eval as inspect_eval

    monkeypatch.setattr(inspect_eval, "eval_command", lambda: None)
    with pytest.raises(MissingExtraError, match="eval_command as a click command"):
        compat.eval_command()


def test_inspect_prerequisite_error_becomes_an_input_error() -> None:
    """Through the compat names, an Inspect ``--sample-id`` naming no sample is still turned into
    our one-line :class:`InputError` naming the task (:func:`evaluated_samples`)."""
    from inspect_ai.dataset import MemoryDataset, Sample

    from benchchecker_plugin.errors import InputError
    from harness_adapters.inspect._detect import evaluated_samples

    class Task:
        name = "t"
        dataset = MemoryDataset([Sample(input="q", target="a", id=1)])

    assert [s.id for s in evaluated_samples(Task(), None, None, ["t"])] == [1]
    with pytest.raises(InputError, match="task 't'"):
        evaluated_samples(Task(), None, ["no-such-id"], ["t"])
