"""Where a fix landed on the default branch: the PR-naming commit followed along first-parent
history, checked by un-applying the gold patch there."""

from __future__ import annotations

from pathlib import Path

from benchchecker_plugin.repos.fixes import fix_landed
from benchchecker_plugin.repos.git import git
from tests.helpers.git_history import BUGGY, FIXED, PATCH, commit_all


def _commit(repo: Path, when: str, message: str) -> str:
    stamp = f"{when}T00:00:00+0000"
    git(repo, ["add", "-A"])
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", message],
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(repo, ["rev-parse", "HEAD"]).decode().strip()


def test_a_branch_commit_lands_with_its_merge(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, ["init", "-q", "-b", "main"])
    (repo / "calc.py").write_text(BUGGY)
    base = commit_all(repo, "2022-01-01")
    git(repo, ["checkout", "-q", "-b", "topic"])
    (repo / "calc.py").write_text(FIXED)
    named = _commit(repo, "2022-02-01", "Fix add_one (#7)")
    git(repo, ["checkout", "-q", "main"])
    _commit(repo, "2022-03-01", "unrelated, mentions #7 in passing (#7)")  # the fix is not in its tree
    stamp = "2022-04-01T00:00:00+0000"
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "--no-ff", "-m", "Merge topic", "topic"],
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    merge = git(repo, ["rev-parse", "HEAD"]).decode().strip()
    fix = fix_landed(repo, "o__r-7", base, PATCH)
    assert fix is not None
    assert (fix.commit, fix.named_in, fix.landed_at.isoformat()) == (merge, named, "2022-04-01T00:00:00+00:00")
    assert fix_landed(repo, "o__r-8", base, PATCH) is None  # no commit names PR 8
