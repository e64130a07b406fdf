"""Issue 39 item 7 (terminal output), run as a user runs it: the installed ``benchchecker`` with
its output on a pipe, on the real SWE-bench Verified submissions and MMLU rows.

- ``rescore`` and ``leaderboard`` printed 30-column pandas frames (~475-character lines); expected:
  a table of the few columns that matter, the files (``--json``, ``leaderboard.csv``) holding the
  rest.
- ``flags show`` cut two long model names to one identical prefix (two equal rows).
- Progress counted batches (``13/125``) with no rate or ETA, printed a ``generate ...: 1/1
  (100%)`` line per batch, and named a model folder ``hf//...``; expected: one bar per job with
  items/s and ETA, names in full. On a pipe the bar is its log lines
  (``benchchecker: <job>: 4/8 (50%), 0.2 items/s, ETA 19 s, 19 s``).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers import SHARED_DATA, require_shared_data

VERIFIED = SHARED_DATA / "swebench_verified" / "swebench_verified_composite.jsonl"
SONNET = SHARED_DATA / "swebench_experiments" / "20240620_sweagent_claude3.5sonnet"
CUTOFFS = SHARED_DATA / "model_cutoffs" / "model_cutoffs.csv"
MODEL_MAP = SHARED_DATA / "model_cutoffs" / "submission_models.csv"
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "BENCHCHECKER_PROGRESS": "0", "COLUMNS": "80"}
WIDTH = 200   # a terminal line, generously


def _benchchecker(args: list[object], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["benchchecker", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=900, env={**os.environ, **OFFLINE, **env})


@pytest.fixture(scope="module")
def swe_flags(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's clone-free patch-date flags, made by the installed command."""
    require_shared_data("swebench_verified")
    require_shared_data("swebench_experiments")
    folder = tmp_path_factory.mktemp("swe_flags")
    proc = _benchchecker(["flags", "patch-dates", VERIFIED, "--cutoffs", CUTOFFS,
                          "-o", "swe_flags.jsonl"], folder)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return folder / "swe_flags.jsonl"


def _assert_compact(stdout: str, submission: str) -> None:
    lines = stdout.splitlines()
    assert lines and submission in stdout
    assert max(map(len, lines)) <= WIDTH, f"{max(map(len, lines))}-character lines:\n{lines[0][:300]}"


def test_rescore_prints_a_compact_table(swe_flags: Path, tmp_path: Path) -> None:
    proc = _benchchecker(["rescore", "--results", SONNET, "--flags", swe_flags, "--tiers", VERIFIED,
                          "--model", "gpt-4o-2024-05-13"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    _assert_compact(proc.stdout, SONNET.name)


def test_leaderboard_prints_a_compact_table(swe_flags: Path, tmp_path: Path) -> None:
    proc = _benchchecker(["leaderboard", "--submissions", SONNET, "--flags", swe_flags, "--tiers",
                          VERIFIED, "--model-map", MODEL_MAP, "--n-boot", "0", "--out", "lb"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "lb" / "leaderboard.csv").is_file()
    _assert_compact(proc.stdout, SONNET.name)


def test_flags_show_names_each_model_in_full(tmp_path: Path) -> None:
    """Two fine-tunes of one model (a long shared prefix) on an 80-column pipe: two rows, each
    with its model's whole name."""
    from benchchecker_plugin.flags import ContaminationFlag, write_flags

    models = [f"hf/my-org/SmolLM2-135M-Instruct-finetuned-on-our-internal-mix-{tag}"
              for tag in ("seed0", "seed1")]
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag(benchmark="mmlu", instance_id=f"astronomy/{i}", model=m,
                          method="ts_guessing.multichoice", contaminated=i % 2 == 0, score=1.0)
        for m in models for i in range(4)])
    proc = _benchchecker(["flags", "show", flags], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for model in models:
        assert sum(model in line for line in proc.stdout.splitlines()) == 1, proc.stdout


@pytest.mark.slow
@pytest.mark.model
def test_progress_is_one_job_line_with_rate_and_eta_and_the_full_model_name(tmp_path: Path) -> None:
    """``ts-guess --model hf/DIR`` (a model folder of the user's: a tiny GPT-2 saved by
    transformers) on 8 MMLU rows, two batches of 4, stderr a pipe."""
    mmlu = require_shared_data("mmlu")
    from benchchecker_plugin.tsguessing import load_mmlu
    from tests.helpers.tiny_lm import build_tiny_lm

    rows = load_mmlu(mmlu, subjects=["astronomy"])[:8]
    mine = build_tiny_lm(tmp_path / "my-model", [r.question + " " + " ".join(r.options) for r in rows])
    env = {k: v for k, v in {**os.environ, **OFFLINE}.items() if k != "BENCHCHECKER_PROGRESS"}
    proc = subprocess.run(
        ["benchchecker", "ts-guess", "--benchmark", "mmlu", "--data", str(mmlu),
         "--subject", "astronomy", "--limit", "8", "--batch-size", "4", "--max-tokens", "8",
         "--model", f"hf/{mine}", "--no-cache",
         "-o", "tsg.jsonl"], cwd=tmp_path, capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "hf//" not in proc.stdout + proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("benchchecker: ")]
    assert lines, proc.stderr
    jobs = {ln.split(": ")[1] for ln in lines}
    assert len(jobs) == 1, lines                     # one bar for the job, none per batch
    [job] = jobs
    assert job.startswith("ts-guessing ") and "generate" not in job
    assert job.endswith(str(mine)), job              # the folder's name in full
    assert any(re.fullmatch(r"benchchecker: .*: 4/8 \(50%\), [0-9.e+-]+ items/s, ETA \d+ s, \d+ s", ln)
               for ln in lines), lines               # items, not batches, with rate and ETA
    assert lines[-1].split(": ", 2)[2].startswith("8/8 (100%), "), lines
