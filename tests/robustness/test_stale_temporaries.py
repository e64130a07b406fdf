"""Issue 37: a killed ``patch-presence`` (any writer of an output) left ``.out.jsonl.*.tmp``
files the next run did not remove. The next write of the same output now removes the temporaries
of ours a dead writer left, and nothing else: not a live writer's, not a fresh one, not a file of
another name or pattern, not a link."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

from benchchecker_plugin.atomic import atomic_open, atomic_path, write_text_atomic


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _old(path: Path, text: str = "partial", age: float = 60.0) -> Path:
    path.write_text(text)
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def test_a_killed_writers_temporaries_are_removed_by_the_next_write(tmp_path: Path) -> None:
    dead = _dead_pid()
    stale = [_old(tmp_path / f".out.jsonl.{dead}-abcd1234.tmp"),
             _old(tmp_path / ".out.jsonl.zz_9xy01.tmp", age=3 * 86400),   # an older release's name
             _old(tmp_path / f".out.jsonl.{dead}-k2k2k2k2.tmp.eval")]
    kept = [_old(tmp_path / f".out.jsonl.{os.getpid()}-live0001.tmp"),      # a live writer's pid
            _old(tmp_path / f".out.jsonl.{dead}-fresh001.tmp", age=0.0),     # too young to judge
            _old(tmp_path / ".out.jsonl.abcd1234.tmp", age=3600),            # no pid, an hour old
            _old(tmp_path / f".other.jsonl.{dead}-abcd1234.tmp"),            # another output's
            _old(tmp_path / f".out.jsonl.{dead}-abcd1234.tmp.bak~"),         # not our pattern
            _old(tmp_path / f"out.jsonl.{dead}-abcd1234.tmp"),               # not hidden: not ours
            _old(tmp_path / "notes.txt")]
    os.symlink(tmp_path / "notes.txt", tmp_path / f".out.jsonl.{dead}-link0001.tmp")
    write_text_atomic(tmp_path / "out.jsonl", "{}\n")
    assert not any(p.exists() for p in stale)
    assert all(p.exists() for p in kept) and (tmp_path / f".out.jsonl.{dead}-link0001.tmp").is_symlink()
    assert (tmp_path / "out.jsonl").read_text() == "{}\n"


def test_a_temporary_held_by_a_writer_is_never_removed(tmp_path: Path) -> None:
    held = _old(tmp_path / f".out.jsonl.{_dead_pid()}-held0001.tmp")
    fd = os.open(held, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)   # a writer in another pid namespace, say
    try:
        write_text_atomic(tmp_path / "out.jsonl", "{}\n")
        assert held.exists()
    finally:
        os.close(fd)


def test_our_temporaries_carry_the_pid_and_are_held_while_written(tmp_path: Path) -> None:
    with atomic_open(tmp_path / "out.jsonl") as fh:
        fh.write("x")
        (tmp,) = [p for p in tmp_path.iterdir() if p.name.startswith(".out.jsonl.")]
        assert tmp.name.startswith(f".out.jsonl.{os.getpid()}-") and tmp.name.endswith(".tmp")
        fd = os.open(tmp, os.O_RDONLY)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = False
            except OSError:
                locked = True
        finally:
            os.close(fd)
        assert locked
    with atomic_path(tmp_path / "run.eval") as path:
        assert path.name.startswith(f".run.eval.{os.getpid()}-") and path.name.endswith(".tmp.eval")
        path.write_text("log")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "run.eval"]
