"""Issue 14, item 4: a run in which every item failed exited 0; now non-zero, with the outputs
written (undecided, each with its error) and the summary saying how many failed."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from benchchecker_plugin.cli import main
from tests.helpers import require_shared_data


def test_every_check_failing_is_a_failed_run(tmp_path: Path) -> None:
    """Issue 14, item 4: 1/1 failed patch check exited 0. The flags are still written (undecided,
    with the error), and the exit code says the run did not do its job."""
    import subprocess

    repo = tmp_path / "repos" / "a__b"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "f.py").write_text("a\n")
    env = {"GIT_AUTHOR_DATE": "2023-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2023-01-01T00:00:00Z",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "x"], check=True, env=env)
    instances = tmp_path / "i.jsonl"
    instances.write_text(json.dumps({"instance_id": "a__b-1", "repo": "a/b", "base_commit": "f" * 40,
                                     "patch": "--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-a\n+b\n",
                                     "created_at": "2023-01-01T00:00:00Z"}) + "\n")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(main, ["patch-presence", "--instances", str(instances), "--repos-dir",
                                    str(tmp_path / "repos"), "--cutoff", "2024-01-01",
                                    "--similarity", "exact", "-o", str(out)])
    assert res.exit_code == 4, res.output
    assert "Error: all 1 patch-presence checks failed (first: a__b-1:" in res.stderr
    [flag] = [json.loads(x) for x in out.read_text().splitlines()]
    assert flag["contaminated"] is None and "error" in flag["evidence"]


def test_every_probe_failing_is_a_model_failure(tmp_path: Path) -> None:
    """Issue 14, item 4: 20/20 failed prompts exited 0. Exit 3 (model failure, as the README
    says), with the flags written (undecided) and the summary saying how many failed."""
    data = require_shared_data("mmlu")
    out = tmp_path / "f.jsonl"
    res = CliRunner().invoke(main, ["ts-guess", "--benchmark", "mmlu", "--data", str(data),
                                    "--subject", "astronomy", "--limit", "2", "--model",
                                    "openai-compatible/none", "--base-url", "http://127.0.0.1:9/v1",
                                    "--no-cache", "-o", str(out)])
    assert res.exit_code == 3, res.output
    assert "2 asked, 2 failed" in res.stdout
    assert "Error: all 2 probes failed (first: astronomy/1:" in res.stderr
    assert all(json.loads(x)["contaminated"] is None for x in out.read_text().splitlines())
