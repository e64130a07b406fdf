"""``Snapshot.blob`` (blob ids from the cached listing) and ``path_since`` answering a path that is
in both trees without running the rename diff, checked against git's own rename detection."""

from __future__ import annotations

from pathlib import Path

from benchchecker_plugin.repos import Snapshot, git

BODY = "".join(f"def f{k}(x):\n    return x + {k}\n\n\n" for k in range(12))


def _commit(repo: Path, message: str, day: int) -> str:
    stamp = f"2023-01-{day:02d}T12:00:00+0000"
    git(repo, ["add", "-A"])
    git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-q",
               "-m", message], env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    return git(repo, ["rev-parse", "HEAD"]).decode().strip()


def _git_renames(repo: Path, base: str, commit: str) -> dict[str, str | None]:
    """Reference: the rename/deletion table straight from ``git diff --find-renames``."""
    out = git(repo, ["diff", "--find-renames", "--name-status", "-z", base, commit]).decode().split("\0")
    table: dict[str, str | None] = {}
    i = 0
    while i < len(out) and out[i]:
        if out[i][0] == "R":
            table[out[i + 1]] = out[i + 2]
            i += 3
        else:
            if out[i][0] == "D":
                table[out[i + 1]] = None
            i += 2
    return table


def test_blob_ids_and_renames(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, ["init", "-q", "-b", "main"])
    for name in ("keep.py", "edit.py", "move.py", "swap.py"):
        (repo / name).write_text(f"# {name}\n" + BODY)
    (repo / "gone.py").write_text("VALUE = 1\n")
    base = _commit(repo, "base", 1)
    (repo / "edit.py").write_text("# edited\n" + BODY)
    git(repo, ["mv", "move.py", "moved.py"])
    (repo / "gone.py").unlink()
    # swap.py keeps its path with new content, and its old content appears under another name:
    # git pairs nothing with swap.py, since it is not deleted
    (repo / "swap_copy.py").write_text((repo / "swap.py").read_text())
    (repo / "swap.py").write_text("print('new')\n")
    head = _commit(repo, "changes", 2)

    old, new = Snapshot.of_commit(repo, base), Snapshot.of_commit(repo, head)
    for snap, commit in ((old, base), (new, head)):
        for path in snap.files():
            assert snap.blob(path) == git(repo, ["rev-parse", f"{commit}:{path}"]).decode().strip()
    assert old.blob("keep.py") == new.blob("keep.py") and old.blob("edit.py") != new.blob("edit.py")
    assert new.blob("move.py") is None and new.blob("moved.py") == old.blob("move.py")
    assert new.blob("nope.py") is None

    table = _git_renames(repo, base, head)
    assert table == {"move.py": "moved.py", "gone.py": None}
    for path in old.files():
        assert new.path_since(base, path) == table.get(path, path), path
    assert new.path_since(base, "swap.py") == "swap.py"
    old.close()
    new.close()
