"""Where a fix landed on the default branch: the PR-naming commit followed along first-parent
history, checked by un-applying the gold patch there."""

from __future__ import annotations

from pathlib import Path

from benchchecker_plugin.repos import fix_landed, git
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


def test_first_unapplying_gallops_then_bisects_to_the_first_commit_holding_the_fix(tmp_path: Path) -> None:
    """A line of 40 first-parent commits, the fix at the 23rd: the search finds exactly it, and
    agrees with a linear scan (the obviously-correct reference) for every landing position."""
    from benchchecker_plugin.repos import first_unapplying, unapplies
    from tests.helpers.git_history import BUGGY, FIXED, PATCH

    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, ["init", "-q", "-b", "main"])

    def commit(i: int) -> str:
        stamp = f"2023-01-01T00:{i:02d}:00+0000"
        git(repo, ["add", "-A"])
        git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-q",
                   "-m", f"c{i}"], env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
        return git(repo, ["rev-parse", "HEAD"]).decode().strip()

    (repo / "calc.py").write_text(BUGGY)
    chain = [commit(0)]
    for i in range(1, 40):
        (repo / "calc.py").write_text(FIXED if i >= 23 else BUGGY)
        (repo / "n.txt").write_text(str(i))
        chain.append(commit(i))
    linear = next(c for c in chain if unapplies(repo, c, PATCH))
    got = first_unapplying(repo, chain[0], PATCH)
    assert got is not None and got.commit == linear == chain[23] and got.named_in == ""
    assert first_unapplying(repo, chain[30], PATCH).commit == chain[31]   # from a later base: the next one
    assert first_unapplying(repo, chain[0], PATCH, max_doublings=3) is None   # probes 1, 2, 4, 8 only


def test_first_holding_finds_a_fix_that_landed_in_another_form(tmp_path: Path) -> None:
    """Regression (pytest-dev__pytest-5809, sympy__sympy-20590 at their own fix snapshot): no
    commit names the pull request and the gold patch un-applies nowhere (the default branch got
    the fix with other context, or by another pull request), yet the fix's lines landed. The first
    first-parent commit holding its most distinctive added line is found; one that only names
    the line in another file, or removes it again, is not taken."""
    from benchchecker_plugin.repos import added_lines, first_holding, first_unapplying

    assert added_lines(PATCH) == [("calc.py", "if x is None:")]
    assert added_lines(PATCH, min_chars=20) == []
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, ["init", "-q", "-b", "main"])
    (repo / "calc.py").write_text(BUGGY)
    base = commit_all(repo, "2022-01-01")
    (repo / "notes.txt").write_text("if x is None:\n")              # the text elsewhere: not the fix
    commit_all(repo, "2022-02-01")
    # the fix lands with other context: a docstring line between the def and the check
    (repo / "calc.py").write_text(FIXED.replace("def add_one(x):\n", 'def add_one(x):\n    """Doc."""\n'))
    landed = commit_all(repo, "2022-03-01")
    (repo / "calc.py").write_text(BUGGY)                              # later removed again
    commit_all(repo, "2022-04-01")
    assert first_unapplying(repo, base, PATCH) is None
    got = first_holding(repo, base, PATCH)
    assert got is not None and got[0].commit == landed and got[1] == "if x is None:"
    assert got[0].landed_at.isoformat() == "2022-03-01T00:00:00+00:00"
    assert first_holding(repo, landed, PATCH) is None                 # after it: only its removal
