"""Issue 37: a full disk. While closing a temporary file the space error was raised again, so a
traceback replaced the one-line error; the response cache answered a full disk with "not a usable
SQLite database ... remove it" (advice that would delete a good cache). The disk is filled at the
operating system's boundary: the temporary's descriptor is ``/dev/full``, whose every write fails
with ENOSPC."""

from __future__ import annotations

import errno
import os
import sqlite3
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin import atomic
from benchchecker_plugin.cli import main
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import ContaminationFlag, write_flags
from benchchecker_plugin.models import ResponseCache

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


def _fill(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on every temporary file the atomic writer makes is backed by /dev/full."""
    real = tempfile.mkstemp

    def mkstemp(*args: object, **kwargs: object) -> tuple[int, str]:
        fd, name = real(*args, **kwargs)  # type: ignore[call-overload]
        os.close(fd)
        return os.open("/dev/full", os.O_WRONLY), name

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


@pytest.mark.parametrize("size", [10, 100_000])   # fails at the flush, or in the write and again at close
def test_a_full_disk_is_one_line_and_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         size: int) -> None:
    target = tmp_path / "out.json"
    target.write_text("old\n")
    _fill(monkeypatch)
    with pytest.raises(InputError, match=r"out\.json: cannot write \(No space left on device\)"):
        atomic.write_text_atomic(target, "x" * size)
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_command_on_a_full_disk_exits_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag("b", f"i{i}", "m", "test", i % 2 == 0, 1.0) for i in range(3)])
    _fill(monkeypatch)
    res = CliRunner().invoke(main, ["flags", "merge", str(flags), "--output", str(tmp_path / "merged.jsonl")])
    assert res.exit_code == 2, (res.output, res.exception)
    errors = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert errors == [f"Error: {tmp_path / 'merged.jsonl'}: cannot write (No space left on device)"], res.output
    assert "Traceback" not in res.output


def test_a_full_disk_in_the_cache_says_so_and_never_advises_removing_it(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    ResponseCache(tmp_path).close()   # a good cache

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(sqlite3, "connect", connect)
    with pytest.raises(InputError) as err:
        ResponseCache(tmp_path)
    msg = str(err.value)
    assert msg.startswith(f"cache file {tmp_path / 'responses.sqlite3'}: the disk is full")
    assert "remove" not in msg and "not a usable" not in msg


def test_a_full_disk_while_storing_answers_is_one_line(tmp_path: Path) -> None:
    from benchchecker_plugin.models import Completion, GenerationParams
    cache = ResponseCache(tmp_path)
    cache._conn.execute("PRAGMA max_page_count = 1")   # the database can grow no more: SQLITE_FULL
    with pytest.raises(InputError, match=r"cache file .*responses\.sqlite3: the disk is full \(database or disk "
                       r"is full\); free some space, or run with --no-cache"):
        cache.put_completions("m", GenerationParams(), [(f"k{i}", Completion(text="x" * 5000)) for i in range(50)])
    cache.close()


def test_errno_of_a_full_disk_is_enospc() -> None:
    with open("/dev/full", "wb", buffering=0) as fh, pytest.raises(OSError) as err:
        fh.write(b"x")
    assert err.value.errno == errno.ENOSPC


def _cli_error(argv: list[str]) -> str:
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == 2, (res.output, res.exception)
    errors = [ln for ln in res.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1, res.output
    return errors[0]


def test_cache_stats_where_the_database_is_a_folder_says_so(tmp_path: Path) -> None:
    (tmp_path / "responses.sqlite3").mkdir()
    (tmp_path / "responses.sqlite3" / "keep").write_text("x")
    for argv in (["cache", "stats"], ["cache", "clear", "--yes"]):
        assert _cli_error([*argv, "--cache-dir", str(tmp_path)]) == (
            f"Error: cache file {tmp_path / 'responses.sqlite3'}: is a folder, not a cache file (move it "
            "away; nothing was read or deleted)")
    assert (tmp_path / "responses.sqlite3" / "keep").read_text() == "x"
    with pytest.raises(InputError, match=r"responses\.sqlite3: is a folder, not a cache file; move it away"):
        ResponseCache(tmp_path)


def test_cache_dir_below_a_regular_file_says_so(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("a file\n")
    below = tmp_path / "plain" / "cache"
    for argv in (["cache", "stats"], ["cache", "clear", "--yes"]):
        assert _cli_error([*argv, "--cache-dir", str(below)]) == (
            f"Error: --cache-dir {below}: cannot be a folder: {tmp_path / 'plain'} is a file")
    assert (tmp_path / "plain").read_text() == "a file\n"


# SQLite says "disk I/O error" where a write, a sync or its -shm file fails for want of space (or
# a file size limit); the cache asks the OS why. The limit is real: RLIMIT_FSIZE in a child process
# (writes past it fail with EFBIG), and a full disk is statvfs's answer at the OS boundary.
_FILL_CACHE = """
import os, resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # EFBIG instead of the signal that kills
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.models import Completion, GenerationParams, ResponseCache
if sys.argv[2] == "full":
    class Full:
        f_bavail, f_frsize = 0, 4096
    os.statvfs = lambda path: Full()
cache = ResponseCache(sys.argv[1])
cache.put_completions("m", GenerationParams(), [("kept", Completion(text="earlier answer"))])
resource.setrlimit(resource.RLIMIT_FSIZE, (300_000, 300_000))
try:
    for j in range(100):
        cache.put_completions("m", GenerationParams(),
                              [(f"k{j}-{i}", Completion(text="x" * 5000)) for i in range(20)])
except InputError as exc:
    print(exc)
    sys.exit(2)
"""


@pytest.mark.parametrize(("disk", "told"), [
    ("full", r"the disk is full \(No space left on device: 0 bytes free; SQLite said: disk I/O error\); "
             r"free some space, or run with --no-cache"),
    ("limited", r"cannot write \(File too large; SQLite said: disk I/O error\); run with --no-cache, or give "
                r"another --cache-dir"),
])
def test_a_disk_io_error_of_the_cache_says_why_in_the_os_words(tmp_path: Path, disk: str, told: str) -> None:
    import re
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-c", _FILL_CACHE, str(tmp_path / "cache"), disk],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "Traceback" not in res.stderr, (res.stdout, res.stderr)
    assert re.fullmatch(rf"cache file {re.escape(str(tmp_path))}/cache/responses\.sqlite3: {told}\n", res.stdout)
    cache = ResponseCache(tmp_path / "cache")   # the answers stored before are whole
    assert cache.get_completions(["kept"])["kept"].text == "earlier answer"
    cache.close()


def test_a_writer_given_a_file_name_on_a_full_disk_is_one_line(tmp_path: Path) -> None:
    """A caller of ``atomic_path`` (the Inspect hook, overlap's shard state) whose own write fails
    for want of space: one line naming the output, the old file kept."""
    target = tmp_path / "state.npz"
    target.write_bytes(b"old")
    with pytest.raises(InputError, match=r"state\.npz: cannot write \(No space left on device\)$"), \
            atomic.atomic_path(target) as tmp:
        tmp.write_bytes(b"new")
        with open("/dev/full", "wb", buffering=0) as full:   # the OS says the disk is full
            full.write(b"x")
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["state.npz"]


_LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # EFBIG instead of the signal that kills
resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
from benchchecker_plugin.cli import main
main(sys.argv[1:])
"""


def test_a_flags_writer_past_a_real_file_size_limit_keeps_the_old_output(tmp_path: Path) -> None:
    """No monkeypatching: the child's writes past RLIMIT_FSIZE fail in the kernel (EFBIG), as
    on a disk that fills up mid-file; the error is the OS's own words in one line, exit 2."""
    import subprocess
    import sys

    flags = write_flags(tmp_path / "flags.jsonl", [
        ContaminationFlag("b", f"i{i}", "m", "test", i % 2 == 0, 1.0) for i in range(200)])
    assert flags.stat().st_size > 20_000
    out = tmp_path / "merged.jsonl"
    out.write_text("earlier output\n")
    res = subprocess.run([sys.executable, "-c", _LIMITED, "flags", "merge", str(flags), "-o", str(out)],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.splitlines()[-1] == f"Error: {out}: cannot write (File too large)"
    assert out.read_text() == "earlier output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flags.jsonl", "merged.jsonl"]
