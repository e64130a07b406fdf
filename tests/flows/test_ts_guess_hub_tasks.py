"""Issue 39 items 2 and 9 for ``ts-guess``, run as a user runs them: the installed ``benchchecker``
command in a temporary folder holding ``my_tasks/my_task.yaml`` (lm-eval's ARC definition over a
local JSON file).

Item 2: the README's own line ``benchchecker ts-guess --task arc_easy,my_task --include_path
my_tasks/ ...`` with the hub out of reach. Before: 28 s of retries, even with ``--dry-run``, then a
78-line ``ConnectionError: Couldn't reach 'allenai/ai2_arc'`` traceback, and the local task lost
with it. Expected: one line for ``arc_easy`` naming the option for a local copy, ``my_task`` still
probed (with ``--dry-run``: counted), no traceback. "Out of reach" is the offline flags (as every
flow runs), or, without them, a hub address that refuses connections (``HF_ENDPOINT``: what a
machine without network sees, on any machine); ``HF_HOME`` is empty so no cached copy answers.

Item 9: ``--tasks`` (lm-eval's spelling) is accepted as ``--task``; ``patch-presence --help`` says
what pre-patch-only means and why it counts as clean.

Every ``ts-guess`` here starts lm-eval's task index (~10 s): slow.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.docs import docs_text
from tests.helpers.mc_tasks import ARC, write_jsonl

REPO = Path(__file__).resolve().parents[2]
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
#: the hub out of reach without the offline flags: nothing listens on port 9 (discard)
UNREACHABLE = {"HF_ENDPOINT": "http://127.0.0.1:9"}
HINT = "read a local copy with --include_path DIR"


def _readme_line() -> str:
    """The README's ``ts-guess --task arc_easy,...`` line, as written."""
    text = docs_text()
    [line] = [ln.strip() for ln in text.splitlines() if ln.startswith("benchchecker ts-guess --task arc_easy,")]
    assert line == ("benchchecker ts-guess --task arc_easy,my_task --include_path my_tasks/ "
                    "--model hf/smollm2-135m -o tsg.jsonl"), line
    return line


def _user_folder(tmp_path: Path) -> Path:
    """``my_tasks/my_task.yaml``: lm-eval's ARC-Easy definition, its dataset a local JSON file."""
    tasks = tmp_path / "my_tasks"
    tasks.mkdir()
    data = write_jsonl(tasks / "my_arc.jsonl", ARC)
    (tasks / "my_task.yaml").write_text(
        f"task: my_task\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {data}\n"
        "test_split: test\noutput_type: multiple_choice\n"
        'doc_to_text: "Question: {{question}}\\nAnswer:"\n'
        'doc_to_target: "{{choices.label.index(answerKey)}}"\n'
        'doc_to_choice: "{{choices.text}}"\n'
        "metric_list:\n  - metric: acc\n    aggregation: mean\n    higher_is_better: true\n",
        encoding="utf-8")
    return tmp_path


def _run(command: str, cwd: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    base = {k: v for k, v in os.environ.items() if k not in OFFLINE and k != "HF_ENDPOINT"}
    start = time.monotonic()
    proc = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**base, "BENCHCHECKER_PROGRESS": "0", "HF_HOME": str(cwd / "hf"), **env})
    return proc, time.monotonic() - start


def _arc_easy_lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "arc_easy" in ln]


def _one_line_naming_the_local_copy(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    [line] = _arc_easy_lines(proc.stderr)
    assert line.startswith("no detector for this task: arc_easy (lm-eval cannot load it "
                           "(ConnectionError: Couldn't reach 'allenai/ai2_arc' on the Hub"), line
    assert HINT in line, line


@pytest.mark.slow
@pytest.mark.model
def test_the_readme_line_offline_runs_the_local_task(tmp_path: Path) -> None:
    cwd = _user_folder(tmp_path)
    proc, _ = _run(_readme_line(), cwd, OFFLINE)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    _one_line_naming_the_local_copy(proc)
    flags = [json.loads(ln) for ln in (cwd / "tsg.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(f["benchmark"], f["instance_id"]) for f in flags] == [("my_task", str(i)) for i in range(len(ARC))]
    assert {f["method"] for f in flags} == {"ts_guessing.multichoice"}
    assert f"my_task: {len(ARC)} asked, 0 failed" in proc.stdout, proc.stdout


@pytest.mark.slow
def test_the_readme_line_dry_run_offline_counts_the_local_task(tmp_path: Path) -> None:
    cwd = _user_folder(tmp_path)
    proc, seconds = _run(_readme_line() + " --dry-run", cwd, OFFLINE)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    _one_line_naming_the_local_copy(proc)
    assert proc.stdout.startswith(f"arc_easy,my_task: {len(ARC)} probes; dry run: {len(ARC)} model calls")
    assert not (cwd / "tsg.jsonl").exists()
    assert seconds < 30, seconds


@pytest.fixture(scope="module")
def unreachable_dry_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    cwd = _user_folder(tmp_path_factory.mktemp("unreachable"))
    proc, seconds = _run(_readme_line() + " --dry-run", cwd, UNREACHABLE)
    return {"proc": proc, "seconds": seconds, "cwd": cwd}


@pytest.mark.slow
def test_an_unreachable_hub_without_offline_flags_is_one_line_and_the_local_task_counts(
        unreachable_dry_run: dict[str, Any]) -> None:
    proc = unreachable_dry_run["proc"]
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    _one_line_naming_the_local_copy(proc)
    assert proc.stdout.startswith(f"arc_easy,my_task: {len(ARC)} probes; dry run: {len(ARC)} model calls")
    assert not (unreachable_dry_run["cwd"] / "tsg.jsonl").exists()


@pytest.mark.slow
def test_an_unreachable_hub_without_offline_flags_is_not_retried(unreachable_dry_run: dict[str, Any]) -> None:
    proc = unreachable_dry_run["proc"]
    assert not re.search(r"Retrying in \d+s", proc.stderr), proc.stderr[-3000:]
    assert unreachable_dry_run["seconds"] < 30, unreachable_dry_run["seconds"]


# --------------------------------------------------------------------------------------- item 9
@pytest.mark.slow
def test_tasks_is_accepted_as_task(tmp_path: Path) -> None:
    cwd = _user_folder(tmp_path)
    proc, _ = _run("benchchecker ts-guess --tasks my_task --include_path my_tasks/ "
                   "--model hf/smollm2-135m --dry-run", cwd, OFFLINE)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert proc.stdout.startswith(f"my_task: {len(ARC)} probes; dry run: {len(ARC)} model calls"), proc.stdout


def test_patch_presence_help_says_what_pre_patch_only_means_and_why_it_is_clean(tmp_path: Path) -> None:
    proc, _ = _run("benchchecker patch-presence --help", tmp_path, OFFLINE)
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert ("false (the snapshot holds the buggy lines, category pre-patch-only: the code the fix "
            "changes is there unfixed, so the fix was not yet in the repository at the cutoff; clean "
            "even when the fix is old and was rewritten later, since the cutoff's snapshot is what "
            "is judged)") in text, text
