"""Issue 27: ``repos fetch`` (no ``--update``) deleted and re-cloned a clone in which the user had
made an orphan branch and a file (``notes.txt`` lost). A folder in the way is never deleted or
moved aside: a git repository of the right remote that misses history is fetched into, anything
else is refused on one line naming it, and the folder is left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.repos import FetchStatus, fetch_repos, git, source_url


def _source(tmp_path: Path) -> str:
    work = tmp_path / "src" / "work"
    work.mkdir(parents=True)
    git(work, ["init", "-q", "-b", "main"])
    for i in (1, 2, 3):
        (work / "mod.py").write_text(f"x = {i}\n")
        git(work, ["add", "-A"])
        git(work, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", f"c{i}"])
    git(tmp_path / "src", ["clone", "-q", "--bare", str(work), "own__one.git"])
    return f"file://{tmp_path / 'src'}/{{dir}}.git"


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(folder).parts}


def test_an_orphan_branch_and_the_users_file_survive(tmp_path: Path) -> None:
    template, into = _source(tmp_path), tmp_path / "repos"
    assert fetch_repos(["own/one"], into, source=template)[0].status is FetchStatus.CLONED
    clone = into / "own__one"
    git(clone, ["checkout", "-q", "--orphan", "scratch"])
    (clone / "notes.txt").write_text("my notes")
    res = fetch_repos(["own/one"], into, source=template)[0]
    assert res.status is FetchStatus.SKIPPED, res
    assert (clone / "notes.txt").read_text() == "my notes"
    assert git(clone, ["symbolic-ref", "HEAD"]).strip() == b"refs/heads/scratch"
    assert sorted(p.name for p in into.iterdir()) == [".benchchecker-fetch.lock", "own__one"]


def test_a_shallow_clone_of_the_right_remote_is_fetched_into(tmp_path: Path) -> None:
    template, into = _source(tmp_path), tmp_path / "repos"
    into.mkdir()
    git(into, ["clone", "-q", "--depth", "1", source_url(template, "own/one"), "own__one"])
    (into / "own__one" / "notes.txt").write_text("my notes")
    res = fetch_repos(["own/one"], into, source=template)[0]
    assert res.status is FetchStatus.UPDATED, res
    assert res.detail.startswith(f"{into / 'own__one'} was a shallow clone (history missing): fetched into it")
    assert git(into / "own__one", ["rev-list", "--count", "HEAD"]).strip() == b"3"
    assert (into / "own__one" / "notes.txt").read_text() == "my notes"


@pytest.mark.parametrize("kind", ["plain folder", "other remote", "no remote"])
def test_anything_else_is_refused_and_left_as_it_is(tmp_path: Path, kind: str) -> None:
    template, into = _source(tmp_path), tmp_path / "repos"
    folder = into / "own__one"
    folder.mkdir(parents=True)
    if kind != "plain folder":
        git(folder, ["init", "-q"])
        if kind == "other remote":
            git(folder, ["remote", "add", "origin", "https://example.org/else.git"])
    (folder / "notes.txt").write_text("my notes")
    before = _tree(folder)
    for dry_run in (True, False):
        res = fetch_repos(["own/one"], into, source=template, dry_run=dry_run)[0]
        assert res.status is FetchStatus.FAILED and "\n" not in res.detail
        assert res.detail.startswith(f"{folder}: ") and res.detail.endswith(
            "; left as it is (move it away to clone afresh)")
    assert _tree(folder) == before
    assert sorted(p.name for p in into.iterdir()) == [".benchchecker-fetch.lock", "own__one"]
