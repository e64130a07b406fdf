"""Reads from an incomplete repository: a missing object is a clear error, not an absent file.

Regression guard: ``BlobReader.read`` used to answer ``None`` ("no such file") when the object of
an existing path was missing from the object store (an incomplete mirror, a blob-less clone that
cannot reach its remote), so Stage II took a damaged clone for a deleted file.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from benchchecker_plugin.errors import RepositoryError
from benchchecker_plugin.repos import BlobReader, Snapshot, git


def build(path: Path) -> dict[str, str]:
    (path / "pkg" / "sub").mkdir(parents=True)
    git(path, ["init", "-q", "-b", "main"])
    (path / "pkg" / "sub" / "deep.py").write_text("DEEP = 1\n")
    (path / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    (path / "top.py").write_text("TOP = 1\n")
    git(path, ["add", "-A"])
    git(path, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one"])
    rev = lambda spec: git(path, ["rev-parse", spec]).decode().strip()  # noqa: E731
    return {"commit": rev("HEAD"), "blob": rev("HEAD:pkg/mod.py"), "subtree": rev("HEAD:pkg/sub")}


def drop(repo: Path, sha: str) -> None:
    """Delete one loose object (the repository was never packed)."""
    (repo / ".git" / "objects" / sha[:2] / sha[2:]).unlink()


def test_missing_blob_is_named_absent_path_is_none(tmp_path: Path) -> None:
    ids = build(tmp_path / "r")
    c = ids["commit"]
    with Snapshot.of_commit(tmp_path / "r", c) as intact:
        assert intact.grep("TOP") == ("top.py",) and intact.grep("absent_word") == ()
    drop(tmp_path / "r", ids["blob"])
    with BlobReader(tmp_path / "r") as reader:
        assert reader.read(f"{c}:top.py") == b"TOP = 1\n"
        assert reader.read(f"{c}:nope.py") is None
        assert reader.read(f"{c}:top.py/nope") is None
        with pytest.raises(RepositoryError, match=rf"object {ids['blob']} \('{c}:pkg/mod.py'\) is missing"):
            reader.read(f"{c}:pkg/mod.py")
        with pytest.raises(RepositoryError, match=rf"object {ids['blob']} is missing"):
            reader.read(ids["blob"])
        assert reader.read(f"{c}:top.py") == b"TOP = 1\n"  # the reader still works afterwards
    snap = Snapshot.of_commit(tmp_path / "r", c)
    assert snap.exists("pkg/mod.py") and snap.read_if_exists("pkg/gone.py") is None
    with pytest.raises(RepositoryError, match=ids["blob"]):
        snap.read("pkg/mod.py")
    with pytest.raises(RepositoryError, match=rf"git grep .*unable to read {ids['blob']}"):
        snap.grep("absent_word")  # git grep exits 1 ("no match") on an unreadable blob too
    snap.close()


def test_missing_tree_is_named(tmp_path: Path) -> None:
    ids = build(tmp_path / "r")
    drop(tmp_path / "r", ids["subtree"])
    with BlobReader(tmp_path / "r") as reader:
        with pytest.raises(RepositoryError, match=rf"cannot read '{ids['commit']}:pkg/sub/deep.py', an "
                                                  rf"object is missing .*Could not read {ids['subtree']}"):
            reader.read(f"{ids['commit']}:pkg/sub/deep.py")
        assert reader.read(f"{ids['commit']}:pkg/other.py") is None


def test_blobless_clone_without_its_remote_fails_loudly(tmp_path: Path) -> None:
    """A blob-less clone reads lazily from its remote; offline, each read is a clear error."""
    ids = build(tmp_path / "r")
    git(tmp_path, ["clone", "-q", "--bare", str(tmp_path / "r"), "src.git"])
    git(tmp_path / "src.git", ["config", "uploadpack.allowFilter", "true"])
    git(tmp_path, ["clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{tmp_path}/src.git",
                   "partial"])
    with BlobReader(tmp_path / "partial") as reader:  # remote there: the blob is fetched on demand
        assert reader.read(f"{ids['commit']}:top.py") == b"TOP = 1\n"
    shutil.rmtree(tmp_path / "src.git")
    with BlobReader(tmp_path / "partial") as reader:
        with pytest.raises(RepositoryError, match=r"git cat-file stopped while reading .*pkg/mod.py.*"
                                                  rf"could not fetch {ids['blob']}"):
            reader.read(f"{ids['commit']}:pkg/mod.py")
        assert reader.read(f"{ids['commit']}:top.py") == b"TOP = 1\n"  # restarted; fetched before


def test_refs_state_follows_the_refs_and_never_opens_a_fifo(tmp_path: Path) -> None:
    from benchchecker_plugin.repos import refs_state
    from tests.helpers.git_history import commit_all

    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, ["init", "-q", "-b", "main"])
    (repo / "a.txt").write_text("a")
    commit_all(repo, "2023-01-01")
    first = refs_state(repo)
    assert first is not None and refs_state(repo) == first
    (repo / "a.txt").write_text("b")
    commit_all(repo, "2023-01-02")                       # main moved
    moved = refs_state(repo)
    assert moved not in (None, first)
    git(repo, ["pack-refs", "--all"])                    # packed refs are read too
    assert refs_state(repo) is not None
    head = repo / ".git" / "HEAD"
    text = head.read_text()
    head.unlink()
    os.mkfifo(head)
    assert refs_state(repo) is None                      # returns at once (a read would block)
    head.unlink()
    head.write_text(text)
    assert refs_state(tmp_path / "missing") is None
    git(repo, ["worktree", "add", "-q", str(tmp_path / "wt")])
    assert refs_state(tmp_path / "wt") is None           # a linked worktree: never identified
