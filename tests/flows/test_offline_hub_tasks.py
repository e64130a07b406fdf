"""Issue 39 item 2 (the wrappers), run as a user runs it: ``benchchecker lm-eval run --tasks
mmlu_anatomy`` with ``--contamination-filter`` or ``--contamination-detect --dry-run`` while the
hub is out of reach.

Before: a line "cannot read task mmlu_anatomy (...); it runs unfiltered" (it could not: lm-eval's
own run needs the same download), then "Error: the run has no instances to filter" or a dry run of
"0 probes on 0 task(s)". Expected: one line naming the task and the option for a local copy, exit 2.
Slow: lm-eval indexes its thousands of built-in tasks to find ``mmlu_anatomy`` (~8 s a run).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "BENCHCHECKER_PROGRESS": "0"}
LINE = ("Error: --tasks mmlu_anatomy: lm-eval cannot load it (ConnectionError: Couldn't reach "
        "'cais/mmlu' on the Hub (OfflineModeIsEnabled)); its dataset is on the Hugging Face hub, "
        "unreachable here: read a local copy with --include_path DIR")


def _flags(tmp_path: Path) -> Path:
    from benchchecker_plugin.flags import ContaminationFlag, write_flags

    return write_flags(tmp_path / "flags.jsonl", [ContaminationFlag(
        benchmark="mmlu", instance_id="anatomy/0", model="m", method="ts_guessing.multichoice",
        contaminated=True, score=1.0)])


@pytest.mark.slow
@pytest.mark.parametrize("options", [["--contamination-filter", "FLAGS", "--contamination-model", "m"],
                                     ["--contamination-detect", "--dry-run"]],
                         ids=["filter", "detect-dry-run"])
def test_a_hub_task_offline_is_one_line_naming_the_local_copy(tmp_path: Path, options: list[str]) -> None:
    flags = _flags(tmp_path)
    args = [str(flags) if a == "FLAGS" else a for a in options]
    proc = subprocess.run(["benchchecker", "lm-eval", "run", "--model", "hf", "--model_args",
                           "pretrained=no-such-model", "--tasks", "mmlu_anatomy", *args,
                           "--output_path", "out", "--limit", "2"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, **OFFLINE))
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert lines[-1].startswith(LINE), lines
    assert "Traceback" not in proc.stderr and "runs unfiltered" not in proc.stderr, lines
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_plain_run_offline_is_one_line_too(tmp_path: Path) -> None:
    """Without any contamination option the wrapper hands the run to lm-eval as it is; a run that
    stops on the unreachable hub was lm-eval's 70-line traceback, and is one line naming the
    local-copy options (for a task and for a model), exit 2."""
    proc = subprocess.run(["benchchecker", "lm-eval", "run", "--model", "dummy", "--tasks", "mmlu_anatomy",
                           "--limit", "2"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, **OFFLINE))
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert lines[-1].startswith("Error: lm-eval run stopped (ConnectionError: Couldn't reach 'cais/mmlu' "
                                "on the Hub"), lines
    assert "--include_path DIR" in lines[-1] and "pretrained=LOCAL_FOLDER" in lines[-1]
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("command", [["ts-guess", "--benchmark", "mmlu", "--limit", "2", "--dry-run", "-o", "f.jsonl"],
                                     ["ts-guess", "--benchmark", "truthfulqa", "--limit", "2", "--dry-run",
                                      "-o", "f.jsonl"]],
                         ids=["mmlu", "truthfulqa"])
def test_a_hub_benchmark_without_offline_flags_is_not_retried(tmp_path: Path, command: list[str]) -> None:
    """No offline variable set and a hub that refuses connections: the hub is asked once and the
    run ends at once with the line naming --data (it took ~24 s of the hub client's retries)."""
    import time

    env = {k: v for k, v in os.environ.items() if k not in OFFLINE and k != "HF_ENDPOINT"}
    start = time.perf_counter()
    proc = subprocess.run(["benchchecker", *command], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env=dict(env, HF_ENDPOINT="http://127.0.0.1:9", BENCHCHECKER_PROGRESS="0"))
    took = time.perf_counter() - start
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert lines[-1].startswith("Error: ") and "offline, pass --data PATH" in lines[-1], lines
    assert took < 15, f"{took:.1f} s"
