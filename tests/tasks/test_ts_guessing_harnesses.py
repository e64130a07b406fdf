"""The lm-eval and Inspect TS-Guessing tasks run for real on a tiny local model and give the same
flags as ``benchchecker ts-guess`` on the same items and model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import read_flags
from tests.helpers import comparable_flags

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.model]


@pytest.fixture(scope="module")
def cli_flags(memorising_lm: Path, mmlu_dir: Path, probe_set: tuple[str, int],
              tmp_path_factory: pytest.TempPathFactory) -> Path:
    subject, n_probes = probe_set
    out = tmp_path_factory.mktemp("cli") / "flags.jsonl"
    res = CliRunner().invoke(main, [
        "ts-guess", "--benchmark", "mmlu", "--mode", "multichoice", "--model", f"hf/{memorising_lm}",
        "--data", str(mmlu_dir), "--subject", subject, "--limit", str(n_probes), "--batch-size", "1",
        "--model-name", "tiny", "-o", str(out)])
    assert res.exit_code == 0, res.output
    return out


def test_cli_flags_separate_memorised_from_unseen(cli_flags: Path, probe_set: tuple[str, int]) -> None:
    subject, n_probes = probe_set
    flags = read_flags(cli_flags)
    assert len(flags) == n_probes and {f.method for f in flags} == {"ts_guessing.multichoice"}
    assert all(f.instance_id.startswith(f"{subject}/") for f in flags)
    seen = [f.score for f in flags[: n_probes // 2]]
    unseen = [f.score for f in flags[n_probes // 2:]]
    assert min(seen) > max(unseen), (seen, unseen)
    assert sum(bool(f.contaminated) for f in flags[: n_probes // 2]) >= 2
    # the memorised reply that starts with a blank line is read, not emptied (issue 6)
    assert flags[0].contaminated is True and flags[0].evidence["answer"] == flags[0].evidence["target"]
    assert not any(f.contaminated for f in flags[n_probes // 2:])


def test_lm_eval_task_gives_the_same_flags(memorising_lm: Path, mmlu_dir: Path, cli_flags: Path,
                                           probe_set: tuple[str, int], tmp_path: Path) -> None:
    subject, n_probes = probe_set
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    metadata = json.dumps({"data": str(mmlu_dir), "subjects": [subject]})
    cmd = [sys.executable, "-m", "lm_eval", "run", "--include_path", str(REPO / "tasks" / "lm_eval"),
           "--tasks", "ts_guessing_mmlu_multichoice", "--model", "hf",
           "--model_args", f"pretrained={memorising_lm}", "--metadata", metadata, "--limit", str(n_probes),
           "--batch_size", "1", "--log_samples", "--output_path", str(tmp_path / "out")]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "ts_guessing_mmlu_multichoice" in proc.stdout and "rouge_l" in proc.stdout
    samples = sorted((tmp_path / "out").rglob("samples_ts_guessing_mmlu_multichoice_*.jsonl"))
    assert len(samples) == 1
    out = tmp_path / "lm_eval_flags.jsonl"
    res = CliRunner().invoke(main, ["flags", "from-lm-eval", str(samples[0]), "--model", "tiny",
                                    "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert f"{n_probes} flags from 1 file(s)" in res.output
    assert comparable_flags(out) == comparable_flags(cli_flags)


def test_inspect_task_gives_the_same_flags(memorising_lm: Path, mmlu_dir: Path, cli_flags: Path,
                                           probe_set: tuple[str, int], tmp_path: Path) -> None:
    """``inspect eval`` finds the task through the entry point (package-prefixed name) and the
    ``benchchecker/`` provider; run outside the repository root, where a stale
    ``benchchecker_plugin.egg-info`` would hide the editable install from Inspect."""
    subject, n_probes = probe_set
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    cmd = [sys.executable, "-m", "inspect_ai", "eval", "benchchecker_plugin/ts_guessing_mmlu_multichoice",
           "--model", f"benchchecker/hf/{memorising_lm}", "-M", "batch_size=1", "-T", f"data={mmlu_dir}",
           "-T", f"subjects={subject}", "--limit", str(n_probes), "--log-dir", str(tmp_path / "logs"),
           "--display", "none"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    logs = sorted((tmp_path / "logs").glob("*.eval"))
    assert len(logs) == 1
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(logs[0]))
    assert log.status == "success" and log.eval.model == f"benchchecker/hf/{memorising_lm}"
    assert {s.name for s in log.results.scores} >= {"exact_match", "rouge_l"}
    out = tmp_path / "inspect_flags.jsonl"
    res = CliRunner().invoke(main, ["flags", "from-inspect", str(logs[0]), "--model", "tiny", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert comparable_flags(out) == comparable_flags(cli_flags)
