"""What a Stage II task gives (:class:`GridRun`) and how it is kept in a state folder
(``patch-presence --state``, ``republish --state``).

A task's key digests everything its flags depend on: the tool version, its instances (every
field), the cutoffs, the (instance, model) pairs asked for, the settings (:class:`PresenceConfig`,
the test runner's and similarity's settings by name) and, for each repository it reads, the
folder's name and where its refs point (:func:`~benchchecker_plugin.repos.refs_state`: a fetch
that moves a ref computes the task again). A task whose repository cannot be found or identified
is never kept, nor one that failed as a whole (its worker lost, the folder not visible there): it
is computed again next time. A task that returned is kept with its flags, an instance's error
included: that error is the outcome of inputs the key digests (a malformed diff, a commit the clone
lacks, a cutoff before the repository's first commit), so the rerun writes what a recomputation
would; to compute kept tasks again, delete the folder (or give another).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from .._version import __version__
from ..errors import FlagsFormatError, RepositoryError
from ..execution import digest, read_json, write_json
from ..flags import ContaminationFlag, validate_record
from ..instances import BugInstance
from ..repos import refs_state
from ._config import PresenceConfig
from ._sources import locate

FORMAT = "benchchecker.stage2.task/1"
#: instances per task when a state folder keeps the tasks and no size is given: a kill loses at
#: most the tasks in flight, while models sharing a snapshot still share its work within a task
STATE_TASK_SIZE = 20


@dataclasses.dataclass(frozen=True)
class GridRun:
    """The flags of a run and what was shared: ``snapshots`` distinct (repository, commit)
    pairs, each indexed once; per (instance, distinct commit) and block: ``blocks_computed``
    located and aligned, ``blocks_reused`` taken whole from another commit where the block's file
    was the same blob, ``alignments_reused`` located again at the same location as at another
    commit, so not aligned again; ``resumed``: tasks taken from the state folder (their counts
    are those of the run that computed them)."""

    flags: tuple[ContaminationFlag, ...]
    models: int
    snapshots: int
    blocks_computed: int
    blocks_reused: int
    alignments_reused: int
    resumed: int = 0


def settings(obj: Any) -> Any:
    """A setting as plain data for a key: a name as it is; an object (a test runner, a similarity)
    as its type and its plain public attributes."""
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    fields = vars(obj) if hasattr(obj, "__dict__") else {}
    return {"type": f"{type(obj).__module__}.{type(obj).__qualname__}",
            **{k: settings(v) for k, v in sorted(fields.items()) if not k.startswith("_")
               and (v is None or isinstance(v, (str, int, float, bool, os.PathLike)))}}


def task_key(repos_dir: str, instances: Sequence[BugInstance], whens: Mapping[str, datetime],
             pairs: Collection[tuple[str, str]] | None, config: PresenceConfig,
             reuse_counts: bool) -> str | None:
    """The key of the task over ``instances`` (see the module); ``None`` when a repository it
    reads cannot be found or identified."""
    repos: dict[str, str] = {}
    for inst in {i.repo: i for i in instances}.values():   # each repository once (a task holds one)
        try:
            path = locate(repos_dir, inst, source=config.snapshot_source, releases_dir=config.releases_dir)
        except RepositoryError:
            return None
        state = refs_state(path)
        if state is None:
            return None
        repos[path.name] = state
    ids = {i.instance_id for i in instances}
    asked = None if pairs is None else sorted(p for p in pairs if p[0] in ids)
    conf = {f.name: settings(getattr(config, f.name)) for f in dataclasses.fields(config)}
    insts = [{f.name: _plain(getattr(i, f.name)) for f in dataclasses.fields(i)} for i in instances]
    return digest(FORMAT, __version__, insts, [[m, w.isoformat()] for m, w in whens.items()], asked,
                  conf, reuse_counts, sorted(repos.items()))


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value if value is None or isinstance(value, (str, int, float, bool)) else repr(value)


def write_run(path: Path, key: str, run: GridRun) -> None:
    write_json(path, key, {"format": FORMAT, "flags": [f.to_dict() for f in run.flags],
                           "counts": [run.models, run.snapshots, run.blocks_computed, run.blocks_reused,
                                      run.alignments_reused]})


def read_run(path: Path, key: str) -> GridRun:
    """The run kept at ``path`` under ``key`` (``ValueError``: another task's, or not one)."""
    data = read_json(path, key)
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a Stage II task's state ({data.get('format')!r})")
    flags = []
    for record in data["flags"]:
        try:
            validate_record(record, source=str(path))
        except FlagsFormatError as exc:   # read as a file that cannot be read: computed again
            raise ValueError(str(exc)) from None
        flags.append(ContaminationFlag.from_dict(record))
    models, snapshots, computed, reused, realigned = (int(c) for c in data["counts"])
    return GridRun(tuple(flags), models, snapshots, computed, reused, realigned)
