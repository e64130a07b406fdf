"""Snapshot at a cutoff: commit choice, file listing and reads, renames, and the clear errors."""

from __future__ import annotations

import subprocess
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError, RepositoryError
from benchchecker_plugin.repos import Snapshot, apply_diff, detect_language, export_tree, git


def commit(repo: Path, when: str, message: str) -> str:
    stamp = f"{when}T12:00:00+0000"
    git(repo, ["add", "-A"])
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message],
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(repo, ["rev-parse", "HEAD"]).decode().strip()


@pytest.fixture()
def repo(tmp_path: Path) -> dict[str, str]:
    r = tmp_path / "owner__proj"
    (r / "pkg").mkdir(parents=True)
    git(r, ["init", "-q", "-b", "main"])
    body = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(8))
    (r / "pkg" / "a.py").write_text("def f():\n    return 1\n\n\n" + body)
    (r / "README.md").write_text("hello\n")
    c1 = commit(r, "2023-01-10", "one")
    (r / "pkg" / "a.py").write_text("def f():\n    return 2\n\n\n" + body)
    (r / "pkg" / "B.java").write_text("class B { int g() { return 3; } }\n")
    c2 = commit(r, "2023-03-01", "two")
    git(r, ["mv", "pkg/a.py", "pkg/moved_a.py"])
    (r / "latin1.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    c3 = commit(r, "2023-06-01", "three")
    return {"path": str(r), "c1": c1, "c2": c2, "c3": c3}


def test_snapshot_picks_last_commit_at_or_before_cutoff(repo: dict[str, str]) -> None:
    assert Snapshot.at(repo["path"], "2023-03-01").commit == repo["c2"]  # same day counts
    assert Snapshot.at(repo["path"], "2023-02-28").commit == repo["c1"]
    assert Snapshot.at(repo["path"], datetime(2030, 1, 1)).commit == repo["c3"]
    snap = Snapshot.at(repo["path"], date(2023, 5, 1))
    assert snap.committed_at == datetime(2023, 3, 1, 12, tzinfo=UTC)


def test_files_and_read_without_checkout(repo: dict[str, str]) -> None:
    snap = Snapshot.at(repo["path"], "2023-04-01")
    assert snap.files() == ("README.md", "pkg/B.java", "pkg/a.py")
    assert snap.files(language="python") == ("pkg/a.py",)
    assert snap.files(language="java") == ("pkg/B.java",)
    assert snap.read("pkg/a.py").startswith("def f():\n    return 2\n")
    assert snap.exists("pkg/a.py") and not snap.exists("pkg/moved_a.py")
    # the working tree (at c3) was not touched: a.py is gone there
    assert not (Path(repo["path"]) / "pkg" / "a.py").exists()
    assert snap.grep("return", "python") == ("pkg/a.py",)
    snap.close()


def test_rename_and_deletion_tracking(repo: dict[str, str]) -> None:
    snap = Snapshot.at(repo["path"], "2024-01-01")
    assert snap.path_since(repo["c1"], "pkg/a.py") == "pkg/moved_a.py"
    assert snap.path_since(repo["c1"], "README.md") == "README.md"
    old = Snapshot.at(repo["path"], "2023-01-31")
    assert old.path_since(repo["c2"], "pkg/B.java") is None  # B.java did not exist yet


def test_non_utf8_file_is_a_clear_error(repo: dict[str, str]) -> None:
    snap = Snapshot.at(repo["path"], "2024-01-01")
    with pytest.raises(DataError, match=r"'latin1.py' is not UTF-8 text"):
        snap.read("latin1.py")
    with pytest.raises(DataError, match=r"no file 'nope.py'"):
        snap.read("nope.py")


def test_no_commit_before_cutoff(repo: dict[str, str]) -> None:
    with pytest.raises(RepositoryError, match=r"no commit on .* at or before the cutoff 2022-12-31"):
        Snapshot.at(repo["path"], "2022-12-31")


def test_missing_commit_and_not_a_repo(repo: dict[str, str], tmp_path: Path) -> None:
    with pytest.raises(RepositoryError, match=r"commit 'deadbeef' not found"):
        Snapshot.of_commit(repo["path"], "deadbeef")
    (tmp_path / "plain").mkdir()
    with pytest.raises(RepositoryError, match="not a git repository"):
        Snapshot.at(tmp_path / "plain", "2024-01-01")
    with pytest.raises(RepositoryError, match="does not exist"):
        Snapshot.at(tmp_path / "absent", "2024-01-01")


def test_shallow_clone_is_refused(repo: dict[str, str], tmp_path: Path) -> None:
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo['path']}", str(shallow)], check=True)
    with pytest.raises(RepositoryError, match="shallow clone"):
        Snapshot.at(shallow, "2024-01-01")


def test_export_tree_and_apply_diff_leave_the_clone_alone(repo: dict[str, str], tmp_path: Path) -> None:
    before = git(repo["path"], ["status", "--porcelain"])
    tree = export_tree(repo["path"], repo["c2"], tmp_path / "tree")
    assert (tree / "pkg" / "a.py").read_text().startswith("def f():\n    return 2\n")
    apply_diff(tree, "--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -1,3 +1,3 @@\n def f():\n-    return 2\n+    return 5\n \n")
    assert (tree / "pkg" / "a.py").read_text().startswith("def f():\n    return 5\n")
    with pytest.raises(RepositoryError, match="patch does not apply"):
        apply_diff(tree, "--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 9\n+    return 5\n")
    assert git(repo["path"], ["status", "--porcelain"]) == before
    assert not list(Path(repo["path"], ".git").glob("worktrees"))


def test_detect_language() -> None:
    assert detect_language("a/b.py") == "python"
    assert detect_language("X.JAVA") == "java"
    assert detect_language("README.md") is None


def test_sibling_and_read_if_exists(repo: dict[str, str]) -> None:
    snap = Snapshot.at(repo["path"], "2024-01-01")
    base = snap.sibling(repo["c1"])
    assert base.commit == repo["c1"] and base.read_if_exists("pkg/B.java") is None
    assert base.read_if_exists("pkg/a.py").startswith("def f():\n    return 1\n")
    with pytest.raises(DataError, match="not UTF-8"):
        snap.read_if_exists("latin1.py")
    snap.close()


def test_snapshot_follows_the_default_branch_not_a_merged_pull_request(tmp_path: Path) -> None:
    """Regression (real histories): a pull request's commit dated before the cutoff but merged
    after it is not the branch's state at the cutoff (``rev-list --first-parent``)."""
    r = tmp_path / "owner__proj"
    r.mkdir()
    git(r, ["init", "-q", "-b", "main"])
    (r / "a.py").write_text("x = 1\n")
    base = commit(r, "2023-01-01", "base")
    git(r, ["checkout", "-q", "-b", "fix"])
    (r / "a.py").write_text("x = 2\n")
    pr = commit(r, "2023-02-01", "the fix, on its branch")
    git(r, ["checkout", "-q", "main"])
    (r / "b.py").write_text("y = 1\n")
    other = commit(r, "2023-03-01", "unrelated work on main")
    stamp = "2023-04-01T12:00:00+0000"
    git(r, ["-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "--no-ff", "-m", "Merge pull request #1",
            "fix"], env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    assert Snapshot.at(r, "2023-02-15").commit == base          # not `pr`: not merged yet
    assert Snapshot.at(r, "2023-02-15").read("a.py") == "x = 1\n"
    assert Snapshot.at(r, "2023-03-15").commit == other
    assert Snapshot.at(r, "2023-04-02").read("a.py") == "x = 2\n"
    assert pr != base
