"""Issue 29's nine findings, run as a new user runs them: the installed ``benchchecker`` command
(or the README's script) in a temporary folder, on the shared real data, offline.

Items 1, 4, 5 and 6 start a model or a harness (slow); items 2, 3, 8 and 9 read files only. Item 6
and the venv part of item 7 need full clones: ``$BENCHCHECKER_CLONES`` (as ``repos fetch`` makes
them), else they skip.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import SHARED_DATA, require_shared_data
from tests.helpers.docs import docs_text

REPO = Path(__file__).resolve().parents[2]
DATA = SHARED_DATA
VERIFIED = DATA / "swebench_verified" / "swebench_verified_composite.jsonl"
JAVA_RUN = DATA / "multi_swe_bench" / "java_verified_experiments" / "20240825_SWE-agent_gpt-4o-2024-05-13"
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "BENCHCHECKER_PROGRESS": "0"}


def _run(command: str, cwd: Path, timeout: int = 1800) -> subprocess.CompletedProcess:
    command = (command.replace("../shared/data", str(DATA))
               .replace("tasks/lm_eval", str(REPO / "tasks" / "lm_eval")))
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=dict(os.environ, **OFFLINE),
                          capture_output=True, text=True, timeout=timeout)


def _table_row(stdout: str, tier: str = "all") -> list[str]:
    """The cells of the grouped table's row for ``tier`` (``|task|filter|metric|tier|n|...``)."""
    [row] = [ln.split("|")[1:-1] for ln in stdout.splitlines()
             if ln.startswith("|") and ln.split("|")[4:5] == [tier]]
    return row


def _readme_block(heading: str) -> str:
    text = docs_text()
    block = text.split(heading, 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return re.sub(r"\\\n\s*", "", block)


# ------------------------------------------------------------------ 1. Inspect epochs independent
@pytest.mark.slow
@pytest.mark.model
def test_1_inspect_epochs_sample_independently(tmp_path: Path) -> None:
    require_shared_data("mmlu", "test")
    from inspect_ai.log import read_eval_log

    proc = _run("inspect eval benchchecker_plugin/ts_guessing_mmlu_multichoice --model "
                "benchchecker/hf/smollm2-135m -T data=../shared/data/mmlu -T subjects=astronomy "
                "--limit 2 --epochs 3 --temperature 1.0 --max-tokens 8 --log-dir out", tmp_path)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    [log_path] = sorted((tmp_path / "out").glob("*.eval"))
    log = read_eval_log(str(log_path))
    by_sample: dict[str, list[str]] = {}
    for s in log.samples:
        by_sample.setdefault(str(s.id), []).append(s.output.completion)
    assert all(len(v) == 3 for v in by_sample.values())
    assert any(len(set(v)) > 1 for v in by_sample.values()), by_sample
    usage = next(iter(log.stats.model_usage.values()))
    assert usage.input_tokens > 0 and usage.output_tokens > 0


# ------------------------------------------------------------- 2. the denominator is the run's
def test_2_a_subset_run_is_rated_over_its_instances(tmp_path: Path) -> None:
    require_shared_data("swebench_verified")
    ids = [json.loads(x)["instance_id"] for x in VERIFIED.read_text().splitlines()][:18]
    report = tmp_path / "org__model.run1.json"
    report.write_text(json.dumps({"submitted_ids": ids, "resolved_ids": ids[:6], "error_ids": []}))
    made = _run("benchchecker flags patch-dates ../shared/data/swebench_verified/"
                "swebench_verified_composite.jsonl --cutoffs ../shared/data/model_cutoffs/"
                "model_cutoffs.csv -o flags.jsonl", tmp_path)
    assert made.returncode == 0, made.stderr[-2000:]
    tiers = "--tiers ../shared/data/swebench_verified/swebench_verified_composite.jsonl"
    ours = _run(f"benchchecker swebench rescore {report} --flags flags.jsonl --model gpt-4o-2024-05-13 "
                f"{tiers}", tmp_path)
    assert ours.returncode == 0, ours.stderr[-2000:]
    assert _table_row(ours.stdout)[4] == "18"
    theirs = _run(f"benchchecker rescore --results {report} --flags flags.jsonl --model gpt-4o-2024-05-13 "
                  f"{tiers} --json", tmp_path)
    assert theirs.returncode == 0, theirs.stderr[-2000:]
    [row] = [r for r in json.loads(theirs.stdout)["rows"] if r["tier"] == "all"]
    assert row["n_instances"] == 18 and row["original_rate"] == pytest.approx(6 / 18)


# ----------------------------------------------- 3. no flag for the run's model says which exist
def _java_flags(tmp_path: Path) -> Path:
    from benchchecker_plugin.flags import ContaminationFlag, write_flags
    from benchchecker_plugin.leaderboard import load_submissions

    [run] = load_submissions(JAVA_RUN)
    return write_flags(tmp_path / "java_flags.jsonl", [
        ContaminationFlag(benchmark="multi-swe-bench", instance_id=i, model="gpt-4o-2024-05-13",
                          method="benchchecker.stage2", contaminated=k % 3 != 0, score=1.0)
        for k, i in enumerate(sorted(run.submitted or run.resolved))])


def test_3_no_flag_for_the_runs_model_names_the_flags_models(tmp_path: Path) -> None:
    if not JAVA_RUN.is_dir():
        pytest.skip(f"shared data not present: {JAVA_RUN}")
    flags = _java_flags(tmp_path)
    base = f"benchchecker rescore --results {JAVA_RUN} --flags {flags} --benchmark multi-swe-bench"
    proc = _run(base, tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].endswith(
        "the flags hold gpt-4o-2024-05-13: pass --model NAME to pick one")
    ok = _run(f"{base} --model gpt-4o-2024-05-13 --json", tmp_path)
    assert ok.returncode == 0, ok.stderr[-2000:]
    [row] = [r for r in json.loads(ok.stdout)["rows"] if r["tier"] == "all"]
    assert row["n_clean"] > 0 and row["n_contaminated"] > 0


# ----------------------------------------------------- 4 + 5. the README's commands, as written
@pytest.mark.slow
@pytest.mark.model
def test_4_5_the_filter_commands_run_offline_as_written(tmp_path: Path) -> None:
    """The README's --contamination-filter block (lm-eval, Inspect's own hf/ provider, SWE-bench)
    runs offline as written; only the harness needs Docker."""
    require_shared_data("mmlu", "test")
    require_shared_data("swebench_verified")
    lines = [ln.strip() for ln in _readme_block(
        "## `--contamination-filter` inside the harness you already run").splitlines()
        if ln.strip() and not ln.strip().startswith("#")]
    for command in lines:
        proc = _run(command, tmp_path)
        if "swebench run_evaluation" in command and proc.returncode != 0:
            assert "Docker is not reachable" in proc.stderr, proc.stderr[-2000:]
            continue
        assert proc.returncode == 0, (command, (proc.stdout + proc.stderr)[-3000:])
        assert "temperature (=0.0)" not in proc.stderr
    from inspect_ai.log import read_eval_log

    [log_path] = sorted((tmp_path / "out" / "inspect").glob("*.eval"))
    log = read_eval_log(str(log_path))
    assert log.status == "success" and log.eval.model.startswith("hf/")
    assert log.results.metadata["benchchecker"]["mode"] == "clean"


@pytest.mark.slow
@pytest.mark.model
def test_5_the_check_command_runs_offline_as_written(tmp_path: Path) -> None:
    require_shared_data("mmlu", "test")
    require_shared_data("swebench_verified")
    [command] = [ln for ln in _readme_block("# The pre-release check").splitlines() if ln.strip()]
    proc = _run(command, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "report" / "index.html").is_file()


def test_5_a_hub_failure_names_the_offline_option(tmp_path: Path) -> None:
    proc = _run("benchchecker check --cutoff 2024-06 --benchmarks swe-bench-verified --dry-run "
                "-o report", tmp_path, timeout=300)
    assert proc.returncode == 2
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("Error: princeton-nlp/SWE-bench_Verified (split test): cannot load")
    assert line.endswith("offline, pass --data swe-bench-verified=FILE (a local instances .jsonl)")


# ------------------------------------------------------- 6 + 7. clones from `repos fetch`
def _clones() -> Path:
    clones = os.environ.get("BENCHCHECKER_CLONES")
    if not clones:
        pytest.skip("set BENCHCHECKER_CLONES to a folder of full clones (owner__name/)")
    return Path(clones)


@pytest.mark.slow
@pytest.mark.model
def test_6_baselines_on_a_repos_fetch_clone(tmp_path: Path) -> None:
    clone = _clones() / "psf__requests"
    plain = _run(f"benchchecker baselines --repo {clone}", tmp_path)
    assert plain.returncode == 2 and "give --cutoff DATE" in plain.stderr
    proc = _run(f"benchchecker baselines --repo {clone} --cutoff 2024-06 -o b.jsonl", tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    [row] = [ln.split("\t") for ln in proc.stdout.splitlines()[1:] if "\t" in ln]
    assert row[0] == "psf__requests" and int(row[1]) > 20


@pytest.mark.slow
def test_7_verify_venv_needs_no_specs_file(tmp_path: Path) -> None:
    clones = _clones()
    require_shared_data("swebench_verified")
    rows = [json.loads(x) for x in VERIFIED.read_text().splitlines()]
    (tmp_path / "one.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows if r["instance_id"] == "psf__requests-1724"))
    proc = _run(f"benchchecker patch-presence --instances one.jsonl --repos-dir {clones} "
                "--cutoff 2024-04 --model m --verify venv -o s2.jsonl", tmp_path)
    assert "environment specifications" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 0, proc.stderr[-2000:]


# ------------------------------------------------------- 8. Multi-SWE-bench annotation tiers
def test_8_multi_swe_bench_workbook_tiers(tmp_path: Path) -> None:
    workbook = DATA / "multi_swe_bench" / "annotations" / "java.xlsx"
    if not (JAVA_RUN.is_dir() and workbook.is_file()):
        pytest.skip("shared Multi-SWE-bench data not present")
    pytest.importorskip("openpyxl")
    flags = _java_flags(tmp_path)
    proc = _run(f"benchchecker rescore --results {JAVA_RUN} --flags {flags} --benchmark "
                f"multi-swe-bench --model gpt-4o-2024-05-13 --tiers {workbook} --json", tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    tiers = {r["tier"] for r in json.loads(proc.stdout)["rows"]}
    assert tiers >= {"all", "easy", "medium", "hard"}


# --------------------------------------------------- 9. republish --fetch --repos clones only those
def test_9_republish_fetches_only_the_named_repositories(tmp_path: Path) -> None:
    require_shared_data("swebench_verified")
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "republish_verified.py"), "--data-dir", str(DATA),
         "--repos-dir", str(tmp_path / "clones"), "--fetch", "--repos", "psf/requests",
         "--source", f"file://{tmp_path}/no-mirror/{{dir}}.git", "--out", str(tmp_path / "pub")],
        capture_output=True, text=True, env=dict(os.environ, **OFFLINE), timeout=600)
    fetched = [ln for ln in proc.stderr.splitlines() if ln.startswith("fetch ")]
    assert [ln.split(":")[0] for ln in fetched] == ["fetch psf/requests"], proc.stderr[-2000:]
