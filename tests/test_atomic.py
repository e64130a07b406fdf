"""The one atomic writer (issue 14, item 7): a failure mid-write leaves the old file whole and no
temporary file behind; the calibrate output, membership.json and the harness sidecar use it."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.atomic import atomic_open, write_text_atomic


def test_a_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = write_text_atomic(tmp_path / "out.json", '{"old": true}\n')
    with pytest.raises(RuntimeError):
        with atomic_open(target) as fh:
            fh.write('{"new": ')
            raise RuntimeError("size limit")
    assert target.read_text() == '{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    assert oct(target.stat().st_mode & 0o777) == "0o644"


def test_every_json_output_goes_through_it() -> None:
    """No module writes an output with a plain ``write_text`` any more (fixtures building test
    repositories and the git clone marker excepted)."""
    root = Path(__file__).resolve().parents[1]
    allowed = {"benchchecker_plugin/stage2/synthetic.py", "benchchecker_plugin/repos/fetch.py",
               "benchchecker_plugin/models/gguf.py", "harness_adapters/inspect/cli.py"}
    offenders = [str(p.relative_to(root)) for pkg in ("benchchecker_plugin", "harness_adapters")
                 for p in (root / pkg).rglob("*.py")
                 if ".write_text(" in p.read_text() and str(p.relative_to(root)) not in allowed]
    assert offenders == []
