"""Issue 14, item 11: an instance's ``repo`` could point outside ``--repos-dir``
(``x/../outside/secret``). It is refused when the instance is read, naming the instance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import example, given
from hypothesis import strategies as st

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


def test_two_repositories_never_share_a_clone_folder(tmp_path: Path) -> None:
    """Issue 27: ``a__x/b`` and ``a/x__b`` were both ``a__x__b`` (one read the other's clone)."""
    from benchchecker_plugin.repos import FetchStatus, fetch_repos, repo_dir_name

    assert repo_dir_name("a/x__b") == "a__x__b" and repo_dir_name("a_b/c") == "a_b__c"
    for repo in ("a__x/b", "a_/b"):
        res = fetch_repos([repo], tmp_path / "repos", source="file:///nowhere/{dir}.git", dry_run=True)
        assert res[0].status is FetchStatus.FAILED
        assert res[0].detail == (f"invalid repository name {repo!r}: an owner with '__' or ending "
                                 "in '_' makes the clone folder owner__name ambiguous")
    instances = tmp_path / "i.jsonl"
    instances.write_text(json.dumps({"instance_id": "x-1", "repo": "a__x/b", "base_commit": "0" * 40,
                                     "patch": "--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-a\n+b\n",
                                     "created_at": "2023-01-01T00:00:00Z"}) + "\n")
    (tmp_path / "repos" / "a__x__b").mkdir(parents=True)   # a/x__b's clone
    res = CliRunner().invoke(main, ["patch-presence", "--instances", str(instances), "--repos-dir",
                                    str(tmp_path / "repos"), "--cutoff", "2024-01-01", "-o",
                                    str(tmp_path / "out.jsonl")])
    assert res.exit_code == 2, res.output
    assert ("instance 'x-1': repository 'a__x/b': an owner with '__' or ending in '_' makes the "
            "clone folder owner__name ambiguous") in res.stderr


@given(st.lists(st.tuples(st.from_regex(r"[A-Za-z0-9._-]{1,6}", fullmatch=True),
                          st.from_regex(r"[A-Za-z0-9._-]{1,6}", fullmatch=True)), max_size=20))
@example([("a__x", "b"), ("a", "x__b")])
@example([("a_", "b"), ("a", "_b")])
def test_the_clone_folder_name_is_injective(pairs: list[tuple[str, str]]) -> None:
    from benchchecker_plugin.errors import InputError
    from benchchecker_plugin.repos import repo_dir_name

    folders: dict[str, str] = {}
    for owner, name in pairs:
        try:
            folder = repo_dir_name(f"{owner}/{name}")
        except InputError:
            continue
        assert folders.setdefault(folder, f"{owner}/{name}") == f"{owner}/{name}"
