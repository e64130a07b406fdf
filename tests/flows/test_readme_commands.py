"""The README's ``--contamination-detect`` commands, run as a user runs them (the README's text,
through the installed ``benchchecker`` command, on the default model and a few real items).

Only where the README writes relative paths do the tests change the command: ``out/`` goes to a
temporary folder, ``tasks/lm_eval`` and ``../shared/data`` become absolute (the commands run in a
temporary folder: Inspect must not run from the repository root, see the README), and
``clones/`` is ``$BENCHCHECKER_CLONES``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.helpers import SHARED_DATA, require_shared_data
from tests.helpers.docs import docs_text

REPO = Path(__file__).resolve().parents[2]
DATA = SHARED_DATA
SECTION = "## `--contamination-detect`: the evaluation you already run makes its own flags"
pytestmark = [pytest.mark.slow, pytest.mark.model]


def readme_commands() -> dict[str, str]:
    """The commands of the section's bash block, keyed by the harness they wrap."""
    text = docs_text()
    block = text.split(SECTION, 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    joined = re.sub(r"\\\n\s*", "", block)
    lines = [ln.strip() for ln in joined.splitlines() if ln.strip() and not ln.startswith("#")]
    return {shlex.split(ln.split("$(")[0])[1]: ln for ln in lines}


def _run(command: str, tmp_path: Path, clones: str | None = None) -> subprocess.CompletedProcess:
    command = (command.replace("out/", f"{tmp_path}/out/")
               .replace("tasks/lm_eval", str(REPO / "tasks" / "lm_eval"))
               .replace("../shared/data", str(DATA)))
    if clones:
        command = command.replace("clones/", clones.rstrip("/") + "/")
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               BENCHCHECKER_PROGRESS="0")
    return subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=900)


def _rescore(results: Path, flags: Path, ids: list[str], model: str, tmp_path: Path) -> dict:
    from click.testing import CliRunner

    from benchchecker_plugin.cli import main

    path = tmp_path / "ids.json"
    path.write_text(json.dumps(ids))
    res = CliRunner().invoke(main, ["rescore", "--results", str(results), "--flags", str(flags),
                                    "--instances", str(path), "--benchmark", "mmlu", "--model",
                                    model, "--json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["rows"]
    return row


def test_the_section_has_one_command_per_harness() -> None:
    assert sorted(readme_commands()) == ["inspect", "lm-eval", "swebench"]


@pytest.fixture
def need_data() -> None:
    require_shared_data("mmlu", "test")


def test_lm_eval_command(need_data: None, tmp_path: Path) -> None:
    proc = _run(readme_commands()["lm-eval"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr.strip().splitlines()[-1].startswith("benchchecker: detection ")
    [results] = sorted((tmp_path / "out").rglob("results_*.json"))
    [flags_file] = sorted(results.parent.glob("benchchecker_flags_*.jsonl"))
    [ours] = sorted(results.parent.glob("benchchecker_2*.json"))
    mark = json.loads(results.read_text())["benchchecker"]        # lm-eval's own file is marked
    assert mark["mode"] == "both" and mark["detect"] is True
    assert mark["flags_sha256"].startswith("sha256:")
    flags = [json.loads(x) for x in flags_file.read_text().splitlines()]
    assert flags and {f["model"] for f in flags} == {"hf/smollm2-135m"}
    [row] = [s for s in json.loads(ours.read_text())["scores"] if s["tier"] == "all"]
    assert row["n_instances"] == 8
    [samples] = sorted(results.parent.glob("samples_*.jsonl"))
    ids = [json.loads(x)["benchchecker"]["instance_id"] for x in samples.read_text().splitlines()]
    want = _rescore(samples, flags_file, ids, "hf/smollm2-135m", tmp_path)
    assert (row["full"], row["clean"], row["n_clean"]) == (
        want["original_rate"], want["clean_rate"], want["n_clean"])


def test_inspect_command(need_data: None, tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log

    proc = _run(readme_commands()["inspect"], tmp_path)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert proc.stderr.strip().splitlines()[-1].startswith("benchchecker: detection ")
    [log_path] = sorted((tmp_path / "out" / "inspect").glob("*.eval"))
    [flags_file] = sorted((tmp_path / "out" / "inspect").glob("benchchecker_flags_*.jsonl"))
    log = read_eval_log(str(log_path))
    assert log.eval.metadata["benchchecker"]["mode"] == "both"      # the header is marked
    ours = log.results.metadata["benchchecker"]
    assert ours["detection"]["probes"] > 0 and ours["model"] == "hf/smollm2-135m"
    [row] = [s for s in ours["scores"] if s["tier"] == "all"]
    ids = [s.metadata["benchchecker"]["instance_id"] for s in log.samples]
    want = _rescore(log_path, flags_file, ids, "hf/smollm2-135m", tmp_path)
    assert (row["full"], row["clean"], row["n_clean"]) == (
        want["original_rate"], want["clean_rate"], want["n_clean"])
    # the flags equal `benchchecker ts-guess` on the same items with the same (default) model
    detected = {f["instance_id"]: f for f in map(json.loads, flags_file.read_text().splitlines())}
    out = tmp_path / "tsg.jsonl"
    proc = _run(f"benchchecker ts-guess --benchmark mmlu --data ../shared/data/mmlu --subject "
                f"astronomy --limit {len(detected)} --no-cache -o {out}", tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    reference = {f["instance_id"]: f for f in map(json.loads, out.read_text().splitlines())}
    for f in (*detected.values(), *reference.values()):
        f.pop("created_at")
    assert detected == reference


def test_swebench_command_up_to_the_docker_boundary(tmp_path: Path) -> None:
    clones = os.environ.get("BENCHCHECKER_CLONES")
    if not clones:
        pytest.skip("set BENCHCHECKER_CLONES to a folder of full clones (owner__name/)")
    require_shared_data("swebench_verified")
    proc = _run(readme_commands()["swebench"], tmp_path, clones)
    flags_file = tmp_path / "out" / "swebench" / "gold.run1.benchchecker_flags.jsonl"
    assert flags_file.is_file(), proc.stderr[-3000:]
    flags = {f["instance_id"]: f["contaminated"] for f in
             map(json.loads, flags_file.read_text().splitlines())}
    assert set(flags) == {"psf__requests-1724", "psf__requests-5414"}
    assert all(v is not None for v in flags.values())
    if proc.returncode != 0:   # no Docker engine here: the harness stops there, after detection
        assert "Docker is not reachable" in proc.stderr


def test_plain_lm_eval_then_the_filter(need_data: None, tmp_path: Path) -> None:
    """lm-eval's own ``lm-eval`` entry point on the shipped offline task with the default model,
    then the same run through ``--contamination-filter`` with ``ts-guess`` flags: the wrapper's
    grouped numbers equal ``benchchecker rescore`` on the plain run's samples, and the wrapper's
    results file carries the mark the plain one lacks."""
    folder = subprocess.run(["benchchecker", "models", "path", "hf/smollm2-135m"],
                            capture_output=True, text=True, check=True).stdout.strip()
    args = (f"--include_path tasks/lm_eval --tasks mmlu_local_astronomy --model hf --model_args "
            f"pretrained={folder} --metadata '{{\"data\": \"../shared/data/mmlu\"}}' --limit 4 "
            "--log_samples")
    plain = _run(f"lm-eval run {args} --output_path out/plain", tmp_path)
    assert plain.returncode == 0, plain.stderr[-3000:]
    flags = tmp_path / "tsg.jsonl"
    made = _run(f"benchchecker ts-guess --benchmark mmlu --data ../shared/data/mmlu --subject "
                f"astronomy --limit 3 -o {flags}", tmp_path)
    assert made.returncode == 0, made.stderr[-2000:]
    wrapped = _run(f"benchchecker lm-eval run {args} --output_path out/filtered "
                   f"--contamination-filter {flags}", tmp_path)
    assert wrapped.returncode == 0, wrapped.stderr[-3000:]
    [plain_results] = sorted((tmp_path / "out" / "plain").rglob("results_*.json"))
    [ours_results] = sorted((tmp_path / "out" / "filtered").rglob("results_*.json"))
    assert "benchchecker" not in json.loads(plain_results.read_text())
    assert json.loads(ours_results.read_text())["benchchecker"]["mode"] == "both"
    [ours] = sorted(ours_results.parent.glob("benchchecker_2*.json"))
    [row] = [s for s in json.loads(ours.read_text())["scores"] if s["tier"] == "all"]
    [samples] = sorted(plain_results.parent.glob("samples_*.jsonl"))
    ids = [f"astronomy/{json.loads(x)['doc_id']}" for x in samples.read_text().splitlines()]
    want = _rescore(samples, flags, ids, "hf/smollm2-135m", tmp_path)
    assert (row["full"], row["clean"], row["n_clean"]) == (
        want["original_rate"], want["clean_rate"], want["n_clean"])
