"""Where work runs and how it resumes: one executor contract for the model calls, Stage II and the
overlap scan, in this process (:class:`LocalExecutor`: one after another or on threads) or on a
Ray cluster (:class:`RayExecutor`), and a state folder that lets a killed run resume
(:class:`StateStore`, :func:`run_resumable`).

An executor offers ``map`` (results in item order), ``as_completed`` (results as they finish) and
``share`` (a value every item reads, sent to each worker once); a failure is an item's
:class:`ItemResult` ``error``, never success. :func:`make_executor` builds one from the commands'
``--executor``, ``--ray-address`` and ``--ray-retries``.
"""

from ._executor import Executor, ItemResult, LocalExecutor, Shared, call_item
from ._make import make_executor
from ._ray import RayExecutor, import_ray
from ._resume import Keeper, run_resumable
from ._store import StateStore, digest, file_identity, read_json, write_json

__all__ = [
    "Executor",
    "ItemResult",
    "Keeper",
    "LocalExecutor",
    "RayExecutor",
    "Shared",
    "StateStore",
    "call_item",
    "digest",
    "file_identity",
    "import_ray",
    "make_executor",
    "read_json",
    "run_resumable",
    "write_json",
]
