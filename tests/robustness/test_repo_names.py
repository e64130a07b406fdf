"""Issue 14, item 11: an instance's ``repo`` could point outside ``--repos-dir``
(``x/../outside/secret``). It is refused when the instance is read, naming the instance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main


@pytest.mark.parametrize("repo", ["x/../outside/secret", "../secret", "a/..", "/etc/passwd",
                                  "a/b c", "a/b/c"])
def test_repository_names_cannot_escape_the_repos_dir(repo: str, tmp_path: Path) -> None:
    (tmp_path / "repos").mkdir()
    instances = tmp_path / "i.jsonl"
    instances.write_text(json.dumps({"instance_id": "evil-1", "repo": repo, "base_commit": "0" * 40,
                                     "patch": "--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-a\n+b\n",
                                     "created_at": "2023-01-01T00:00:00Z"}) + "\n")
    before = instances.read_bytes()
    res = CliRunner().invoke(main, ["patch-presence", "--instances", str(instances), "--repos-dir",
                                    str(tmp_path / "repos"), "--cutoff", "2024-01-01", "-o",
                                    str(tmp_path / "out.jsonl")])
    assert res.exit_code == 2, res.output
    assert f"instance 'evil-1': repository {repo!r} is not 'owner/name'" in res.stderr
    assert instances.read_bytes() == before and not (tmp_path / "out.jsonl").exists()


def test_a_duplicated_instance_is_refused_with_file_and_lines(tmp_path: Path) -> None:
    """Issue 14, item 8: patch-presence wrote two records for a duplicated instance."""
    row = {"instance_id": "a__b-1", "repo": "a/b", "base_commit": "0" * 40,
           "patch": "--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-a\n+b\n",
           "created_at": "2023-01-01T00:00:00Z"}
    instances = tmp_path / "i.jsonl"
    instances.write_text(json.dumps(row) + "\n" + json.dumps({**row, "instance_id": "a__b-2"})
                         + "\n" + json.dumps(row) + "\n")
    (tmp_path / "repos").mkdir()
    res = CliRunner().invoke(main, ["patch-presence", "--instances", str(instances), "--repos-dir",
                                    str(tmp_path / "repos"), "--cutoff", "2024-01-01", "-o",
                                    str(tmp_path / "out.jsonl")])
    assert res.exit_code == 2, res.output
    assert f"{instances}:3: instance 'a__b-1' again (first at {instances}:1)" in res.stderr
