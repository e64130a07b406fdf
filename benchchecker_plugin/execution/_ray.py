"""The :class:`~._executor.Executor` contract on a Ray cluster: one Ray task per item.

>>> ex = RayExecutor(address="auto")            # join a running cluster   # doctest: +SKIP
>>> ex.map(len, ["a", "bb"], desc="demo")       # [ItemResult(0, 1), ItemResult(1, 2)]  # doctest: +SKIP

The same results as :class:`~._executor.LocalExecutor`, in the same order (``map``) or as the
cluster finishes them (``as_completed``, ``ray.wait``):

- an exception that ``fn`` raises for one item is caught on the worker and comes back as that
  item's :class:`~._executor.ItemResult` ``error`` (never retried: ``retry_exceptions=False``,
  never success), or with ``errors="raise"`` is raised here, as locally;
- a worker process that dies (killed, out of memory, node lost) is not an item's exception: Ray
  runs the item again, up to ``max_retries`` times, and only then records it as an error;
- ``fn`` is put in the object store once, not once per item; :meth:`RayExecutor.share` puts a value
  once and each worker process fetches it once, keeping it for the run's later items;
- results come back to the driver, so whatever the caller stores (the SQLite response cache,
  the flags file, ``--state``) is written by the driver alone;
- a progress bar (:func:`~benchchecker_plugin.progress.progress`) counts completed items.

Ray is the optional extra ``[ray]``; without it, :class:`RayExecutor` raises
:class:`~benchchecker_plugin.errors.MissingExtraError` naming it. ``address=None`` starts a local
cluster (or joins the one ``RAY_ADDRESS`` names); ``"auto"`` or ``"HOST:PORT"`` joins a running one.
Workers import this package: install it on every node, and give every node the data the items
read (the repositories, the corpus: a shared path).
"""

from __future__ import annotations

import importlib
import os
import pickle
import re
import socket
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Generic, TypeVar

from ..errors import ExecutionError, InputError, MissingExtraError
from ..progress import progress
from ._executor import ItemResult, Shared, call_item, check_errors

T = TypeVar("T")
R = TypeVar("R")


def import_ray(what: str = "--executor ray") -> ModuleType:
    """The ``ray`` module, or :class:`MissingExtraError` naming the ``[ray]`` extra."""
    try:
        return importlib.import_module("ray")
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".", 1)[0] != "ray":
            raise
        raise MissingExtraError(f"{what} needs ray, which is not installed: "
                                "pip install 'benchchecker_plugin[ray]'") from None


#: seconds to wait for a cluster's address to answer before joining it
_PROBE_S = 5.0
_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)$")


def parse_address(address: str, what: str = "--ray-address") -> tuple[str, int] | None:
    """``(host, port)`` of a cluster address ``HOST:PORT`` (or ``ray://HOST:PORT``); ``None`` for
    ``auto`` / ``local`` (Ray finds or starts the cluster); :class:`InputError` naming ``what``
    for anything else."""
    text = address.strip()
    if text in ("auto", "local"):
        return None
    rest = text.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep or not _HOST.match(host) or not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError(f"{what} {address!r}: expected HOST:PORT (e.g. 10.0.0.5:6379), ray://HOST:PORT "
                         "or auto")
    return host.strip("[]"), int(port)


@dataclass(frozen=True)
class _Raised:
    """An exception ``fn`` raised on a worker, carried back to be raised by the driver."""

    exc: BaseException


def _run_one(fn: Callable[[T], R], index: int, item: T, errors: str) -> ItemResult[R] | _Raised:
    """The body of one Ray task: ``fn(item)`` with its exception recorded or carried back."""
    if errors == "record":
        return call_item(fn, index, item)
    try:
        return ItemResult(index, fn(item))
    except Exception as exc:
        try:
            pickle.dumps(exc)
        except Exception:   # an exception that cannot travel: its words do
            exc = ExecutionError(f"{type(exc).__name__}: {exc}")
        return _Raised(exc)


#: this worker process's shared values, by key (the last run's only)
_SHARED: dict[str, Any] = {}


@dataclass(frozen=True)
class RayShared(Generic[T]):
    """:class:`~._executor.Shared` on a cluster: the value's object-store reference, boxed so that
    Ray does not fetch it for a task whose worker already holds it."""

    key: str
    box: tuple[Any, ...]

    def get(self) -> T:
        value = _SHARED.get(self.key)
        if value is None:
            import ray

            value = ray.get(self.box[0])
            _SHARED.clear()
            _SHARED[self.key] = value
        return value


class RayExecutor:
    """Runs each item as a Ray task (``num_cpus`` CPUs each) on the cluster at ``address``.

    ``max_retries``: how often an item whose worker process died is run again (Ray task
    retries; an exception raised by ``fn`` is a result, not a retry). ``init`` holds extra
    keyword arguments for ``ray.init`` when this executor starts or joins the cluster (not used
    when Ray is already initialised in this process).
    """

    def __init__(self, address: str | None = None, *, max_retries: int = 3, num_cpus: float = 1,
                 init: dict[str, Any] | None = None) -> None:
        if max_retries < 0:
            raise InputError(f"max_retries must be >= 0, got {max_retries}")
        if num_cpus <= 0:
            raise InputError(f"num_cpus must be > 0, got {num_cpus}")
        if address is not None:
            parse_address(address, "--ray-address")
        self.ray = import_ray()
        self.address = address
        self.max_retries = max_retries
        self.num_cpus = num_cpus
        self.init = dict(init or {})

    def connect(self) -> None:
        """Start or join the cluster (once; a no-op when Ray is already initialised here)."""
        if self.ray.is_initialized():
            return
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True}
        kwargs.update(self.init)
        # Ray retries a silent address for ever: a cluster that does not answer is one line now
        given, what = (self.address, "--ray-address") if self.address else (os.environ.get("RAY_ADDRESS"), "$RAY_ADDRESS")
        found = parse_address(given, what) if given else None
        if found is not None:
            try:
                socket.create_connection(found, timeout=_PROBE_S).close()
            except OSError as exc:
                raise InputError(f"{what} {given!r}: nothing answers at {found[0]}:{found[1]} "
                                 f"({exc.strerror or exc}); start the cluster (ray start --head) or "
                                 "give its HOST:PORT") from None
        try:
            self.ray.init(address=self.address, **kwargs)
        except ConnectionError as exc:
            raise InputError(f"--ray-address {self.address!r}: cannot join a Ray cluster there: {exc}") from exc

    def share(self, value: T) -> Shared[T]:
        """``value`` put in the object store once; each worker process fetches it once."""
        self.connect()
        return RayShared(uuid.uuid4().hex, (self.ray.put(value),))

    def as_completed(self, fn: Callable[[T], R], items: Sequence[T], *, desc: str | None = "",
                     errors: str = "record") -> Iterator[ItemResult[R]]:
        """Each item's result as the cluster finishes it (see the module)."""
        check_errors(errors)
        items = list(items)
        if not items:
            return
        self.connect()
        ray = self.ray
        task = ray.remote(_run_one).options(max_retries=self.max_retries, retry_exceptions=False,
                                            num_cpus=self.num_cpus)
        fn_ref = ray.put(fn)  # serialised once, not once per item
        refs = [task.remote(fn_ref, i, item, errors) for i, item in enumerate(items)]
        where = {ref: i for i, ref in enumerate(refs)}
        done = _completed(ray, refs)
        for ref in done if desc is None else progress(done, desc=desc, total=len(refs)):
            i = where[ref]
            try:
                got = ray.get(ref)
            except ray.exceptions.RayError as exc:  # the worker died more than max_retries times
                got = ItemResult(i, error=f"{type(exc).__name__}: item {i} lost after "
                                          f"{self.max_retries} retries: {_first_line(exc)}")
            if isinstance(got, _Raised):
                raise got.exc
            yield ItemResult(i, got.value, got.error) if got.index != i else got

    def map(self, fn: Callable[[T], R], items: Sequence[T], *, desc: str | None = "",
            weights: Sequence[int] | None = None, errors: str = "record") -> list[ItemResult[R]]:
        """Results in item order (``weights`` is not used: progress counts finished items)."""
        results: list[ItemResult[R] | None] = [None] * len(items)
        for res in self.as_completed(fn, items, desc=desc, errors=errors):
            results[res.index] = res
        assert all(r is not None for r in results)  # every item was waited for exactly once
        return results  # type: ignore[return-value]


def _completed(ray: ModuleType, refs: list[Any]) -> Iterator[Any]:
    """``refs`` in the order they complete (each once)."""
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield from done


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
