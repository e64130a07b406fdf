"""Which model is behind each submission, and the per-submission verdicts that follow from it.

A model map is a CSV with a ``submission`` column and a ``model`` or ``models`` column (several
models ``;``-separated), e.g. ``model_cutoffs/submission_models.csv``. ``UNDISCLOSED`` or empty
means unknown: only flags recorded for every model (``"*"``) apply to such a submission.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ..errors import DataError
from ..flags import ANY_MODEL, ContaminationFlag, FlagColumns, Verdict, verdicts_for
from ..safe_io import open_input
from ._submission import Submission

if TYPE_CHECKING:
    from ..scoring import CodedVerdicts

_UNKNOWN = {"", "undisclosed", "unknown", "none", "nan"}


def read_model_map(path: str | Path) -> dict[str, str]:
    """``{submission: "model[;model...]"}`` from a CSV."""
    try:
        with open_input(path) as fh:
            table = pd.read_csv(fh, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: cannot read the model map ({exc})") from None
    col = "model" if "model" in table.columns else "models" if "models" in table.columns else None
    if "submission" not in table.columns or col is None:
        raise DataError(f"{path}: a model map needs 'submission' and 'model' (or 'models') columns")
    dup = table["submission"][table["submission"].duplicated()].tolist()
    if dup:
        raise DataError(f"{path}: duplicate submissions: {', '.join(dup[:5])}")
    return {s: ";".join(m.strip() for m in v.split(";") if m.strip().lower() not in _UNKNOWN)
            for s, v in zip(table["submission"], table[col])}


def apply_model_map(submissions: Sequence[Submission], model_map: Mapping[str, str]
                    ) -> list[Submission]:
    """Submissions with ``model`` replaced where the map names them (metadata kept otherwise)."""
    return [s.with_(model=model_map[s.name]) if s.name in model_map else s for s in submissions]


def submission_verdicts(flags: Iterable[ContaminationFlag], *, benchmark: str,
                        models: Sequence[str]) -> dict[str, Verdict]:
    """Per-instance verdict for a submission built on ``models``.

    Contaminated if any model's verdict is contaminated; clean if every model's is clean;
    undecided otherwise. No known model: only ``"*"`` flags apply.
    """
    flags = list(flags)
    names = [m for m in models if m.strip().lower() not in _UNKNOWN] or [ANY_MODEL]
    per_model = [verdicts_for(flags, benchmark=benchmark, model=m) for m in names]
    if len(per_model) == 1:
        return dict(per_model[0])
    out: dict[str, Verdict] = {}
    for iid in set().union(*per_model):
        vs = [v.get(iid, Verdict.UNDECIDED) for v in per_model]
        if Verdict.CONTAMINATED in vs:
            out[iid] = Verdict.CONTAMINATED
        elif all(v is Verdict.CLEAN for v in vs):
            out[iid] = Verdict.CLEAN
        else:
            out[iid] = Verdict.UNDECIDED
    return out


def verdicts_by_submission(flags: Iterable[ContaminationFlag], submissions: Sequence[Submission], *,
                           benchmark: str) -> dict[str, Mapping[str, Verdict]]:
    """``{submission name: submission_verdicts(...)}`` for many submissions at once.

    The flags are indexed by model once, each submission sees only the ``"*"`` records and its
    own models' records, and submissions built on the same models share one (read-only) verdict
    mapping: a leaderboard of 100 submissions does not merge every flag 100 times.
    """
    star: list[ContaminationFlag] = []
    by_model: dict[str, list[ContaminationFlag]] = {}
    for f in flags:
        if f.benchmark == benchmark:
            (star if f.model == ANY_MODEL else by_model.setdefault(f.model, [])).append(f)
    done: dict[tuple[str, ...], Mapping[str, Verdict]] = {}
    out: dict[str, Mapping[str, Verdict]] = {}
    for sub in submissions:
        names = tuple(m for m in sub.models if m.strip().lower() not in _UNKNOWN)
        if names not in done:
            mine = star + [f for m in dict.fromkeys(names) for f in by_model.get(m, ())]
            done[names] = submission_verdicts(mine, benchmark=benchmark, models=names)
        out[sub.name] = done[names]
    return out


def coded_verdicts_by_submission(flags: FlagColumns, submissions: Sequence[Submission],
                                 instance_ids: Sequence[str]) -> dict[str, CodedVerdicts]:
    """:func:`verdicts_by_submission` of one benchmark's flags read as columns
    (:meth:`FlagColumns.select`), each over ``instance_ids`` as a
    :class:`~benchchecker_plugin.scoring._verdict_codes.CodedVerdicts` (the same verdicts; ids
    outside the list are left out, as the scorer leaves them): every instance at once, and
    submissions built on the same models share one."""
    import numpy as np

    from ..flags import ABSENT
    from ..scoring import NO_VERDICT, CodedVerdicts

    ids = tuple(instance_ids)
    pos = {iid: i for i, iid in enumerate(ids)}
    to_pos = np.fromiter((pos.get(iid, -1) for iid in flags.instance_ids), np.intp,
                         len(flags.instance_ids))
    known = to_pos >= 0
    done: dict[tuple[str, ...], CodedVerdicts] = {}
    out: dict[str, CodedVerdicts] = {}
    for sub in submissions:
        names = tuple(m for m in sub.models if m.strip().lower() not in _UNKNOWN)
        if names not in done:
            per_model = [flags.verdict_codes(m) for m in dict.fromkeys(names or (ANY_MODEL,))]
            codes = per_model[0]
            if len(per_model) > 1:   # contaminated if any model's is; clean only if every one's
                stack = np.stack(per_model)
                codes = np.where((stack == ABSENT).all(axis=0), ABSENT,
                                 np.where((stack == 1).any(axis=0), 1,
                                          np.where((stack == 0).all(axis=0), 0, 2)))
            row = np.full(len(ids), NO_VERDICT, np.int8)
            row[to_pos[known]] = codes[known]
            done[names] = CodedVerdicts(ids, row)
        out[sub.name] = done[names]
    return out
