"""The demo's steps: each runs one part of the pipeline offline and returns its headline numbers.

Every step is a plain function ``(ctx) -> StepResult``; a step that cannot run here (no data
folder, a missing optional package) is *skipped with a reason*, never reported as a success.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import BenchcheckerError, DataError
from ..flags import ContaminationFlag, write_flags


@dataclass(frozen=True)
class DemoContext:
    out_dir: Path
    data_dir: Path | None
    quick: bool
    seed: int = 0
    #: the republished SWE-bench Verified bundle (its ``flags.csv``), if this checkout has one
    republished: Path | None = None


@dataclass(frozen=True)
class StepResult:
    """What one step shows: ``headline`` (name → number or text), an optional table, files."""

    name: str
    title: str
    status: str  # "ok" | "skipped" | "failed"
    seconds: float
    headline: dict[str, Any] = field(default_factory=dict)
    table: pd.DataFrame | None = None
    files: dict[str, str] = field(default_factory=dict)
    note: str = ""
    #: what each headline figure measures (the page shows it beside the figure)
    measures: dict[str, str] = field(default_factory=dict)


class _Skip(Exception):
    """Raised by a step that cannot run here; carries the reason."""


def _metrics_rows(method_metrics: dict[str, Any]) -> pd.DataFrame:
    rows = []
    for method, m in method_metrics.items():
        rows.append({"method": method, **{k: m.get(k) for k in ("auc", "tpr", "fpr", "tpr_at_5fpr")}})
    return pd.DataFrame(rows)


#: what each membership method's AUC ranks repositories by
MEMBERSHIP_MEASURES = {
    "stage1": "Stage I exact-hit test (-log10 p of the binomial test on samples that reproduce a "
              "target exactly)",
    "stage1_graded": "Stage I graded score (edit similarity of the samples to the file's "
                     "continuation, minus their similarity to non-member code)",
    "loss": "mean token loss",
    "zlib": "token loss over zlib entropy",
    "min_k": "mean of the 20% least likely tokens' log-probabilities (Min-K%)",
    "min_k_pp": "Min-K%++ (log-probabilities standardised over the vocabulary)",
}


def membership_step(ctx: DemoContext) -> StepResult:
    """Stage I + four logit baselines on repositories a freshly trained GPT-2 did / did not see."""
    from ..membership import MEMBERSHIP_FULL, MEMBERSHIP_QUICK, run_membership

    out = ctx.out_dir / "membership"
    config = (MEMBERSHIP_QUICK if ctx.quick else MEMBERSHIP_FULL).seeded(ctx.seed)
    doc = run_membership(out, config=config)
    tables, headline, measures = [], {}, {}
    regimes = {"strong": f"the final model, {config.train.steps} steps",
               "weak": f"an early checkpoint, step {config.train.weak_step}"}
    for run in doc["runs"]:
        t = _metrics_rows(run["methods"])
        t.insert(0, "regime", run["regime"])
        tables.append(t)
        for method, m in run["methods"].items():
            key = f"AUC {method} ({run['regime']}, seed {ctx.seed})"
            headline[key] = m.get("auc")
            measures[key] = (f"members vs non-members ({len(doc['setup']['members'])} each) ranked "
                             f"by the {MEMBERSHIP_MEASURES.get(method, method)}; "
                             f"{regimes.get(run['regime'], run['regime'])}")
    return StepResult("membership", "Stage I vs logit baselines on a model whose training set is known",
                      "ok", 0.0, headline, pd.concat(tables, ignore_index=True),
                      {"membership.json": str(out / "membership.json")}, measures=measures)


def _installed_source(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise BenchcheckerError(f"package {package!r} is not installed: no source tree to build from")
    return Path(list(spec.submodule_search_locations)[0])


def stage2_step(ctx: DemoContext) -> StepResult:
    """Stage II on labelled git histories built from an installed package's real source."""
    from datetime import datetime

    from ..scoring import detection_metrics
    from ..stage2 import build_history, run_stage2

    root = ctx.out_dir / "stage2"
    repo = root / "repos" / "synthetic__history"
    if repo.exists():
        import shutil

        shutil.rmtree(repo)
    cutoff = datetime(2024, 6, 1, tzinfo=UTC)
    cases = build_history(_installed_source("rich"), repo, cutoff=cutoff,
                          per_scenario=2 if ctx.quick else 4, seed=ctx.seed)
    flags = list(run_stage2([c.instance for c in cases], root / "repos", {"*": cutoff},
                            reuse_counts=False).flags)
    write_flags(root / "stage2_flags.jsonl", flags)
    labels = [c.label for c in cases]
    scores = [f.score for f in flags]
    decided = [bool(f.contaminated) for f in flags]
    m = detection_metrics(labels, scores, flags=decided, n_boot=200, seed=ctx.seed)
    table = pd.DataFrame([{"scenario": c.scenario, "label (fix in snapshot)": c.label,
                           "verdict": f.verdict.value, "score": round(f.score, 3),
                           "category": f.evidence.get("category", "")}
                          for c, f in zip(cases, flags)])
    return StepResult("stage2", "Stage II on labelled histories (fix persisted / after cutoff / reverted / "
                      "reformatted / renamed / moved / deleted)", "ok", 0.0,
                      {"AUC stage2": m.auc.estimate, "TPR stage2": m.tpr.estimate,
                       "FPR stage2": m.fpr.estimate, "cases": len(cases)}, table,
                      {"flags": str(root / "stage2_flags.jsonl")})


def tsguessing_table(r: Any) -> pd.DataFrame:
    """The demo's TS-Guessing table: per half, item and flagged *counts*, mean EM and Rouge-L
    (``flagged`` was a fraction beside counts)."""
    seen, unseen = sum(r.labels), len(r.labels) - sum(r.labels)
    return pd.DataFrame([
        {"half": "seen in training", "items": seen, "flagged": round(r.flagged_contaminated * seen),
         "exact match": r.em_contaminated, "Rouge-L": r.rouge_contaminated},
        {"half": "not seen", "items": unseen, "flagged": round(r.flagged_clean * unseen),
         "exact match": r.em_clean, "Rouge-L": r.rouge_clean}])


def tsguessing_headline(r: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """The step's figures, each named with its seed, and what each measures. A fine-tune that did
    not memorise its seen half gives that line and no detector figure."""
    tag = f"seed {r.seed}, {len(r.labels)} MMLU items"
    headline: dict[str, Any] = {f"TS-Guessing controlled ({tag})": r.headline()}
    measures = {f"TS-Guessing controlled ({tag})": "the check in one line: what the detector "
                "separates, or why this draw is not a test of it"}

    def put(name: str, value: float, what: str) -> None:
        headline[f"{name} ({tag})"] = value
        measures[f"{name} ({tag})"] = what

    put("fine-tune memorised", r.memorised_share,
        f"share of the {r.n_seen} seen targets the fine-tuned model reproduces in full "
        "(greedy, teacher forcing), checked before the detector runs")
    if r.verified:
        put("EM seen", r.em_contaminated, "share of the seen half whose answer is the hidden option")
        put("EM not seen", r.em_clean, "share of the unseen half whose answer is the hidden option")
        put("AUC ts_guessing (Rouge-L)", r.auc_rouge,
            "seen vs unseen items ranked by the flag's score (Rouge-L of answer vs hidden option)")
        put("AUC ts_guessing (EM)", r.auc_em, "seen vs unseen items ranked by exact match")
    return headline, measures


def tsguessing_step(ctx: DemoContext) -> StepResult:
    """TS-Guessing on a small model fine-tuned on half of some MMLU items until verified to have
    memorised them (``benchchecker eval ts-guess``)."""
    from ..tsguessing import CONTROLLED, run_controlled

    if ctx.data_dir is None:
        raise _Skip("no data folder (../shared/data) with MMLU")
    out = ctx.out_dir / "tsguessing"
    config = replace(CONTROLLED, items=100 if ctx.quick else 200).seeded(ctx.seed)
    r, _ = run_controlled(out, ctx.data_dir / "mmlu", config)
    headline, measures = tsguessing_headline(r)
    return StepResult("tsguessing", f"TS-Guessing on a small model fine-tuned on half of "
                      f"{len(r.labels)} MMLU items", "ok", 0.0, headline, tsguessing_table(r),
                      {"tsguess.json": str(out / "tsguess.json"),
                       "flags": str(out / "tsguess_flags.jsonl")}, measures=measures)


def _verified_rows(data: Path) -> list[dict[str, Any]]:
    """SWE-bench Verified's instances, dated from the full-fields subset where the composite has
    no ``created_at`` (the same rows ``benchchecker flags patch-dates ... --dates`` reads)."""
    from ..instances import load_swebench
    from ..patch_dates import dated_rows

    folder = data / "swebench_verified"
    return dated_rows(load_swebench(folder / "swebench_verified_composite.jsonl"),
                      load_swebench(folder / "swebench_verified_fullfields_subset.jsonl"))


#: the republished bundle's verdicts, relative to a source checkout (``published/`` is not in the wheel)
REPUBLISHED = Path("published") / "swebench-verified"


def republished_flags(bundle: Path) -> list[ContaminationFlag]:
    """The republished bundle's Stage II verdicts (``flags.csv``: instance_id, model,
    contaminated = true / false / empty, score, category) as flags of ``benchchecker.stage2``."""
    import csv

    path = bundle / "flags.csv"
    verdicts = {"true": True, "false": False, "": None}
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    need = {"instance_id", "model", "contaminated", "score", "category"}
    if not rows or need - set(rows[0]):
        raise DataError(f"{path}: expected columns {', '.join(sorted(need))}")
    try:
        return [ContaminationFlag(benchmark="swe-bench-verified", instance_id=r["instance_id"],
                                  model=r["model"], method="benchchecker.stage2",
                                  contaminated=verdicts[r["contaminated"]], score=float(r["score"]),
                                  evidence={"category": r["category"], "from": str(path)})
                for r in rows]
    except (KeyError, ValueError) as exc:
        raise DataError(f"{path}: a row's contaminated or score is not a verdict ({exc})") from None


def _pooled(summary: pd.DataFrame | None, tier: str = "all") -> pd.DataFrame:
    """The pooled rows of one tier, one per group of submissions (all, each year)."""
    if summary is None or summary.empty:
        return pd.DataFrame(columns=["group", "tier", "n_clean", "n_resolved_clean", "note"])
    return summary[summary["tier"] == tier].reset_index(drop=True)


def _pooled_table(summary: pd.DataFrame | None, flags: str) -> pd.DataFrame:
    """The pooled cells as a reader sees them: every group and tier, its drop with its interval."""
    from ..report import drop_text

    if summary is None or summary.empty:
        return pd.DataFrame()
    return pd.DataFrame([{"flags": flags, "group": r["group"], "tier": r["tier"],
                          "submissions": int(r["n_submissions"]), "clean n": int(r["n_clean"]),
                          "resolved clean": int(r["n_resolved_clean"]),
                          "original": r["original_rate"], "clean": r["clean_rate"],
                          "drop [95% CI]": drop_text(r)} for _, r in summary.iterrows()])


def leaderboard_step(ctx: DemoContext) -> StepResult:
    """The 82 real SWE-bench Verified submissions re-scored, pooled over submissions (all of them,
    each year; Mantel-Haenszel over submission x tier, cluster bootstrap).

    Patch-date flags (a fix public before the model's cutoff) need no clone, but nearly every
    Verified fix predates the models: pooled over all submissions they leave 3 resolved clean
    instances, too few for a drop. Stage II's verdicts (is the fix in the snapshot at the cutoff?)
    leave enough: where the republished bundle (``published/swebench-verified``, a source
    checkout) is here, its verdicts give the headline and the patch-date board is kept beside."""
    from ..cutoffs_file import read_model_cutoffs
    from ..leaderboard import build_leaderboard, write_leaderboard
    from ..patch_dates import fix_dates, patch_date_flags
    from ..report import drop_text

    data = ctx.data_dir
    if data is None:
        raise _Skip("no data folder (../shared/data) with SWE-bench Verified and its submissions")
    out = ctx.out_dir / "leaderboard"
    dated = write_flags(out / "patch_date_flags.jsonl",
                        patch_date_flags(fix_dates(_verified_rows(data)),
                                         read_model_cutoffs(data / "model_cutoffs" / "model_cutoffs.csv")))

    def board(flags_path: Path, folder: Path) -> Any:
        scored = build_leaderboard(data / "swebench_experiments", flags_path,
                                   tiers_path=data / "swebench_verified" / "swebench_verified_composite.jsonl",
                                   model_map_path=data / "model_cutoffs" / "submission_models.csv",
                                   n_boot=200 if ctx.quick else 1000, seed=ctx.seed)
        write_leaderboard(scored, folder)
        return scored

    bundle = ctx.republished
    files = {"patch-date flags": str(dated)}
    if bundle is not None and (bundle / "flags.csv").is_file():
        stage2 = write_flags(out / "stage2_flags.jsonl", republished_flags(bundle))
        main, by_date = board(stage2, out), board(dated, out / "patch_date")
        which, note = "Stage II", (f"Stage II verdicts read from {bundle / 'flags.csv'} (computed "
                                   "with clones); patch-date flags alone leave too few resolved clean "
                                   "instances (see the patch-date row)")
        files.update({"Stage II flags": str(stage2),
                      "patch-date leaderboard": str(out / "patch_date" / "index.html")})
    else:
        main = by_date = board(dated, out)
        which, note = "patch dates", ("patch-date flags alone: nearly every Verified fix predates "
                                      "the models' cutoffs, so the clean sets are too few for a drop; "
                                      f"the republished Stage II verdicts ({REPUBLISHED}/flags.csv "
                                      "of a source checkout) were not found")
    headline = {f"pooled drop, {r['group']} ({which}; clean n={int(r['n_clean'])}, resolved "
                f"{int(r['n_resolved_clean'])})": drop_text(r) for _, r in _pooled(main.summary).iterrows()}
    if by_date is not main:
        for _, r in _pooled(by_date.summary).iloc[:1].iterrows():
            headline[f"pooled drop, {r['group']} (patch dates only; clean n={int(r['n_clean'])}, "
                     f"resolved {int(r['n_resolved_clean'])})"] = drop_text(r)
    table = pd.concat([_pooled_table(main.summary, which)]
                      + ([_pooled_table(by_date.summary, "patch dates")] if by_date is not main else []),
                      ignore_index=True)
    files.update({"leaderboard (per submission)": str(out / "index.html"),
                  "csv": str(out / "leaderboard.csv"), "pooled csv": str(out / "summary.csv")})
    return StepResult("leaderboard", "SWE-bench Verified leaderboard (82 submissions) re-scored without "
                      "the instances each model could have seen, pooled over submissions", "ok", 0.0,
                      headline, table, files, note)


def overlap_step(ctx: DemoContext) -> StepResult:
    """The controlled overlap evaluation in miniature: items planted into real offline text."""
    from ..overlap import EVAL_DEMO, EVAL_QUICK, run_overlap_eval

    if ctx.data_dir is None or not (ctx.data_dir / "mmlu").is_dir():
        raise _Skip("no data folder (../shared/data) with MMLU and TruthfulQA")
    out = ctx.out_dir / "overlap"
    config = EVAL_DEMO if ctx.quick else EVAL_QUICK
    doc = run_overlap_eval(out, ctx.data_dir, replace(config, seed=ctx.seed))
    metrics = ["parts", "any_ngram", "coverage", "longest", "lm_eval_13gram"]
    rows = []
    for group, row in doc["results"].items():
        rows.append({"form": "clean (false positives)" if group == "clean" else group,
                     "n": row["metrics"]["parts"]["n"],
                     **{m: row["metrics"][m]["rate"] for m in metrics}})
    res = doc["results"]
    forms = [g for g in res if g not in ("clean", "verbatim_short")]
    worst = min(forms, key=lambda g: res[g]["metrics"]["parts"]["rate"] or 0.0)
    headline = {f"worst-form recall, parts ({worst})": res[worst]["metrics"]["parts"]["rate"],
                "verbatim recall, lm-eval 13-gram": res["verbatim"]["metrics"]["lm_eval_13gram"]["rate"],
                "perturbed recall, parts": res["perturbed"]["metrics"]["parts"]["rate"],
                "clean flagged, parts": res["clean"]["metrics"]["parts"]["rate"],
                "clean flagged, lm-eval 13-gram": res["clean"]["metrics"]["lm_eval_13gram"]["rate"]}
    return StepResult("overlap", f"Corpus overlap: benchmark items planted into real text in {len(forms)} "
                      "forms, recall per form and false positives per rule vs lm-eval's 13-gram rule "
                      f"(seed {ctx.seed})", "ok", 0.0, headline,
                      pd.DataFrame(rows), {"overlap_eval.json": str(out / "overlap_eval.json")})


def run_step(fn: Callable[[DemoContext], StepResult], ctx: DemoContext, name: str,
             title: str) -> StepResult:
    """Run one step, timing it; a skip or a failure is reported as such (never as success)."""
    start = time.perf_counter()
    try:
        result = fn(ctx)
    except _Skip as why:
        return StepResult(name, title, "skipped", time.perf_counter() - start, note=str(why))
    except BenchcheckerError as exc:
        return StepResult(name, title, "failed", time.perf_counter() - start, note=str(exc))
    return replace(result, seconds=time.perf_counter() - start)


STEPS: list[tuple[str, str, Callable[[DemoContext], StepResult]]] = [
    ("membership", "Stage I + logit baselines, controlled membership", membership_step),
    ("stage2", "Stage II on labelled histories", stage2_step),
    ("tsguessing", "TS-Guessing on a deliberately contaminated model", tsguessing_step),
    ("leaderboard", "Leaderboard re-scored", leaderboard_step),
    ("overlap", "Corpus overlap, controlled", overlap_step),
]
