"""extract_tar: nothing lands outside the destination, with PEP 706's data filter (Python
>= 3.11.4) and with our own checks where it is missing (Python 3.11.0-3.11.3, tested here by
calling the fallback directly on every interpreter)."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from benchchecker_plugin.repos._archive import _extract_checked, extract_tar

Extract = Callable[[tarfile.TarFile, Path], None]
BOTH = [pytest.param(extract_tar, id="extract_tar"), pytest.param(_extract_checked, id="fallback")]


def _tar(path: Path, members: list[tuple[str, str, bytes | str, int]]) -> Path:
    """Members as (name, kind, data-or-linkname, mode); kind is file, dir, sym, hard, fifo, chr."""
    with tarfile.open(path, "w") as tf:
        for name, kind, payload, mode in members:
            info = tarfile.TarInfo(name)
            info.mode = mode
            data = None
            if kind == "file":
                assert isinstance(payload, bytes)
                info.size = len(payload)
                data = io.BytesIO(payload)
            elif kind == "dir":
                info.type = tarfile.DIRTYPE
            elif kind == "sym":
                info.type, info.linkname = tarfile.SYMTYPE, str(payload)
            elif kind == "hard":
                info.type, info.linkname = tarfile.LNKTYPE, str(payload)
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
            elif kind == "chr":
                info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
            tf.addfile(info, data)
    return path


def _run(fn: Extract, archive: Path, dest: Path) -> None:
    dest.mkdir(exist_ok=True)
    with tarfile.open(archive) as tf:
        fn(tf, dest)


@pytest.mark.parametrize("fn", BOTH)
def test_a_plain_tree_is_extracted_with_its_links_inside(fn: Extract, tmp_path: Path) -> None:
    absolute = tmp_path / "abs" / "name.txt"   # a regression writes here, not into the real '/'
    archive = _tar(tmp_path / "ok.tar", [
        ("pkg", "dir", b"", 0o755),
        ("pkg/mod.py", "file", b"x = 1\n", 0o644),
        ("pkg/run.sh", "file", b"#!/bin/sh\n", 0o4777),   # setuid and world-writable: tamed
        ("pkg/alias.py", "sym", "mod.py", 0o777),
        ("pkg/same.py", "hard", "pkg/mod.py", 0o644),
        (str(absolute), "file", b"in", 0o644),           # a leading '/' is dropped
    ])
    dest = tmp_path / "out"
    _run(fn, archive, dest)
    assert (dest / "pkg/mod.py").read_text() == "x = 1\n"
    assert os.readlink(dest / "pkg/alias.py") == "mod.py"
    assert (dest / "pkg/same.py").read_text() == "x = 1\n"
    assert (dest / str(absolute).lstrip("/")).read_text() == "in"
    assert not absolute.exists()
    mode = stat.S_IMODE((dest / "pkg/run.sh").stat().st_mode)
    assert mode & (stat.S_ISUID | stat.S_IWGRP | stat.S_IWOTH) == 0
    assert mode & stat.S_IXUSR


HOSTILE = {
    "dotdot": [("a/../../evil.txt", "file", b"x", 0o644)],
    "symlink out": [("up", "sym", "../outside", 0o777)],
    "absolute symlink": [("etc", "sym", "/etc", 0o777)],
    "hard link out": [("pw", "hard", "../outside/secret", 0o644)],
    # a link to '.', then a link through it that is '..' of the real folder
    "link through an earlier link": [("here", "sym", ".", 0o777),
                                     ("here/up", "sym", "..", 0o777)],
    # a link inside, then a file written through a link that leaves
    "write through a link": [("d", "sym", "..", 0o777), ("d/evil.txt", "file", b"x", 0o644)],
    "fifo": [("pipe", "fifo", b"", 0o644)],
    "device": [("null", "chr", b"", 0o644)],
}


@pytest.mark.parametrize("fn", BOTH)
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_nothing_leaves_the_destination(fn: Extract, case: str, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("secret")
    archive = _tar(tmp_path / "bad.tar", HOSTILE[case])
    dest = tmp_path / "box" / "out"
    dest.parent.mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(tarfile.TarError):
        _run(fn, archive, dest)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert sorted(p.name for p in (tmp_path / "box").iterdir()) == ["out"]
    assert (tmp_path / "outside" / "secret").read_text() == "secret"


def test_the_fallback_names_the_member(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "bad.tar", [("ok.txt", "file", b"1", 0o644),
                                          ("evil", "sym", "/etc/passwd", 0o777)])
    with pytest.raises(tarfile.TarError, match=r"member 'evil' links outside the destination "
                                               r"\('/etc/passwd'\)"):
        _run(_extract_checked, archive, tmp_path / "out")
