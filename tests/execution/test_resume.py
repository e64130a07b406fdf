"""Resumable work: kept units are taken, not run; the others run and are kept as each finishes; a
failure, a refused result or a unit without a key is never kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.execution import (
    Keeper,
    LocalExecutor,
    StateStore,
    digest,
    read_json,
    run_resumable,
)


def _keeper(state: Path, keep=lambda v: v >= 0) -> Keeper[int, int]:  # noqa: ANN001
    return Keeper(StateStore(state), key=lambda u: None if u == 99 else digest("sq", u),
                  write=lambda p, k, v: p.write_text(f'{{"key": "{k}", "v": {v}}}'),
                  read=lambda p, k: int(read_json(p, k)["v"]), keep=keep, name=lambda u: f"unit {u}")


def test_a_rerun_takes_the_kept_units_and_runs_only_the_others(tmp_path: Path) -> None:
    ran: list[int] = []

    def square(u: int) -> int:
        ran.append(u)
        if u == 3:
            raise ValueError("no 3")
        return -1 if u == 4 else u * u

    units = [1, 2, 3, 4, 99]
    first = list(run_resumable(LocalExecutor(), square, units, _keeper(tmp_path), desc=None))
    assert ran == units and not any(taken for _, taken in first)
    assert len(list(tmp_path.iterdir())) == 2      # 3 failed, 4 refused (-1), 99 has no key
    ran.clear()
    again = list(run_resumable(LocalExecutor(), square, units, _keeper(tmp_path), desc=None))
    assert ran == [3, 4, 99]
    assert [(r.index, r.value, taken) for r, taken in again if r.ok] == [
        (0, 1, True), (1, 4, True), (3, -1, False), (4, 9801, False)]
    assert [r.error for r, _ in again if not r.ok] == ["ValueError: no 3"]


def test_each_unit_is_kept_before_the_next_one_runs(tmp_path: Path) -> None:
    """What a kill relies on: the state holds every unit finished before it."""
    kept_when_run: list[int] = []

    def work(u: int) -> int:
        kept_when_run.append(len(list(tmp_path.glob("*.json"))))
        return u

    list(run_resumable(LocalExecutor(), work, [1, 2, 3], _keeper(tmp_path), desc=None))
    assert kept_when_run == [0, 1, 2]


def test_without_a_keeper_it_is_the_executors_as_completed(tmp_path: Path) -> None:
    got = list(run_resumable(LocalExecutor(2), lambda u: u + 1, [1, 2, 3], None, desc=None))
    assert sorted((r.index, r.value) for r, _ in got) == [(0, 2), (1, 3), (2, 4)]
    with pytest.raises(ZeroDivisionError):
        list(run_resumable(LocalExecutor(), lambda u: 1 // u, [1, 0], None, desc=None, errors="raise"))
