"""``OutcomeStore``: recorded outcomes survive a torn last line (a run killed mid-write)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.testrun import OutcomeStore, VerifyOutcome


def test_put_then_get_in_a_new_store(tmp_path: Path) -> None:
    out = VerifyOutcome(True, "venv", "2/2 named tests passed", 1.5, "log", (("t::a", "PASSED"),), "namespaces")
    OutcomeStore(tmp_path / "outcomes.jsonl").put("k1", out)
    assert OutcomeStore(tmp_path / "outcomes.jsonl").get("k1") == out
    assert OutcomeStore(tmp_path / "outcomes.jsonl").get("k2") is None


def test_a_torn_last_line_is_skipped_with_a_warning_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "outcomes.jsonl"
    good = VerifyOutcome(False, "venv", "0/1", 0.1)
    OutcomeStore(path).put("k1", good)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"key": "k2", "outcome": {"pas')   # killed mid-write
    store = OutcomeStore(path)
    with pytest.warns(UserWarning, match=rf"{path}:2: skipped a recorded outcome that does not parse"):
        assert store.get("k1") == good
    store.put("k3", good)   # appended on a line of its own, not glued to the torn one
    assert OutcomeStore(path).get("k3") == good
