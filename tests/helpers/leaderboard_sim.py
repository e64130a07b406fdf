"""Simulated SWE-bench-Verified-shaped leaderboards with a known contamination effect.

500 instances in the Verified tier mix; submissions of three cutoff eras, each era's verdicts
drawn per instance with a clean probability that depends on the tier (clean sets are easier than
the benchmark, as at modern cutoffs); resolution depends on the submission's skill and the tier,
and -- only when ``effect`` > 0 -- clean instances resolve at ``1 - effect`` times the tier's
original rate (the other instances of the tier make up the difference, so the original rate of
every stratum stays the submission's base rate): the paper's drop ``1 - clean / original`` is then
``effect`` in every stratum. With ``effect = 0`` resolution is independent of the verdicts within
tiers: any "drop" is confounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchchecker_plugin.flags import Verdict

TIER_SIZES = {"<15 min fix": 194, "15 min - 1 hour": 261, "1-4 hours": 42, ">4 hours": 3}
# per tier: base resolution probability (x skill) and P(clean), P(contaminated) at each era
_BASE = {"<15 min fix": 0.75, "15 min - 1 hour": 0.45, "1-4 hours": 0.15, ">4 hours": 0.05}
_P_CLEAN = {"<15 min fix": 0.35, "15 min - 1 hour": 0.18, "1-4 hours": 0.08, ">4 hours": 0.0}
_P_CONT = {"<15 min fix": 0.45, "15 min - 1 hour": 0.55, "1-4 hours": 0.5, ">4 hours": 0.6}


@dataclass(frozen=True)
class SimBoard:
    ids: list[str]
    tiers: dict[str, str]
    resolved: dict[str, set[str]]
    verdicts: dict[str, dict[str, Verdict]]


def simulate(seed: int, *, effect: float = 0.0, n_submissions: int = 20, n_eras: int = 3) -> SimBoard:
    rng = np.random.default_rng(seed)
    ids, tiers = [], {}
    for tier, n in TIER_SIZES.items():
        for k in range(n):
            iid = f"{tier[:2].strip()}-{k}"
            ids.append(iid)
            tiers[iid] = tier
    eras = []
    for _ in range(n_eras):
        v = {}
        for iid in ids:
            u = rng.random()
            t = tiers[iid]
            v[iid] = (Verdict.CLEAN if u < _P_CLEAN[t] else Verdict.CONTAMINATED
                      if u < _P_CLEAN[t] + _P_CONT[t] else Verdict.UNDECIDED)
        eras.append(v)
    resolved, verdicts = {}, {}
    for s in range(n_submissions):
        name = f"sub{s:02d}"
        skill = rng.uniform(0.3, 1.2)
        era = eras[s % n_eras]
        share = {t: np.mean([era[i] is Verdict.CLEAN for i in ids if tiers[i] == t])
                 for t in TIER_SIZES}
        got = set()
        for iid in ids:
            t = tiers[iid]
            p = min(0.85, _BASE[t] * skill)
            if era[iid] is Verdict.CLEAN:
                p *= 1.0 - effect
            elif share[t] < 1.0:
                p *= (1.0 - (1.0 - effect) * share[t]) / (1.0 - share[t])
            if rng.random() < p:
                got.add(iid)
        resolved[name] = got
        verdicts[name] = era
    return SimBoard(ids, tiers, resolved, verdicts)
