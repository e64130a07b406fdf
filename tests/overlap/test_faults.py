"""Writer faults of ``benchchecker overlap``: a --state or --index folder that can take no more
bytes ends the run with one line naming it, exit 2, no traceback; the shards kept before stay
whole. The limit is the kernel's (RLIMIT_FSIZE in the child, SIGXFSZ ignored: every write past it
fails with EFBIG, as a full disk fails with ENOSPC)."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _limited(limit: int):  # noqa: ANN202
    def preexec() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


def _bed(tmp_path: Path) -> tuple[Path, Path]:
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": str(i), "text": f"a benchmark question number {i} about "
                                         f"rivers lakes and mountains of the world {i}"}) + "\n"
                             for i in range(40)), encoding="utf-8")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for k in range(2):
        (corpus / f"s{k}.jsonl").write_text(json.dumps({"id": "d", "text": "a benchmark question number "
                                                        f"{k} about rivers lakes and mountains of the world {k}"})
                                            + "\n", encoding="utf-8")
    return items, corpus


def _run(args: list[str], limit: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BENCHCHECKER_PROGRESS": "0"}
    return subprocess.run([sys.executable, "-c", "from benchchecker_plugin.cli import main; main()", *args],
                          capture_output=True, text=True, env=env, preexec_fn=_limited(limit), timeout=300)


@pytest.mark.parametrize("where", ["state", "index"])
def test_a_folder_that_takes_no_more_bytes_is_one_line(tmp_path: Path, where: str) -> None:
    items, corpus = _bed(tmp_path)
    target = tmp_path / where
    args = ["overlap", "--benchmark", "b", "--data", str(items), "--corpus", str(corpus),
            "-o", str(tmp_path / "flags.jsonl")]
    args += ["--state", str(target)] if where == "state" else ["--engine", "index", "--index", str(target)]
    r = _run(args, 600)
    assert r.returncode == 2, (r.stdout, r.stderr)
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and f"--{where} " in errors[0] and "Traceback" not in r.stderr, r.stderr
    assert "File too large" in errors[0] or "could not be written" in errors[0], errors[0]
    assert not (tmp_path / "flags.jsonl").exists()
