"""Who is pooled with whom, and the scoring of a bundle's rows: every figure over several
submissions is a row of the pooled summary (``scoring.rate_and_pool``: Mantel-Haenszel over
submission x tier strata, cluster-bootstrap intervals, distinct-instance minimums), never a mean
of per-submission ratios."""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..rescore_options import RescoreOptions
from ..scoring import ALL_TIER, MdeConfig, UndefinedMetricWarning, rate_and_pool
from ._facts import BuildFacts

CLAUDE4 = re.compile(r"claude-(4-(sonnet|opus)|(sonnet|opus)-4)(?![-.]5)", re.I)
CLAUDE45 = re.compile(r"claude-(sonnet|opus|haiku)-4[-.]5", re.I)
#: model families as explicit lists (the old "Claude 4 family" held both)
FAMILIES = {"Claude 4 (Sonnet 4, Opus 4)": CLAUDE4, "Claude 4.5 (Sonnet 4.5, Opus 4.5)": CLAUDE45}
VERDICT_CODE = {"contaminated": True, "clean": False, "undecided": None}
ALL = "all submissions"
POOL = "all boards (pooled)"


def top10_label(n: int, size: str = "500") -> str:
    return f"top 10 of the {n} scored submissions (by resolved of {size})"


def board_label(name: str) -> str:
    return f"board {name}"


def groups_of(subs: pd.DataFrame, size: str = "500") -> dict[str, list[str]]:
    """The pooled groups: every submission with a published cutoff, each year, the top 10 of them
    by resolved of ``size``, the model families as explicit lists, and with several boards each
    board and their pool (the ``board`` column)."""
    groups: dict[str, list[str]] = {ALL: list(subs["submission"])}
    for year in sorted({str(d)[:4] for d in subs["date"] if str(d)[:4].isdigit()}):
        groups[year] = [s for s, d in zip(subs["submission"], subs["date"]) if str(d)[:4] == year]
    resolved = f"resolved_of_{size}"
    groups[top10_label(len(subs), size)] = list(subs.sort_values(resolved, ascending=False,
                                                                 kind="stable")["submission"][:10])
    for label, rx in FAMILIES.items():
        groups[label] = [s for s, m in zip(subs["submission"], subs["models"]) if rx.search(str(m))]
    if "board" in subs.columns and subs["board"].nunique() > 1:
        for name in dict.fromkeys(subs["board"]):
            groups[board_label(str(name))] = list(subs.loc[subs["board"] == name, "submission"])
        groups[POOL] = list(subs["submission"])
    return {k: v for k, v in groups.items() if v}


def rescore_options(facts: BuildFacts, n_boot: int | None = None) -> RescoreOptions:
    """The options a bundle was built with, ``n_boot`` resamples instead of its own when given."""
    return RescoreOptions(n_boot=int(n_boot if n_boot is not None else facts.resamples),
                          seed=int(facts.seed), min_clean=int(facts.min_clean),
                          min_resolved_clean=int(facts.min_resolved_clean))


def mde_config(facts: BuildFacts, sims: int | None = None) -> MdeConfig | None:
    """The MDE simulation of the bundle (``None``: not computed, ``mde_sims`` 0)."""
    n = int(sims if sims is not None else facts.mde_sims)
    return MdeConfig(n_sims=n, n_boot=int(facts.mde_resamples), seed=int(facts.seed)) if n > 0 else None


def _codes(frame: pd.DataFrame, column: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for sub, iid, v in zip(frame["submission"], frame["instance_id"], frame[column]):
        out.setdefault(sub, {})[iid] = VERDICT_CODE.get(v)
    return out


def _lists(inst: pd.DataFrame, facts: BuildFacts) -> dict[str, list[str]] | None:
    """Each submission's own instances when several boards are pooled (else ``None``)."""
    if not facts.boards or len(facts.boards) < 2:
        return None
    return {s: list(part["instance_id"]) for s, part in inst.groupby("submission", sort=False)}


def score(inst: pd.DataFrame, column: str, groups: Mapping[str, Sequence[str]], facts: BuildFacts,
          mde: MdeConfig | None = None, covered: set[str] | None = None
          ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rate table and pooled summary of the rows ``inst`` with verdicts from ``column``,
    over the covered instances (those whose verdict is not ``not covered``, or ``covered``)."""
    ids = list(dict.fromkeys(inst["instance_id"]))
    # a board without difficulty labels (SWE-bench Lite, full) has the one tier "all": no tier rows
    tiers = None if set(inst["tier"]) == {ALL_TIER} else dict(zip(inst["instance_id"], inst["tier"]))
    cov = covered if covered is not None else set(
        inst.loc[inst[column] != "not covered", "instance_id"])
    resolved = {s: list(part.loc[part["resolved"] == 1, "instance_id"])
                for s, part in inst.groupby("submission", sort=False)}
    meta = inst.drop_duplicates("submission").set_index("submission")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return rate_and_pool(resolved, ids, _codes(inst, column), tiers, groups=groups,
                             models={s: str(meta.loc[s, "models"]) for s in resolved},
                             dates={s: str(meta.loc[s, "date"]) for s in resolved},
                             options=rescore_options(facts),
                             covered=[i for i in ids if i in cov], mde=mde,
                             lists=_lists(inst, facts))


def bands(band: pd.DataFrame, facts: BuildFacts) -> dict[str, Any]:
    """Submissions without a published cutoff: their drop at each end of the plausible interval
    (each alone and pooled), as bands."""
    names = list(dict.fromkeys(band["submission"]))
    groups = {"without a published cutoff": names}
    return {end: score(band.assign(verdict=band[end]), "verdict", groups, facts)
            for end in ("verdict_band_start", "verdict_band_end")}
