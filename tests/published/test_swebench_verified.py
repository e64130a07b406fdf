"""The committed republication (``published/swebench-verified/``) against a plain pandas
recomputation from its own flags file and the submissions' resolved lists.

Guards against a published number that the committed flags do not give: every count and rate of
``leaderboard.csv`` (covered instances per tier, and the 500-instance original rate), the Wilson
intervals, the relative drop and its 'too few' rule, and the unscored submissions' rates.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers import SHARED_DATA

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "published" / "swebench-verified"
DATA = SHARED_DATA
INSTANCES = DATA / "swebench_verified" / "swebench_verified_composite.jsonl"
EXPERIMENTS = DATA / "swebench_experiments"
MIN_CLEAN = 10  # the script's default, stated in the published README

pytestmark = [
    pytest.mark.skipif(not (PUBLISHED / "leaderboard.csv").is_file(),
                       reason="published/swebench-verified/ not generated"),
    pytest.mark.skipif(not (INSTANCES.is_file() and EXPERIMENTS.is_dir()),
                       reason="no shared data: set BENCHCHECKER_SHARED_DATA (swebench_verified/, "
                              "swebench_experiments/)"),
]


def _resolved(submission: str) -> set[str]:
    data = json.loads((EXPERIMENTS / submission / "results" / "results.json").read_text())
    return set(data["resolved"])


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def _close(got: float, want: float) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return got == pytest.approx(want, abs=1e-9)


@pytest.fixture(scope="module")
def recomputed() -> tuple[pd.DataFrame, pd.DataFrame]:
    table = pd.read_csv(PUBLISHED / "leaderboard.csv", keep_default_na=True)
    flags = pd.read_csv(PUBLISHED / "flags.csv", dtype={"contaminated": str}, keep_default_na=False)
    inst = pd.read_json(INSTANCES, lines=True)[["instance_id", "difficulty"]]
    tiers = dict(zip(inst["instance_id"], inst["difficulty"]))
    covered = set(flags["instance_id"])
    verdict = {(i, m): v for i, m, v in zip(flags["instance_id"], flags["model"], flags["contaminated"])}
    rows = []
    for sub, model in table.drop_duplicates("submission")[["submission", "model"]].itertuples(index=False):
        res = _resolved(sub)
        models = str(model).split(";")
        for tier in ["all", *sorted(set(tiers.values()))]:
            ids500 = [i for i in tiers if tier == "all" or tiers[i] == tier]
            ids = [i for i in ids500 if i in covered]
            clean, cont = [], []
            for i in ids:
                vs = [verdict.get((i, m), "") for m in models]
                if "true" in vs:
                    cont.append(i)
                elif all(v == "false" for v in vs):
                    clean.append(i)
            if not ids:
                continue
            orig = sum(i in res for i in ids) / len(ids)
            cr = sum(i in res for i in clean) / len(clean) if clean else math.nan
            xr = sum(i in res for i in cont) / len(cont) if cont else math.nan
            drop = (orig - cr) / orig if orig > 0 and clean and len(clean) >= MIN_CLEAN else math.nan
            row = dict(submission=sub, tier=tier, n_instances=len(ids), n_clean=len(clean),
                       n_contaminated=len(cont), n_undecided=len(ids) - len(clean) - len(cont),
                       original_rate=orig, clean_rate=cr, contaminated_rate=xr, relative_drop=drop,
                       n_instances_500=len(ids500),
                       original_rate_500=sum(i in res for i in ids500) / len(ids500))
            for name, k, n in (("original", sum(i in res for i in ids), len(ids)),
                               ("clean", sum(i in res for i in clean), len(clean)),
                               ("contaminated", sum(i in res for i in cont), len(cont))):
                row[f"{name}_ci_low"], row[f"{name}_ci_high"] = _wilson(k, n)
            rows.append(row)
    return table, pd.DataFrame(rows)


def test_every_published_number_equals_the_recomputation(recomputed):
    table, ref = recomputed
    assert len(table) == len(ref)
    merged = table.merge(ref, on=["submission", "tier"], suffixes=("", "_ref"), validate="one_to_one")
    assert len(merged) == len(table)
    for col in [c for c in ref.columns if c not in ("submission", "tier")]:
        bad = [(r.submission, r.tier) for r in merged.itertuples()
               if not _close(float(getattr(r, col)), float(getattr(r, f"{col}_ref")))]
        assert not bad, f"{col} differs for {bad[:5]}"


def test_drop_interval_holds_the_drop_and_too_few_is_noted(recomputed):
    table, _ = recomputed
    shown = table.dropna(subset=["relative_drop"])
    assert (shown["drop_ci_low"] <= shown["relative_drop"] + 1e-12).all()
    assert (shown["relative_drop"] <= shown["drop_ci_high"] + 1e-12).all()
    few = table[(table["n_clean"] > 0) & (table["n_clean"] < MIN_CLEAN)]
    assert few["note"].str.startswith("too few clean instances").all()


def test_unscored_submissions_have_a_reason_and_their_500_rate():
    unscored = pd.read_csv(PUBLISHED / "unscored.csv", keep_default_na=False)
    table = pd.read_csv(PUBLISHED / "leaderboard.csv")
    assert not set(unscored["submission"]) & set(table["submission"])
    assert (unscored["reason"].str.len() > 0).all()
    for sub, rate in zip(unscored["submission"], unscored["original_rate_500"]):
        assert rate == pytest.approx(len(_resolved(sub)) / 500, abs=1e-12)


def test_flags_file_is_compact_and_published_folder_small():
    flags = pd.read_csv(PUBLISHED / "flags.csv", dtype=str, keep_default_na=False)
    assert list(flags.columns) == ["instance_id", "model", "contaminated", "score", "category"]
    assert set(flags["contaminated"]) <= {"true", "false", ""}
    assert not flags.duplicated(["instance_id", "model"]).any()
    assert sum(p.stat().st_size for p in PUBLISHED.iterdir()) < 5 * 2**20
