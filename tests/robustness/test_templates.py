"""Issue 37: a task's Jinja template looping a billion times hung our task reader (lm-eval renders
templates unsandboxed); lm-eval's own errors inside ``TaskManager.load()`` (a Jinja error, a
YAML including itself, a target out of range) ended the run with a traceback, although the
README promises one line per task. Templates we render are now sandboxed with a time and size
budget, and each task is loaded on its own: its failure is its one line."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from benchchecker_plugin.tsguessing._sandbox import (
    RENDER_CHARS,
    TemplateBudgetError,
    render_budgeted,
    sandboxed_environment,
)
from tests.helpers.mc_tasks import ARC

pytestmark = pytest.mark.timeout(60)


def _render(text: str, **doc: object) -> str:
    env = sandboxed_environment()
    return render_budgeted(env, env.from_string(text), doc)


def test_plain_templates_render_as_before() -> None:
    assert _render("{{question}} {{choices.text | join(', ')}}", question="Q?",
                   choices={"text": ["a", "b"]}) == "Q? a, b"


@pytest.mark.parametrize("template", [
    "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
    "{% for i in range(99999) %}{% for j in 'x' * 99999 %}{% endfor %}{% endfor %}",
])
def test_a_billion_iterations_fail_fast(template: str) -> None:
    start = time.monotonic()
    with pytest.raises(TemplateBudgetError, match="takes longer than"):
        _render(template)
    assert time.monotonic() - start < 10


@pytest.mark.parametrize(("template", "error"), [
    ("{% for i in range(1000000000) %}x{% endfor %}", OverflowError),   # Jinja's own sandbox
    ("{{ 'x' * 1000000000 }}", TemplateBudgetError),
    ("{{ 10 ** 1000000 }}", TemplateBudgetError),
    ("{% for i in range(99999) %}{{ 'y' * 1000 }}{% endfor %}", TemplateBudgetError),
])
def test_sizes_are_bounded(template: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        _render(template)
    assert RENDER_CHARS == 1 << 20


def test_unsafe_attributes_are_refused() -> None:
    from jinja2.exceptions import SecurityError

    with pytest.raises(SecurityError):
        _render("{{ cycler.__init__.__globals__ }}", cycler=type("C", (), {"__init__": lambda s: None})())


BAD = {
    "jinja_error": 'doc_to_text: "{{question}"\n',
    "billion_loop": ('doc_to_text: "{% for i in range(99999) %}{% for j in range(99999) %}'
                     '{% endfor %}{% endfor %}{{question}}"\n'),
}


def _write(folder: Path) -> Path:
    data = folder / "arc.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ARC), encoding="utf-8")
    good = 'doc_to_text: "{{question}}"\n'
    for name, body in {"good": good, **BAD}.items():
        (folder / f"{name}.yaml").write_text(
            f"task: {name}\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {data}\n"
            f"test_split: test\noutput_type: multiple_choice\n{body}"
            'doc_to_choice: "{{choices.text}}"\ndoc_to_target: "{{choices.label.index(answerKey)}}"\n'
            "metric_list:\n  - metric: acc\n", encoding="utf-8")
    (folder / "self_include.yaml").write_text("include: self_include.yaml\ntask: self_include\n")
    return folder


@pytest.mark.slow   # lm-eval's import and task index: ~10 s
def test_each_task_that_lm_eval_cannot_load_is_its_one_line(tmp_path: Path) -> None:
    pytest.importorskip("lm_eval")
    from lm_eval.tasks import TaskManager

    from harness_adapters.lm_eval._detect import load_each

    manager = TaskManager(include_path=str(_write(tmp_path)), include_defaults=False)
    names = ["good", *BAD, "self_include"]
    names = [n for n in names if manager.match_tasks([n])]
    start = time.monotonic()
    tasks, failed = load_each(manager, names)
    assert time.monotonic() - start < 30
    assert list(tasks) == ["good"]
    assert set(failed) == set(names) - {"good"} and "jinja_error" in failed
    for name, why in failed.items():
        assert why.startswith("lm-eval cannot load it") and "\n" not in why, (name, why)
    assert "billion_loop" not in failed or "takes longer than" in failed["billion_loop"]
