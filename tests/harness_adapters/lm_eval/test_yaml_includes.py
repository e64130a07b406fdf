"""A task YAML whose include: chain comes back to itself is named with its cycle, not reported as
"no such lm-eval task"."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness_adapters.lm_eval._yaml_includes import include_cycle


def test_a_self_including_yaml_is_named(tmp_path: Path) -> None:
    (tmp_path / "self.yaml").write_text("include: self.yaml\ntask: selfy\n")
    why = include_cycle("selfy", str(tmp_path))
    assert why == (f"{tmp_path / 'self.yaml'}: its include: chain comes back to itself "
                   "(self.yaml -> self.yaml); lm-eval cannot load it")


def test_a_two_file_cycle_is_named_from_the_declaring_file(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("include: sub/b.yaml\ntask: 'loopy'\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.yaml").write_text("include: ../a.yaml\n")
    assert "(a.yaml -> b.yaml -> a.yaml)" in (include_cycle("loopy", str(tmp_path)) or "")


def test_a_sound_chain_or_another_task_is_no_cycle(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("output_type: multiple_choice\n")
    (tmp_path / "t.yaml").write_text("include: base.yaml\ntask: fine\n")
    (tmp_path / "self.yaml").write_text("include: self.yaml\ntask: selfy\n")
    assert include_cycle("fine", str(tmp_path)) is None
    assert include_cycle("selfish", str(tmp_path)) is None
    assert include_cycle("selfy", None) is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_among_the_yamls_is_skipped_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "self.yaml").write_text("include: self.yaml\ntask: selfy\n")
    assert include_cycle("selfy", str(tmp_path)) is not None
