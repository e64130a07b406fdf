"""A scan that resumes: finished shards kept in --state, skipped on the rerun, flags unchanged.

"Not re-read" is shown, not assumed: after the first run the middle of each finished shard (all
but the first and last 64 KiB the state key digests) is overwritten with garbage of the same size
and modification time, which a rerun that scanned them would fail on.
The kill is real in the slow test: the CLI, in a child process, finishes four shards and then
waits, inside the scan of the fifth, on a FIFO the test never writes (the corpus listing refuses a
FIFO shard itself, so the wait is planted in the child's scan of that shard); it is SIGKILLed there.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.execution._store import SAMPLE
from benchchecker_plugin.overlap import _scan as scan_mod
from benchchecker_plugin.overlap import shards_of
from benchchecker_plugin.overlap._resume import ScanState, scan_shards
from benchchecker_plugin.overlap._scan import scan_corpus
from benchchecker_plugin.overlap._table import build_table
from tests.overlap.test_partial import WORDS, _flags, _items
from tests.overlap.test_partial import corpus as _corpus

ROOT = Path(__file__).resolve().parents[2]


def corpus(root: Path, items) -> list[Path]:  # noqa: ANN001
    """test_partial's corpus, each shard between a head and a tail document of 70 KB."""
    files = _corpus(root, items)
    pad = " ".join(WORDS) * 40
    for f in files:
        head = json.dumps({"id": "head", "text": pad[:70_000]}) + "\n"
        tail = json.dumps({"id": "tail", "text": pad[-70_000:]}) + "\n"
        f.write_text(head + f.read_text(encoding="utf-8") + tail, encoding="utf-8")
    return files


def _garble_keeping_stat(path: Path) -> None:
    """The bytes between the first and last SAMPLE garbled; size and times kept."""
    st = path.stat()
    data = bytearray(path.read_bytes())
    assert len(data) > 2 * SAMPLE + 100
    data[SAMPLE:len(data) - SAMPLE] = b"{" * (len(data) - 2 * SAMPLE)
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.fixture
def bed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    monkeypatch.setattr(scan_mod, "BATCH_BYTES", 4000)
    items = _items(200)
    files = corpus(tmp_path / "c", items)
    return items, files, tmp_path / "state"


def test_rerun_skips_finished_shards_and_equals_one_scan(bed) -> None:  # noqa: ANN001
    items, files, state = bed
    shards = [shards_of(str(f))[0] for f in files]
    t1 = build_table(items)
    stats, resumed = scan_shards(t1, shards, state=state)
    assert not resumed and [n for n, _ in stats.failed] == [shards[4].name]   # s4 raises partway
    assert len(list(state.glob("*.npz"))) == 4                        # the failed shard is not kept
    assert not list(state.glob(".*tmp*"))

    good = files[4].read_text().replace("{not json\n", "")
    files[4].write_text(good, encoding="utf-8")   # the shard is mended: read again
    ref_table = build_table(items)
    ref_stats = scan_corpus(ref_table, [shards_of(str(f))[0] for f in files])
    ref = _flags(ref_table, ref_stats)
    for f in files[:4]:
        _garble_keeping_stat(f)
    shards = [shards_of(str(f))[0] for f in files]
    t2 = build_table(items)
    stats2, resumed = scan_shards(t2, shards, state=state)
    assert len(resumed) == 4 and not stats2.failed
    assert _flags(t2, stats2) == ref
    assert (stats2.shards, stats2.documents, stats2.bytes) == (ref_stats.shards, ref_stats.documents,
                                                               ref_stats.bytes)


def test_changed_shard_other_table_or_field_is_scanned_again(bed) -> None:  # noqa: ANN001
    items, files, state = bed
    shard = shards_of(str(files[1]))[0]
    table = build_table(items)
    keeper = ScanState(state, table)
    key = keeper.key(shard)
    assert key == ScanState(state, build_table(items)).key(shard)
    assert key != ScanState(state, build_table(items[:50])).key(shard)
    assert key != ScanState(state, table, text_field="body").key(shard)
    scan_shards(table, [shard], state=state)
    assert keeper.load(shard) is not None
    with files[1].open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "new", "text": "more"}) + "\n")
    changed = shards_of(str(files[1]))[0]
    assert keeper.key(changed) != key and keeper.load(changed) is None
    _, resumed = scan_shards(build_table(items), [changed], state=state)
    assert not resumed


def test_unreadable_state_file_is_scanned_again_with_a_warning(bed) -> None:  # noqa: ANN001
    items, files, state = bed
    shard = shards_of(str(files[0]))[0]
    table = build_table(items)
    scan_shards(table, [shard], state=state)
    (path,) = state.glob("*.npz")
    path.write_bytes(b"not a zip")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, resumed = scan_shards(build_table(items), [shard], state=state)
    assert not resumed
    assert any("unreadable state of" in str(w.message) and "scanning it again" in str(w.message)
               for w in caught)


def test_a_shard_edited_in_place_at_the_same_size_and_time_is_scanned_again(bed) -> None:  # noqa: ANN001
    items, files, state = bed
    shard = shards_of(str(files[1]))[0]
    key = ScanState(state, build_table(items)).key(shard)
    st = files[1].stat()
    data = bytearray(files[1].read_bytes())
    data[10:14] = b"ABCD" if data[10:14] != b"ABCD" else b"WXYZ"   # in the first 64 KiB
    files[1].write_bytes(bytes(data))
    os.utime(files[1], ns=(st.st_atime_ns, st.st_mtime_ns))
    assert ScanState(state, build_table(items)).key(shard) != key


def _cli(items_file: Path, corpora: list[Path], out: Path, state: Path) -> list[str]:
    args = ["overlap", "--benchmark", "synth", "--data", str(items_file), "-o", str(out),
            "--state", str(state)]
    for c in corpora:
        args += ["--corpus", str(c)]
    return args


def _items_file(items, path: Path) -> Path:  # noqa: ANN001
    path.write_text("".join(json.dumps({"id": i.instance_id, "text": i.text}) + "\n" for i in items))
    return path


def _comparable(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for r in rows:
        r.pop("created_at")
    return rows


def _kept(state: Path) -> list[Path]:
    """The shards kept so far: whole state files, not a write under way (``.NAME.<pid>-...tmp.npz``)."""
    return [p for p in state.glob("*.npz") if not p.name.startswith(".")]


def _long_gzip_shard(path: Path, megabytes: int) -> Path:
    """A ``.jsonl.gz`` shard that inflates to ``megabytes`` MB of ordinary text: many gzip members
    of one compressed megabyte (a few KB on disk), so reading it takes seconds, not the writing."""
    line = json.dumps({"id": "filler", "text": "the river ran past the old mill again " * 200})
    member = gzip.compress(((line + "\n") * (1_000_000 // (len(line) + 1))).encode(), 1)
    path.write_bytes(member * megabytes)
    return path


@pytest.mark.slow
def test_killed_cli_scan_resumes_from_its_finished_shards(tmp_path: Path) -> None:
    items = _items(200)
    files = corpus(tmp_path / "c", items)[:4]
    items_file = _items_file(items, tmp_path / "items.jsonl")
    # the last shard inflates to 3 GB (minutes to scan): the run is killed while it reads it
    last = _long_gzip_shard(tmp_path / "c" / "z_last.jsonl.gz", 3000)
    state = tmp_path / "state"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BENCHCHECKER_PROGRESS": "0"}
    cmd = [sys.executable, "-c", "from benchchecker_plugin.cli import main; main()",
           *_cli(items_file, [*files, last], tmp_path / "killed.jsonl", state)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:   # the four small shards finish, then the run reads the long one: kill it there
        deadline = time.monotonic() + 120
        while len(_kept(state)) < 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert len(_kept(state)) == 4 and proc.poll() is None, \
            proc.stderr.read().decode() if proc.poll() is not None else "no shard kept in time"
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL and not (tmp_path / "killed.jsonl").exists()
    last.write_bytes(gzip.compress((json.dumps({"id": "last", "text": items[3].text}) + "\n").encode()))

    fresh = tmp_path / "fresh.jsonl"
    r = CliRunner().invoke(main, _cli(items_file, [*files, last], fresh, tmp_path / "fresh_state"))
    assert r.exit_code == 0, r.output
    for f in files:
        _garble_keeping_stat(f)
    resumed = tmp_path / "resumed.jsonl"
    r = CliRunner().invoke(main, _cli(items_file, [*files, last], resumed, state))
    assert r.exit_code == 0, r.output
    assert "of which 4 shard(s)" in r.output and "taken from --state" in r.output
    assert _comparable(resumed) == _comparable(fresh)
    assert any(f["contaminated"] for f in _comparable(fresh))
