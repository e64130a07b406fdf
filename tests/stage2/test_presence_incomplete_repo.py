"""Stage II on an incomplete clone (an object missing from the object store).

Regression guard: a missing blob used to read as "no such file" (an error saying the file is not
in the tree, or ``None`` from ``read_if_exists``, which Stage II takes for a file the patch
creates). Now the flag's ``evidence.error`` names the missing object, and the run goes on for the
other instances.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from benchchecker_plugin.instances import BugInstance
from benchchecker_plugin.repos import git
from benchchecker_plugin.stage2 import PresenceConfig, run_stage2, summary_line

BODY = "".join(f"def helper_{i}(x):\n    return x * {i} + 1\n\n\n" for i in range(6))


def commit(repo: Path, when: str, text: str) -> str:
    (repo / "pkg").mkdir(parents=True, exist_ok=True)
    (repo / "pkg" / "mod.py").write_text(text)
    (repo / "README.md").write_text(f"updated {when}\n")
    stamp = f"{when}T12:00:00+0000"
    git(repo, ["add", "-A"])
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", when],
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(repo, ["rev-parse", "HEAD"]).decode().strip()


def history(repo: Path) -> tuple[str, str, str]:
    """Base commit, the gold patch (base -> fix), and the fix commit (before the cutoff)."""
    repo.mkdir(parents=True)
    git(repo, ["init", "-q", "-b", "main"])
    base = commit(repo, "2023-01-10", "def area(w, h):\n    return w + h\n\n\n" + BODY)
    fix = commit(repo, "2023-02-10", "def area(w, h):\n    return w * h\n\n\n" + BODY)
    patch = git(repo, ["diff", base, fix, "--", "pkg/mod.py"]).decode()
    return base, patch, fix


def test_missing_object_is_an_error_flag_naming_it_and_the_run_goes_on(tmp_path: Path) -> None:
    repos = tmp_path / "repos"
    insts = []
    for name in ("intact", "broken"):
        base, patch, fix = history(repos / f"own__{name}")
        insts.append(BugInstance(f"{name}-1", "test", f"own/{name}", base, patch))
    broken = repos / "own__broken"
    blob = git(broken, ["rev-parse", f"{fix}:pkg/mod.py"]).decode().strip()
    (broken / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # loose object: never packed

    flags = list(run_stage2(insts, repos, {"*": datetime(2023, 6, 1, tzinfo=UTC)}, config=PresenceConfig(similarity="difflib"), reuse_counts=False).flags)
    assert [f.instance_id for f in flags] == ["intact-1", "broken-1"]
    assert flags[0].contaminated is True and "error" not in flags[0].evidence
    assert flags[1].contaminated is None and flags[1].evidence["category"] == "error"
    error = flags[1].evidence["error"]
    assert error.startswith("RepositoryError: instance 'broken-1': ")
    assert f"object {blob} ('{fix}:pkg/mod.py') is missing from the repository" in error
    assert summary_line(flags) == "2 instances: 1 contaminated, 0 clean, 0 undecided, 1 failed"
