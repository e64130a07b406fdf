"""The local executor: ``map`` in item order, ``as_completed`` as items finish, an item's
exception recorded (``errors="record"``) or raised (``errors="raise"``), ``share`` a plain holder;
``make_executor`` from the commands' options."""

from __future__ import annotations

import threading
import time

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.execution import ItemResult, LocalExecutor, RayExecutor, make_executor


def _maybe_fail(x: int) -> int:
    if x % 3 == 1:
        raise ValueError(f"bad item {x}")
    return x * x


@pytest.mark.parametrize("workers", [1, 3])
def test_map_keeps_item_order_and_records_each_failure(workers: int) -> None:
    got = LocalExecutor(workers).map(_maybe_fail, range(7), desc=None)
    assert [r.index for r in got] == list(range(7))
    assert got[1] == ItemResult(1, error="ValueError: bad item 1") and not got[1].ok
    assert [r.value for r in got if r.ok] == [0, 4, 9, 25, 36]


@pytest.mark.parametrize("workers", [1, 3])
def test_as_completed_yields_every_item_once_with_its_index(workers: int) -> None:
    got = list(LocalExecutor(workers).as_completed(_maybe_fail, list(range(7)), desc=None))
    assert sorted(r.index for r in got) == list(range(7))
    assert {r.index: r for r in got} == dict(enumerate(LocalExecutor().map(_maybe_fail, range(7))))


def test_as_completed_on_threads_gives_the_first_finished_first() -> None:
    """Item 0 waits for item 2 to finish: completion order, not item order."""
    released = threading.Event()

    def work(x: int) -> int:
        if x == 0:
            assert released.wait(10)
        elif x == 2:
            time.sleep(0.05)
            released.set()
        return x

    order = [r.index for r in LocalExecutor(3).as_completed(work, [0, 1, 2], desc=None)]
    assert order.index(2) < order.index(0)


def test_as_completed_in_process_hands_each_result_back_before_the_next_item_runs() -> None:
    """One worker: the caller holds item 0's result while item 1 has not started (what lets a
    resumable run keep it first)."""
    started: list[int] = []
    seen = []
    for res in LocalExecutor().as_completed(lambda x: started.append(x) or x, [0, 1, 2], desc=None):
        seen.append((res.index, list(started)))
    assert seen == [(0, [0]), (1, [0, 1]), (2, [0, 1, 2])]


@pytest.mark.parametrize("workers", [1, 2])
def test_errors_raise_stops_with_the_items_own_exception(workers: int) -> None:
    with pytest.raises(ValueError, match="bad item 1"):
        LocalExecutor(workers).map(_maybe_fail, [0, 1, 2], errors="raise")
    with pytest.raises(ValueError, match="bad item 4"):
        list(LocalExecutor(workers).as_completed(_maybe_fail, [3, 4], errors="raise"))
    with pytest.raises(InputError, match="errors='ignore': expected one of record, raise"):
        LocalExecutor().map(_maybe_fail, [0], errors="ignore")


def test_share_is_the_value_itself_here() -> None:
    value = {"table": [1, 2]}
    assert LocalExecutor().share(value).get() is value


def test_make_executor_builds_from_the_options() -> None:
    ex = make_executor("local", workers=4)
    assert isinstance(ex, LocalExecutor) and ex.workers == 4
    with pytest.raises(InputError, match="--executor dask: choose local or ray"):
        make_executor("dask")
    with pytest.raises(InputError, match="--ray-address needs --executor ray"):
        make_executor("local", ray_address="auto")
    pytest.importorskip("ray")
    ray_ex = make_executor("ray", ray_address="10.0.0.5:6379", ray_retries=1)
    assert isinstance(ray_ex, RayExecutor) and ray_ex.max_retries == 1   # nothing started yet
