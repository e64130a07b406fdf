"""own_fix_snapshot: the first default-branch commit whose tree holds the fix (not the merge
date), on a history where the fix lands on a maintenance branch first; pr_dates interpolation."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.repos import git
from benchchecker_plugin.stage2 import PresenceConfig, run_stage2
from benchchecker_plugin.stage2._own_fix import own_fix_snapshot, pr_dates
from tests.helpers.git_history import BUGGY, FIXED, PATCH


def _commit(repo: Path, message: str, when: str, *extra: str) -> str:
    stamp = f"{when}T12:00:00+0000"
    git(repo, ["add", "-A"])
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-q",
               *extra, "-m", message], env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(repo, ["rev-parse", "HEAD"]).decode().strip()


@pytest.fixture()
def maint(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """main: base -> unrelated -> merge of 'stable' (2023-03-01); stable: the fix merged there
    (PR 7, 2023-02-01) a month before it reaches main."""
    repo = tmp_path / "repos" / "o__calc"
    repo.mkdir(parents=True)
    git(repo, ["init", "-q", "-b", "main"])
    (repo / "calc.py").write_text(BUGGY)
    shas = {"base": _commit(repo, "base", "2023-01-01")}
    git(repo, ["checkout", "-q", "-b", "stable"])
    (repo / "calc.py").write_text(FIXED)
    shas["fix"] = _commit(repo, "Merge pull request #7 from x/fix", "2023-02-01")
    git(repo, ["checkout", "-q", "main"])
    (repo / "other.py").write_text("x = 1\n")
    shas["unrelated"] = _commit(repo, "unrelated", "2023-02-10")
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "--no-ff", "--no-commit", "stable"])
    shas["merge"] = _commit(repo, "Merge branch 'stable'", "2023-03-01")
    return repo, shas


def test_own_fix_is_the_first_default_branch_commit_holding_the_fix(maint) -> None:  # noqa: ANN001
    repo, shas = maint
    inst = BugInstance(instance_id="o__calc-7", benchmark="t", repo="o/calc", base_commit=shas["base"], patch=PATCH)
    own = own_fix_snapshot(repo, inst)
    assert (own.source, own.snapshot, own.unapplies, own.missing) == ("git", shas["merge"], True, "")
    assert own.when == datetime(2023, 3, 1, 12, tzinfo=UTC)   # not the fix's own date (2023-02-01)
    flag = run_stage2([inst], repo.parent, {"own": own.when}, config=PresenceConfig(similarity="difflib")).flags[0]
    assert flag.contaminated is True and flag.evidence["snapshot_commit"] == shas["merge"]
    # a fix whose merged form differs from the gold patch (another id: fix_landed memoizes per id):
    # the landing still, un-apply False
    other = BugInstance(instance_id="x__calc-7", benchmark="t", repo="o/calc", base_commit=shas["base"],
                        patch=PATCH.replace("return 0", "return -1"))
    got = own_fix_snapshot(repo, other)
    assert (got.snapshot, got.unapplies) == (shas["merge"], False)
    # no commit names PR 8: found by content, the first default-branch commit where it un-applies
    by_content = own_fix_snapshot(repo, BugInstance(instance_id="o__calc-8", benchmark="t", repo="o/calc",
                                                    base_commit=shas["base"], patch=PATCH))
    assert (by_content.snapshot, by_content.unapplies, by_content.missing) == (shas["merge"], True, "")
    assert by_content.when == datetime(2023, 3, 1, 12, tzinfo=UTC)
    assert "by content: no commit names pull request #8" in by_content.basis
    # no commit names it and the gold patch un-applies nowhere, but its distinctive added line
    # landed (another form of the fix): the first default-branch commit holding that line
    held = own_fix_snapshot(repo, BugInstance(instance_id="x__calc-8", benchmark="t", repo="o/calc",
                                              base_commit=shas["base"], patch=other.patch))
    assert (held.snapshot, held.unapplies, held.missing) == (shas["merge"], False, "")
    assert "holding the fix's added line 'if x is None:'" in held.basis
    never = PATCH.replace("if x is None:", "if x is Ellipsis:").replace("return 0", "return -1")
    none = own_fix_snapshot(repo, BugInstance(instance_id="y__calc-8", benchmark="t", repo="o/calc",
                                              base_commit=shas["base"], patch=never))
    assert (none.when, none.missing) == (None, "no commit names pull request #8, the gold patch un-applies "
                                               "at no default-branch commit after the base, and none holds "
                                               "its added lines")


def test_pr_dates_interpolate_between_known_numbers() -> None:
    def inst(n: int, created: str | None) -> BugInstance:
        return BugInstance(instance_id=f"o__r-{n}", benchmark="t", repo="o/r", base_commit="a" * 40, patch=PATCH,
                           created_at=created)

    got = pr_dates([inst(100, "2022-01-01T00:00:00+00:00"), inst(300, "2022-01-21T00:00:00+00:00"),
                    inst(200, None), inst(400, None),
                    BugInstance(instance_id="p__q-5", benchmark="t", repo="p/q", base_commit="a" * 40, patch=PATCH)])
    assert got["o__r-100"] == (datetime(2022, 1, 1, tzinfo=UTC), "pull request created_at")
    assert got["o__r-200"][0] == datetime(2022, 1, 11, tzinfo=UTC)   # halfway in number, halfway in time
    assert got["o__r-200"][1] == "estimated from PR number #200 (2 known in o/r)"
    assert got["o__r-400"][0] == datetime(2022, 1, 21, tzinfo=UTC)   # clamped at the last known
    assert "p__q-5" not in got   # its repository has no known date


def test_release_own_fix_is_the_first_candidate_where_the_gold_patch_unapplies(tmp_path: Path) -> None:
    """A maintenance release of the instance's line (1.0.1) need not hold a fix merged on the
    default branch; the next line's first release (1.1) does."""
    from benchchecker_plugin.repos import SimpleIndex, fetch_releases
    from tests.helpers.local_index import LocalIndex

    idx = LocalIndex(tmp_path / "index")
    idx.add("calc", "1.0", "2022-01-10T10:00:00Z", {"calc.py": BUGGY})
    idx.add("calc", "1.0.1", "2022-04-10T10:00:00Z", {"calc.py": BUGGY})
    idx.add("calc", "1.1", "2022-06-10T10:00:00Z", {"calc.py": FIXED})
    idx.add("calc", "1.2", "2022-09-10T10:00:00Z", {"calc.py": FIXED})
    fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url))
    path = tmp_path / "repos" / "o__calc.releases"
    inst = BugInstance(instance_id="o__calc-7", benchmark="t", repo="o/calc", base_commit="0" * 40, patch=PATCH,
                       extra={"version": "1.0"})
    own = own_fix_snapshot(path, inst, (datetime(2022, 3, 1, tzinfo=UTC), "pull request created_at"))
    assert (own.source, own.snapshot, own.unapplies, own.missing, own.to_fetch) == ("release", "1.1", True, "", ())
    assert own.when == datetime(2022, 6, 10, 10, tzinfo=UTC) and "where the gold patch un-applies" in own.basis
    # a fix that un-applies nowhere but whose distinctive added line landed (other context): the
    # first release after the PR date holding it
    other = BugInstance(instance_id="o__calc-8", benchmark="t", repo="o/calc", base_commit="0" * 40,
                        patch=PATCH.replace("return 0", "return -1"), extra={"version": "1.0"})
    got = own_fix_snapshot(path, other, (datetime(2022, 3, 1, tzinfo=UTC), "pull request created_at"))
    assert (got.snapshot, got.unapplies) == ("1.1", False)
    assert got.basis.endswith("the gold patch un-applies at none of 1.0.1..1.1; first release after the PR "
                              "date holding the fix's 1 most distinctive added lines")
    # held nowhere either: the first candidate, and the basis names the span tried
    never = BugInstance(instance_id="o__calc-9", benchmark="t", repo="o/calc", base_commit="0" * 40,
                        patch=other.patch.replace("if x is None:", "if x is Ellipsis:"), extra={"version": "1.0"})
    got = own_fix_snapshot(path, never, (datetime(2022, 3, 1, tzinfo=UTC), "pull request created_at"))
    assert (got.snapshot, got.unapplies) == ("1.0.1", False)
    assert got.basis.endswith("the gold patch un-applies at none of 1.0.1..1.1, and no release after the PR "
                              "date holds its added lines")


def test_release_own_fix_takes_a_backport_when_the_line_rewrote_the_fix(tmp_path: Path) -> None:
    """Regression (scikit-learn__scikit-learn-14087, and Django fixes read present in 4.2.x months
    before 5.0a1): the fix was backported into 0.21.3 and already rewritten by 0.22, the first
    release of the instance's own line; the backport, uploaded first, is the own fix release."""
    from benchchecker_plugin.repos import SimpleIndex, fetch_releases
    from tests.helpers.git_history import REFACTORED
    from tests.helpers.local_index import LocalIndex

    idx = LocalIndex(tmp_path / "index")
    idx.add("calc", "2.0", "2022-01-10T10:00:00Z", {"calc.py": BUGGY})
    idx.add("calc", "2.0.1", "2022-07-10T10:00:00Z", {"calc.py": FIXED})        # the backport
    idx.add("calc", "2.1", "2022-08-10T10:00:00Z", {"calc.py": REFACTORED})     # the fix rewritten
    fetch_releases("calc", "o/calc", tmp_path / "repos", index=SimpleIndex(idx.file_url))
    inst = BugInstance(instance_id="o__calc-7", benchmark="t", repo="o/calc", base_commit="0" * 40, patch=PATCH,
                       extra={"version": "2.1"})
    own = own_fix_snapshot(tmp_path / "repos" / "o__calc.releases", inst,
                           (datetime(2022, 5, 1, tzinfo=UTC), "pull request created_at"))
    assert (own.snapshot, own.unapplies, own.missing) == ("2.0.1", True, "")
    assert own.basis.endswith(": release 2.0.1 of an older line, uploaded before it, where the gold patch "
                              "un-applies (a backport)")
