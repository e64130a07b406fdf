"""Issue 14, item 6: as root, ``-o /dev/null`` replaced the device node with a regular file (the
atomic writer renamed its temporary file over it). Non-regular targets are written through."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from benchchecker_plugin.flags import ContaminationFlag, write_flags
from benchchecker_plugin.report._html import write_text_atomic


def test_fifo_and_devnull_stay_what_they_are(tmp_path: Path) -> None:
    flag = ContaminationFlag("mmlu", "x/0", "*", "test", True, 1.0)
    write_flags(os.devnull, [flag])
    write_text_atomic(os.devnull, "text")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_flags(fifo, [flag])
        assert b'"instance_id": "x/0"' in os.read(reader, 65536)
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
