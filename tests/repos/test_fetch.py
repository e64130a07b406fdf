"""``fetch_repos`` end to end on ``file://`` bare repositories built here with real git."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

import pytest

from benchchecker_plugin.errors import InputError, RepositoryError
from benchchecker_plugin.repos import FetchStatus, Snapshot, fetch_repos, git, repo_dir_name, source_url
from benchchecker_plugin.repos._fetch import MARKER


def commit(work: Path, when: str, files: dict[str, str]) -> str:
    for name, text in files.items():
        (work / name).write_text(text)
    stamp = f"{when}T12:00:00+0000"
    git(work, ["add", "-A"])
    git(work, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", f"at {when}"],
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(work, ["rev-parse", "HEAD"]).decode().strip()


def make_source(src: Path, repo: str) -> tuple[Path, list[str]]:
    """A work repository with three dated commits and its bare copy ``src/owner__name.git``."""
    work = src / "work" / repo_dir_name(repo)
    work.mkdir(parents=True)
    git(work, ["init", "-q", "-b", "main"])
    shas = [commit(work, f"2023-0{i}-01", {"mod.py": f"def f():\n    return {i}\n"}) for i in (1, 2, 3)]
    git(src, ["clone", "-q", "--bare", str(work), f"{repo_dir_name(repo)}.git"])
    git(work, ["remote", "add", "origin", str(src / f"{repo_dir_name(repo)}.git")])
    return work, shas


@pytest.fixture()
def sources(tmp_path: Path) -> dict[str, Any]:
    src = tmp_path / "src"
    src.mkdir()
    made = {repo: make_source(src, repo) for repo in ("own/one", "own/two")}
    return {"template": f"file://{src}/{{dir}}.git", "src": src, "made": made}


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


def test_fresh_clone_has_the_full_history_no_files_and_our_marker(
        sources: dict[str, Any], tmp_path: Path) -> None:
    into = tmp_path / "repos"
    results = fetch_repos(["own/one", "own/two", "own/one"], into, source=sources["template"], jobs=2)
    assert [(r.repo, r.status) for r in results] == [("own/one", FetchStatus.CLONED),
                                                     ("own/two", FetchStatus.CLONED)]
    for res in results:
        _, shas = sources["made"][res.repo]
        assert res.path == into.absolute() / repo_dir_name(res.repo) and res.detail == ""
        assert res.url == f"file://{sources['src']}/{repo_dir_name(res.repo)}.git"
        assert [p.name for p in res.path.iterdir()] == [".git"]  # --no-checkout: no working files
        assert git(res.path, ["rev-list", "--count", "HEAD"]).strip() == b"3"
        assert git(res.path, ["rev-parse", "--is-shallow-repository"]).strip() == b"false"
        assert json.loads((res.path / ".git" / MARKER).read_text())["head"] == shas[-1]
        assert Snapshot.at(res.path, "2023-02-15").commit == shas[1]
    assert not list(into.glob(".*partial*"))
    again = fetch_repos(["own/one", "own/two"], into, source=sources["template"])
    assert [r.status for r in again] == [FetchStatus.SKIPPED] * 2


def test_update_fetches_new_commits_and_moves_the_default_branch(
        sources: dict[str, Any], tmp_path: Path) -> None:
    into = tmp_path / "repos"
    fetch_repos(["own/one"], into, source=sources["template"])
    work, shas = sources["made"]["own/one"]
    new = commit(work, "2023-05-01", {"mod.py": "def f():\n    return 5\n"})
    git(work, ["push", "-q", "origin", "main"])
    clone = into / "own__one"
    assert fetch_repos(["own/one"], into, source=sources["template"])[0].status is FetchStatus.SKIPPED
    assert Snapshot.at(clone, "2030").commit == shas[-1]  # without --update the clone stays
    res = fetch_repos(["own/one"], into, source=sources["template"], update=True)[0]
    assert res.status is FetchStatus.UPDATED and res.detail == "1 new commit(s) on main"
    assert Snapshot.at(clone, "2030").commit == new
    assert git(clone, ["rev-parse", "HEAD"]).decode().strip() == new
    assert json.loads((clone / ".git" / MARKER).read_text())["head"] == new
    # the remote's default branch changes: origin/HEAD (what Snapshot follows) follows it
    git(work, ["checkout", "-q", "-b", "trunk"])
    trunk = commit(work, "2023-06-01", {"mod.py": "def f():\n    return 6\n"})
    git(work, ["push", "-q", "origin", "trunk"])
    git(sources["src"] / "own__one.git", ["symbolic-ref", "HEAD", "refs/heads/trunk"])
    res = fetch_repos(["own/one"], into, source=sources["template"], update=True)[0]
    assert res.status is FetchStatus.UPDATED and res.detail == "1 new commit(s) on trunk"
    assert Snapshot.at(clone, "2030").commit == trunk
    res = fetch_repos(["own/one"], into, source=sources["template"], update=True)[0]
    assert res.detail == "no new commits on trunk"


def test_bad_names_and_git_failures_fail_alone(sources: dict[str, Any], tmp_path: Path) -> None:
    into = tmp_path / "repos"
    names = ["own/one", "bad/../x", "a/b/c", "noslash", "sp ace/x", "own/..", "own/missing", "own/two"]
    results = fetch_repos(names, into, source=sources["template"], jobs=3)
    status = {r.repo: r.status for r in results}
    assert status["own/one"] is status["own/two"] is FetchStatus.CLONED
    assert [r.repo for r in results if r.failed] == names[1:7]
    for r in results[1:6]:
        assert r.path is None
        assert r.detail.startswith(f"invalid repository name {r.repo!r}: expected owner/name")
    missing = results[6]
    assert missing.detail.startswith("git clone failed: fatal: ") and "own__missing.git" in missing.detail
    assert "\n" not in missing.detail and not missing.path.exists()
    assert sorted(p.name for p in into.iterdir()) == [".benchchecker-fetch.lock", "own__one", "own__two"]


def test_dry_run_changes_nothing(sources: dict[str, Any], tmp_path: Path) -> None:
    into = tmp_path / "repos"
    results = fetch_repos(["own/one", "own/two"], into, source=sources["template"], dry_run=True)
    assert [r.status for r in results] == [FetchStatus.WOULD_CLONE] * 2 and not into.exists()
    fetch_repos(["own/one"], into, source=sources["template"])
    (into / ".own__two.partial-dead").mkdir()
    (into / "own__two").mkdir()
    (into / "own__two" / "notes.txt").write_text("mine")
    before = listing(into)
    results = fetch_repos(["own/one", "own/two"], into, source=sources["template"], dry_run=True, update=True)
    assert [r.status for r in results] == [FetchStatus.WOULD_UPDATE, FetchStatus.FAILED]
    assert results[1].detail.startswith("would remove 1 half-written clone(s) of an interrupted run; ")
    assert results[1].detail.endswith("; left as it is (move it away to clone afresh)")
    again = fetch_repos(["own/one"], into, source=sources["template"], dry_run=True)
    assert again[0].status is FetchStatus.SKIPPED
    assert listing(into) == before


def test_half_written_partial_folder_is_removed_and_the_clone_redone(
        sources: dict[str, Any], tmp_path: Path) -> None:
    into = tmp_path / "repos"
    partial = into / ".own__one.partial-1234abcd"
    git(tmp_path, ["init", "-q", str(partial)])  # what a killed 'git clone' leaves: no refs yet
    (partial / ".git" / "objects" / "pack" / "tmp_pack_x").write_bytes(b"PACK\0\0\0\2")
    res = fetch_repos(["own/one"], into, source=sources["template"])[0]
    assert res.status is FetchStatus.CLONED
    assert res.detail == "removed 1 half-written clone(s) of an interrupted run"
    assert not partial.exists() and (into / "own__one" / ".git" / MARKER).is_file()


def test_existing_folders_kept_or_fetched_into_never_replaced(sources: dict[str, Any], tmp_path: Path) -> None:
    into = tmp_path / "repos"
    into.mkdir()
    url = source_url(sources["template"], "own/one")
    git(into, ["clone", "-q", "--no-checkout", url, "own__one"])  # the user's own full clone
    git(into, ["clone", "-q", "--depth", "1", source_url(sources["template"], "own/two"), "own__two"])
    results = fetch_repos(["own/one", "own/two"], into, source=sources["template"])
    assert results[0].status is FetchStatus.SKIPPED
    assert results[0].detail == "a clone without benchchecker's marker, kept as is"
    assert not (into / "own__one" / ".git" / MARKER).exists()
    assert results[1].status is FetchStatus.UPDATED
    assert results[1].detail == f"{into / 'own__two'} was a shallow clone (history missing): fetched into it"
    assert git(into / "own__two", ["rev-list", "--count", "HEAD"]).strip() == b"3"

    # a clone of ours that broke (every ref lost) is fetched into, not replaced
    fetch_repos(["own/two"], tmp_path / "ours", source=sources["template"])
    ours = tmp_path / "ours" / "own__two"
    (ours / "scratch.txt").write_text("kept")
    (ours / ".git" / "packed-refs").unlink(missing_ok=True)
    for ref in (ours / ".git" / "refs").rglob("*"):
        if ref.is_file():
            ref.unlink()
    res = fetch_repos(["own/two"], tmp_path / "ours", source=sources["template"])[0]
    assert res.status is FetchStatus.UPDATED, res
    assert "neither HEAD nor origin's default branch is a commit" in res.detail
    assert git(ours, ["rev-list", "--count", "refs/remotes/origin/HEAD"]).strip() == b"3"
    assert (ours / "scratch.txt").read_text() == "kept"

    # benchchecker's clone of another repository in the folder is refused, not read
    marker = json.loads((ours / ".git" / MARKER).read_text())
    (ours / ".git" / MARKER).write_text(json.dumps({**marker, "repo": "own__x/two"}))
    res = fetch_repos(["own/two"], tmp_path / "ours", source=sources["template"])[0]
    assert res.status is FetchStatus.FAILED
    assert res.detail == (f"{ours}: benchchecker's clone of 'own__x/two'; left as it is (move it "
                          "away to clone afresh)")


def test_missing_commits_are_reported(sources: dict[str, Any], tmp_path: Path) -> None:
    _, shas = sources["made"]["own/one"]
    res = fetch_repos(["own/one"], tmp_path / "repos", source=sources["template"],
                      commits={"own/one": [shas[0], "f" * 40]})[0]
    assert res.status is FetchStatus.CLONED and res.missing_commits == ("f" * 40,)


def test_names_templates_options_and_the_lock(sources: dict[str, Any], tmp_path: Path) -> None:
    assert repo_dir_name("psf/requests") == "psf__requests"
    url = source_url("git@host:{repo}.git|{owner}|{name}|{dir}", "a.b/c-d")
    assert url == "git@host:a.b/c-d.git|a.b|c-d|a.b__c-d"
    with pytest.raises(InputError, match=r"source template 'x/\{nope\}': use only the placeholders"):
        fetch_repos(["own/one"], tmp_path / "r", source="x/{nope}")
    with pytest.raises(InputError, match="has no placeholder"):
        fetch_repos(["own/one"], tmp_path / "r", source="https://example.org/one.git")
    with pytest.raises(InputError, match="jobs must be at least 1"):
        fetch_repos(["own/one"], tmp_path / "r", jobs=0)
    into = tmp_path / "locked"
    into.mkdir()
    with open(into / ".benchchecker-fetch.lock", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        with pytest.raises(RepositoryError, match="another 'benchchecker repos fetch' is working"):
            fetch_repos(["own/one"], into, source=sources["template"])
    assert not (into / "own__one").exists()
    assert os.listdir(into) == [".benchchecker-fetch.lock"]
