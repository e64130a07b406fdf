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

from ..errors import BenchcheckerError
from ..flags import write_flags

__all__ = ["DemoContext", "STEPS", "StepResult", "run_step"]


@dataclass(frozen=True)
class DemoContext:
    out_dir: Path
    data_dir: Path | None
    quick: bool
    seed: int = 0


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


class _Skip(Exception):
    """Raised by a step that cannot run here; carries the reason."""


def _metrics_rows(method_metrics: dict[str, Any]) -> pd.DataFrame:
    rows = []
    for method, m in method_metrics.items():
        rows.append({"method": method, **{k: m.get(k) for k in ("auc", "tpr", "fpr", "tpr_at_5fpr")}})
    return pd.DataFrame(rows)


def membership_step(ctx: DemoContext) -> StepResult:
    """Stage I + four logit baselines on repositories a freshly trained GPT-2 did / did not see."""
    from ..membership import FULL, QUICK, run_membership

    out = ctx.out_dir / "membership"
    doc = run_membership(out, config=QUICK if ctx.quick else FULL)
    tables, headline = [], {}
    for run in doc["runs"]:
        t = _metrics_rows(run["methods"])
        t.insert(0, "regime", run["regime"])
        tables.append(t)
        for method, m in run["methods"].items():
            headline[f"AUC {method} ({run['regime']})"] = m.get("auc")
    return StepResult("membership", "Stage I vs logit baselines on a model whose training set is known",
                      "ok", 0.0, headline, pd.concat(tables, ignore_index=True),
                      {"membership.json": str(out / "membership.json")})


def _installed_source(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise BenchcheckerError(f"package {package!r} is not installed: no source tree to build from")
    return Path(list(spec.submodule_search_locations)[0])


def stage2_step(ctx: DemoContext) -> StepResult:
    """Stage II on labelled git histories built from an installed package's real source."""
    from datetime import datetime

    from ..scoring import detection_metrics
    from ..stage2 import patch_presence
    from ..stage2.synthetic import build_history

    root = ctx.out_dir / "stage2"
    repo = root / "repos" / "synthetic__history"
    if repo.exists():
        import shutil

        shutil.rmtree(repo)
    cutoff = datetime(2024, 6, 1, tzinfo=UTC)
    cases = build_history(_installed_source("rich"), repo, cutoff=cutoff,
                          per_scenario=2 if ctx.quick else 4, seed=ctx.seed)
    flags = patch_presence([c.instance for c in cases], root / "repos", cutoff, model="*")
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


def tsguessing_step(ctx: DemoContext) -> StepResult:
    """TS-Guessing on a small model deliberately trained on half of some MMLU items."""
    from ..tsguessing import controlled_check

    if ctx.data_dir is None:
        raise _Skip("no data folder (../shared/data) with MMLU")
    out = ctx.out_dir / "tsguessing"
    r = controlled_check(ctx.data_dir / "mmlu", out, items=100, epochs=150 if ctx.quick else 300,
                         seed=ctx.seed)
    flags_path = write_flags(out / "ts_guessing_flags.jsonl", r.flags)
    table = tsguessing_table(r)
    return StepResult("tsguessing", "TS-Guessing on a small model trained on half of 100 MMLU items",
                      "ok", 0.0, {"AUC ts_guessing (Rouge-L)": r.auc_rouge, "AUC ts_guessing (EM)": r.auc_em,
                                  "EM seen": r.em_contaminated, "EM not seen": r.em_clean},
                      table, {"flags": str(flags_path)})


def _verified_rows(data: Path) -> list[dict[str, Any]]:
    """SWE-bench Verified's instances, dated from the full-fields subset where the composite has
    no ``created_at`` (the same rows ``benchchecker flags patch-dates ... --dates`` reads)."""
    from ..instances import load_swebench
    from ..patch_dates import dated_rows

    folder = data / "swebench_verified"
    return dated_rows(load_swebench(folder / "swebench_verified_composite.jsonl"),
                      load_swebench(folder / "swebench_verified_fullfields_subset.jsonl"))


def leaderboard_step(ctx: DemoContext) -> StepResult:
    """Patch-date flags for SWE-bench Verified per model, then the 82 real submissions re-scored."""
    from ..leaderboard import build_leaderboard, write_leaderboard
    from ..patch_dates import fix_dates, patch_date_flags, read_model_cutoffs

    data = ctx.data_dir
    if data is None:
        raise _Skip("no data folder (../shared/data) with SWE-bench Verified and its submissions")
    out = ctx.out_dir / "leaderboard"
    flags = patch_date_flags(fix_dates(_verified_rows(data)),
                             read_model_cutoffs(data / "model_cutoffs" / "model_cutoffs.csv"))
    flags_path = write_flags(out / "patch_date_flags.jsonl", flags)
    board = build_leaderboard(data / "swebench_experiments", flags_path,
                              tiers_path=data / "swebench_verified" / "swebench_verified_composite.jsonl",
                              model_map_path=data / "model_cutoffs" / "submission_models.csv",
                              n_boot=200 if ctx.quick else 1000)
    write_leaderboard(board, out)
    # Pooled over every scored submission, tier by tier (Mantel-Haenszel, cluster bootstrap):
    # never a mean of per-submission ratios, and "too few" where the clean set is too small.
    from ..report import drop_text

    summary = board.summary if board.summary is not None else pd.DataFrame(columns=["group"])
    by_tier = summary[summary["group"] == "all submissions"].reset_index(drop=True)
    headline = {f"pooled drop, {r['tier']} (clean n={int(r['n_clean'])}, resolved "
                f"{int(r['n_resolved_clean'])})": drop_text(r) for _, r in by_tier.iterrows()}
    return StepResult("leaderboard", "SWE-bench Verified leaderboard (82 submissions) re-scored without "
                      "instances whose fix was public before each model's cutoff", "ok", 0.0, headline,
                      by_tier, {"leaderboard": str(out / "index.html"), "csv": str(out / "leaderboard.csv")})


def overlap_step(ctx: DemoContext) -> StepResult:
    """The controlled overlap evaluation in miniature: items planted into real offline text."""
    from ..overlap.controlled import DEMO, QUICK, run_overlap_eval

    if ctx.data_dir is None or not (ctx.data_dir / "mmlu").is_dir():
        raise _Skip("no data folder (../shared/data) with MMLU and TruthfulQA")
    out = ctx.out_dir / "overlap"
    config = DEMO if ctx.quick else QUICK
    doc = run_overlap_eval(out, ctx.data_dir, replace(config, seed=ctx.seed))
    metrics = ["any_ngram", "any_8gram", "coverage", "longest", "lm_eval_13gram"]
    rows = []
    for group, row in doc["results"].items():
        rows.append({"form": "clean (false positives)" if group == "clean" else group,
                     "n": row["metrics"]["any_ngram"]["n"],
                     **{m: row["metrics"][m]["rate"] for m in metrics}})
    res = doc["results"]
    headline = {"verbatim recall, any_8gram": res["verbatim"]["metrics"]["any_8gram"]["rate"],
                "verbatim recall, lm-eval 13-gram": res["verbatim"]["metrics"]["lm_eval_13gram"]["rate"],
                "perturbed recall, any_8gram": res["perturbed"]["metrics"]["any_8gram"]["rate"],
                "clean flagged, longest": res["clean"]["metrics"]["longest"]["rate"],
                "clean flagged, lm-eval 13-gram": res["clean"]["metrics"]["lm_eval_13gram"]["rate"]}
    return StepResult("overlap", "Corpus overlap: benchmark items planted into real text, recall per form "
                      "and false positives per rule vs lm-eval's 13-gram rule", "ok", 0.0, headline,
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
    return StepResult(result.name, result.title, result.status, time.perf_counter() - start,
                      result.headline, result.table, result.files, result.note)


STEPS: list[tuple[str, str, Callable[[DemoContext], StepResult]]] = [
    ("membership", "Stage I + logit baselines, controlled membership", membership_step),
    ("stage2", "Stage II on labelled histories", stage2_step),
    ("tsguessing", "TS-Guessing on a deliberately contaminated model", tsguessing_step),
    ("leaderboard", "Leaderboard re-scored", leaderboard_step),
    ("overlap", "Corpus overlap, controlled", overlap_step),
]
