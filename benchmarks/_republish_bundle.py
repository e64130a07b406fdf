"""The published bundle of ``republish_verified.py`` and the rebuild of every table and page from
it alone (issue 34, item 6).

The bundle (the inputs of every figure): ``instances.csv`` (one row per instance and scored
submission: repository, tier, resolved, verdict, why-clean kind, snapshot id ``git:<commit>`` or
``release:<version>``), ``flags.csv`` (one
merged verdict per instance and model), ``cutoffs.csv``, ``unscored.csv``, ``snapshots.csv`` and
``build.json`` (the run's facts: command, date, versions, Stage II line, submissions, the board's
entries). :func:`rebuild` reads only these and writes ``leaderboard.csv``, ``summary.csv``,
``sensitivity.csv``, ``leaderboard.md``, ``index.html`` and ``README.md``; the script itself ends
by calling it on the folder it wrote, so the committed page *is* a rebuild of the bundle.
"""

from __future__ import annotations

import json
import re
import shutil
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

INPUTS = ("instances.csv", "flags.csv", "cutoffs.csv", "unscored.csv", "snapshots.csv",
          "build.json", "CHANGELOG.md", "LICENSE-DATA.md", "own_fix_recall.csv")
OUTPUTS = ("leaderboard.csv", "summary.csv", "sensitivity.csv", "leaderboard.md", "index.html",
           "README.md")
INSTANCE_COLUMNS = ("instance_id", "repo", "tier", "submission", "models", "date", "scored_as",
                    "resolved", "verdict", "verdict_band_start", "verdict_band_end", "clean_kind",
                    "snapshot_source", "snapshot")
# written to instances.csv (the others follow from build.json and snapshots.csv: compact)
WRITTEN_COLUMNS = ("instance_id", "submission", "tier", "resolved", "verdict",
                   "verdict_band_start", "verdict_band_end", "clean_kind", "snapshot")
CLAUDE4 = re.compile(r"claude-(4-(sonnet|opus)|(sonnet|opus)-4)(?![-.]5)", re.I)
CLAUDE45 = re.compile(r"claude-(sonnet|opus|haiku)-4[-.]5", re.I)
FAMILIES = {"Claude 4 (Sonnet 4, Opus 4)": CLAUDE4, "Claude 4.5 (Sonnet 4.5, Opus 4.5)": CLAUDE45}
VERDICT_CODE = {"contaminated": True, "clean": False, "undecided": None}


def verdict_word(v: Any) -> str:
    """``contaminated`` / ``clean`` / ``undecided`` of a Verdict, bool or None."""
    b = v.to_bool() if hasattr(v, "to_bool") else v
    return "undecided" if b is None else "contaminated" if b else "clean"


def submission_verdict(per_model: Sequence[str]) -> str:
    """Contaminated if any model's verdict is, clean if every model's is, else undecided."""
    if "contaminated" in per_model:
        return "contaminated"
    return "clean" if per_model and all(v == "clean" for v in per_model) else "undecided"


def write_inputs(out: Path, frames: Mapping[str, pd.DataFrame], build: Mapping[str, Any]) -> None:
    """The bundle's data files (CHANGELOG and licence note are kept by hand in the folder)."""
    from benchchecker_plugin.report import write_csv
    from benchchecker_plugin.report._html import write_text_atomic

    out.mkdir(parents=True, exist_ok=True)
    for name, frame in frames.items():
        write_csv(frame[list(WRITTEN_COLUMNS)] if name == "instances.csv" else frame, out / name)
    write_text_atomic(out / "build.json", json.dumps(build, indent=1, sort_keys=True, default=dict) + "\n")


def _codes(frame: pd.DataFrame, column: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for sub, iid, v in zip(frame["submission"], frame["instance_id"], frame[column]):
        out.setdefault(sub, {})[iid] = VERDICT_CODE.get(v)
    return out


def groups_of(subs: pd.DataFrame) -> dict[str, list[str]]:
    """The pooled groups: every submission with a published cutoff, each year, the top 10 of them
    by resolved of 500, and the model families as explicit lists."""
    groups: dict[str, list[str]] = {"all submissions": list(subs["submission"])}
    for year in sorted({str(d)[:4] for d in subs["date"] if str(d)[:4].isdigit()}):
        groups[year] = [s for s, d in zip(subs["submission"], subs["date"]) if str(d)[:4] == year]
    groups[top10_label(len(subs))] = list(subs.sort_values("resolved_of_500", ascending=False,
                                                           kind="stable")["submission"][:10])
    for label, rx in FAMILIES.items():
        groups[label] = [s for s, m in zip(subs["submission"], subs["models"]) if rx.search(str(m))]
    return {k: v for k, v in groups.items() if v}


def top10_label(n: int) -> str:
    return f"top 10 of the {n} scored submissions (by resolved of 500)"


def _score(inst: pd.DataFrame, column: str, groups: Mapping[str, Sequence[str]], build: Mapping[str, Any],
           mde: Any = None, covered: set[str] | None = None, n_boot: int | None = None
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    from benchchecker_plugin.scoring import UndefinedMetricWarning, rate_and_pool

    ids = list(dict.fromkeys(inst["instance_id"]))
    tiers = dict(zip(inst["instance_id"], inst["tier"]))
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
                             options=rescore_options(build, n_boot),
                             covered=[i for i in ids if i in cov], mde=mde)


def rescore_options(build: Mapping[str, Any], n_boot: int | None = None) -> Any:
    """The :class:`~benchchecker_plugin.rescore_options.RescoreOptions` a bundle was built with
    (its ``build.json``), ``n_boot`` resamples instead of the bundle's when given."""
    from benchchecker_plugin.rescore_options import RescoreOptions

    return RescoreOptions(n_boot=int(n_boot if n_boot is not None else build["resamples"]),
                          seed=int(build["seed"]), min_clean=int(build["min_clean"]),
                          min_resolved_clean=int(build["min_resolved_clean"]))


def rebuild(folder: Path, out: Path, *, mde_sims: int | None = None) -> list[Path]:
    """Every table and page of ``out`` from the bundle in ``folder`` alone (``out`` may be
    ``folder``); returns the paths written."""
    from _republish_page import paper_tables, sensitivity_table, write_pages

    from benchchecker_plugin.scoring import MdeConfig

    build = json.loads((folder / "build.json").read_text())
    snapshots = pd.read_csv(folder / "snapshots.csv", dtype=str, keep_default_na=False)
    inst = read_instances(folder / "instances.csv", build, snapshots)
    compact = pd.read_csv(folder / "flags.csv", dtype={"contaminated": str}, keep_default_na=False)
    cutoff_df = pd.read_csv(folder / "cutoffs.csv", dtype=str, keep_default_na=False)
    unscored = pd.read_csv(folder / "unscored.csv", keep_default_na=False)
    if folder.resolve() != out.resolve():
        out.mkdir(parents=True, exist_ok=True)
        for name in INPUTS:
            if (folder / name).exists():
                shutil.copyfile(folder / name, out / name)
    subs = pd.DataFrame(build["submissions"])
    pub = inst[inst["scored_as"] == "published cutoff"]
    band = inst[inst["scored_as"] == "band"]
    pub_subs = subs[subs["submission"].isin(set(pub["submission"]))]
    groups = groups_of(pub_subs)
    sims = int(mde_sims if mde_sims is not None else build["mde_sims"])
    cfg = (MdeConfig(n_sims=sims, n_boot=int(build["mde_resamples"]), seed=int(build["seed"]))
           if sims > 0 else None)   # --mde-sims 0: no minimum detectable drop (a quick try)
    mde_sentence = cfg.sentence() if cfg is not None else "MDE: not computed in this run (--mde-sims 0)."
    table, summary = _score(pub, "verdict", groups, build, mde=cfg)
    full = pub.drop_duplicates(["submission", "instance_id"])
    n500 = full.groupby("submission")["resolved"].agg(["size", "mean"])
    table["n_instances_500"] = table["submission"].map(n500["size"])
    table["original_rate_500"] = table["submission"].map(n500["mean"])
    table.attrs.update(ci=0.95, min_clean=int(build["min_clean"]),
                       min_resolved_clean=int(build["min_resolved_clean"]), mde=mde_sentence)
    bands = _bands(band, build, subs) if len(band) else {}
    sens = sensitivity_table(pub, band, groups, build, _score)
    paper = paper_tables(table, summary, compact, subs, cutoff_df, build, groups, bands)
    return write_pages(out, table, summary, compact, unscored, inst, paper, build, cutoff_df,
                       sens, snapshots, mde_sentence)


def repo_of(instance_id: str) -> str:
    """``owner/name`` of a SWE-bench instance id (``owner__name-1234``)."""
    owner, rest = instance_id.split("__", 1)
    return f"{owner}/{rest.rsplit('-', 1)[0]}"


def read_instances(path: Path, build: Mapping[str, Any], snapshots: pd.DataFrame) -> pd.DataFrame:
    """instances.csv with the columns that follow from the rest of the bundle: repository (from
    the id), models and date (build.json), how it is scored, the snapshot source (snapshots.csv)."""
    inst = pd.read_csv(path, dtype=str, keep_default_na=False)
    inst["resolved"] = inst["resolved"].astype(int)
    meta = pd.DataFrame(build["submissions"]).set_index("submission")
    inst["repo"] = inst["instance_id"].map(repo_of)
    inst["models"] = inst["submission"].map(meta["models"])
    inst["date"] = inst["submission"].map(meta["date"])
    inst["scored_as"] = ["band" if s in build["bands"] else "published cutoff"
                         for s in inst["submission"]]
    source = snapshots.drop_duplicates("repo").set_index("repo")["source"]
    inst["snapshot_source"] = inst["repo"].map(source).fillna("git")
    return inst[list(INSTANCE_COLUMNS)]


def _bands(band: pd.DataFrame, build: Mapping[str, Any], subs: pd.DataFrame) -> dict[str, Any]:
    """Submissions without a published cutoff: their drop at each end of the plausible interval
    (each alone and pooled), as bands."""
    names = list(dict.fromkeys(band["submission"]))
    groups = {"without a published cutoff": names}
    out: dict[str, Any] = {}
    for end in ("verdict_band_start", "verdict_band_end"):
        part = band.assign(verdict=band[end])
        out[end] = _score(part, "verdict", groups, build)
    return out
