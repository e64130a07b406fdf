"""Why a Stage II flag is not ``contaminated``: what "clean" rests on, from one instance's
verdicts at all its snapshots.

>>> flags = why_clean(instance_flags, own_fix=own_fix_flag)   # doctest: +SKIP
>>> flags[0].evidence["clean_kind"], flags[0].evidence["snapshot"]   # doctest: +SKIP

A flag that is not contaminated (clean, or undecided with a snapshot) gets ``evidence.clean_kind``:

- ``not-merged``: the fix was not yet on the default branch (git: its first-parent landing date,
  ``evidence.fix_merged``) or in a release (the instance's own fix release) at the snapshot, or
  Stage II's date rule said so (``merged-after-cutoff``); with no fix date known, a flag found
  present only at later snapshots;
- ``rewritten-since``: found present at an earlier snapshot after the fix and absent at this one;
  ``evidence.last_found`` names the last such snapshot (its date, the cutoff it was read for and
  the snapshot);
- ``never-found``: never found present at any snapshot after the fix, the instance's own fix
  snapshot included (a rewrite since, or a miss of the detector: the recall at the own fix
  snapshot, a republication's ``own_fix_recall.csv``, measures which).

Every flag read at a snapshot gets ``evidence.snapshot``: ``{"source": "git", "commit": sha}`` or
``{"source": "release", "version", "sha256", "uploaded"}`` (the same as ``evidence.snapshot_source``
in the published form). A found-present reading dated before the fix (``present_before_fix``)
counts for nothing. Pure: it reads the flags only, so it applies to flags read from a cache.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from ..errors import InputError
from ..flags import ContaminationFlag


class CleanKind(enum.Enum):
    """What a not-contaminated verdict rests on (module doc)."""

    NOT_MERGED = "not-merged"
    REWRITTEN_SINCE = "rewritten-since"
    NEVER_FOUND = "never-found"


@dataclass(frozen=True)
class Reading:
    """One flag's snapshot: when it was taken, what it was, and whether the fix was found there."""

    model: str
    taken_at: datetime
    snapshot: Mapping[str, str]
    present: bool
    category: str


def snapshot_id(source: Mapping[str, Any]) -> dict[str, str]:
    """``evidence.snapshot`` from ``evidence.snapshot_source`` (a git commit or a release sdist)."""
    if source.get("kind") == "release":
        out = {"source": "release", "version": str(source["release"])}
        if source.get("sha256"):
            out["sha256"] = str(source["sha256"])
        out["uploaded"] = str(source["uploaded_at"])
        return out
    return {"source": "git", "commit": str(source["commit"])}


def _taken_at(source: Mapping[str, Any]) -> datetime:
    return datetime.fromisoformat(str(source["uploaded_at"] if source.get("kind") == "release"
                                      else source["committed_at"]))


def reading(flag: ContaminationFlag) -> Reading | None:
    """The snapshot ``flag`` was read at; ``None`` for a flag without one (an error)."""
    source = flag.evidence.get("snapshot_source")
    if not isinstance(source, Mapping):
        return None
    return Reading(flag.model, _taken_at(source), snapshot_id(source), flag.contaminated is True,
                   str(flag.evidence.get("category", "")))


def _fix_date(flags: Sequence[ContaminationFlag], own: Reading | None) -> datetime | None:
    for f in flags:
        merged = f.evidence.get("fix_merged")
        if isinstance(merged, Mapping) and merged.get("merged_at"):
            return datetime.fromisoformat(str(merged["merged_at"]))
    return own.taken_at if own is not None else None


def why_clean(flags: Sequence[ContaminationFlag], *, own_fix: ContaminationFlag | None = None,
              cutoffs: Mapping[str, datetime] | None = None) -> list[ContaminationFlag]:
    """``flags`` (one instance's Stage II flags, one per model) with ``evidence.snapshot`` and,
    where not contaminated, ``clean_kind`` (and ``last_found``) added (module doc). ``own_fix``
    is the instance's flag at its own fix snapshot; ``cutoffs`` (model -> cutoff) puts each
    ``last_found`` reading's cutoff beside its snapshot date."""
    ids = {f.instance_id for f in flags} | ({own_fix.instance_id} if own_fix is not None else set())
    if len(ids) > 1:
        raise InputError(f"why_clean: the flags of one instance, got {len(ids)} ({', '.join(sorted(ids)[:3])} ...)")
    own = reading(own_fix) if own_fix is not None else None
    fixed = _fix_date(flags, own)
    read = [(f, reading(f)) for f in flags]
    found = sorted((r for r in [r for _, r in read] + [own] if r is not None and r.present
                    and (fixed is None or r.taken_at >= fixed)),
                   key=lambda r: (r.taken_at, r is not own))   # a model's reading before the own fix's
    out = []
    for f, r in read:
        if r is None:
            out.append(f)
            continue
        evidence: dict[str, Any] = {**f.evidence, "snapshot": dict(r.snapshot)}
        if not r.present:
            earlier = [x for x in found if x.taken_at < r.taken_at]
            if r.category == "merged-after-cutoff" or (fixed is not None and r.taken_at < fixed):
                kind = CleanKind.NOT_MERGED
            elif earlier:
                kind = CleanKind.REWRITTEN_SINCE
                last = earlier[-1]
                evidence["last_found"] = {
                    "snapshot_date": last.taken_at.isoformat(), "snapshot": dict(last.snapshot),
                    "model": last.model,
                    **({"cutoff": cutoffs[last.model].isoformat()} if cutoffs and last.model in cutoffs else {})}
            elif fixed is None and found:   # no fix date: found only later, so not yet there
                kind = CleanKind.NOT_MERGED
            else:
                kind = CleanKind.NEVER_FOUND
            evidence["clean_kind"] = kind.value
        out.append(replace(f, evidence=evidence))
    return out
