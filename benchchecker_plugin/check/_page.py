"""The HTML report of a pre-release check (one self-contained page)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from ..flags import ContaminationFlag, Verdict
from ..report import HtmlPage
from ._pipeline import CheckResult


def verdict_summary(result: CheckResult) -> pd.DataFrame:
    """Per benchmark and method: instances, contaminated, clean, undecided, failed."""
    rows = []
    groups: dict[tuple[str, str], list] = {}
    for flags in result.stage_flags.values():
        for f in flags:
            groups.setdefault((f.benchmark, f.method), []).append(f)
    for f in result.merged:
        groups.setdefault((f.benchmark, "merged"), []).append(f)
    for (benchmark, method), flags in sorted(groups.items()):
        c = Counter(f.verdict for f in flags)
        rows.append({"benchmark": benchmark, "method": method, "instances": len(flags),
                     "contaminated": c[Verdict.CONTAMINATED], "clean": c[Verdict.CLEAN],
                     "undecided": c[Verdict.UNDECIDED],
                     "failed": sum(1 for f in flags if "error" in f.evidence)})
    return pd.DataFrame(rows, columns=["benchmark", "method", "instances", "contaminated", "clean",
                                       "undecided", "failed"])


def _score_histogram_svg(result: CheckResult) -> str | None:
    """Histogram of the per-item scores, one panel per method (a distribution, not a count bar:
    how close the model came, also on items it did not guess)."""
    from ..report import figure_to_svg, pyplot

    scores: dict[str, list[float]] = {}
    for flags in result.stage_flags.values():
        for f in flags:
            if "error" not in f.evidence and f.contaminated is not None:
                scores.setdefault(SCORE_COLUMNS.get(f.method, f.method), []).append(float(f.score))
    if not scores:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(1, len(scores), figsize=(3.2 * len(scores) + 0.5, 2.6), squeeze=False)
    for ax, (label, values) in zip(axes[0], sorted(scores.items())):
        ax.hist(values, bins=20, color="#34495e")
        ax.set_xlabel(label, fontsize=8)
        ax.set_ylabel("items", fontsize=8)
        ax.set_title(f"n={len(values)}", fontsize=8)
    fig.tight_layout()
    return figure_to_svg(fig)


def id_order(instance_id: str) -> list[str | int]:
    """Sort key of an instance id with its numbers as numbers: TruthfulQA ``2`` before ``10``,
    ``astronomy/9`` before ``astronomy/10`` (not sorted as strings)."""
    return [int(p) if k % 2 else p for k, p in enumerate(re.split(r"(\d+)", instance_id))]


def _fmt_p(p: float) -> str:
    return "" if p is None or (isinstance(p, float) and math.isnan(p)) else f"{p:.3g}"


def write_check_report(result: CheckResult, path: Path, *, max_rows: int = 2000) -> Path:
    """Write ``index.html``: summary per benchmark, Stage I evidence per repository, TS-Guessing
    means, and the per-instance table (first ``max_rows`` rows, contaminated first)."""
    page = HtmlPage(f"Pre-release contamination check: {result.model}")
    page.paragraph(f"Training cutoff {result.config.cutoff}; benchmarks "
                   f"{', '.join(result.config.benchmarks)}. Undecided instances are neither clean "
                   "nor contaminated and are counted separately.", note=True)
    for note in result.notes:
        page.paragraph(note, note=True)
    summary = verdict_summary(result)
    page.heading("Summary per benchmark")
    page.table(summary, table_id="summary")
    svg = _score_histogram_svg(result)
    if svg is not None:
        page.figure(svg, caption="Per-item scores per method (higher = closer to the hidden text)")
    if result.repos:
        page.heading("Stage I: repository presence")
        page.table(pd.DataFrame([{"benchmark": r.benchmark, "repository": r.repo, "hits": r.hits,
                                  "queries": r.queries, "failed queries": r.failed_queries,
                                  "p0": r.p0, "p-value": _fmt_p(r.p_value),
                                  "verdict": Verdict.from_bool(r.contaminated).value}
                                 for r in result.repos]), table_id="repos")
    if result.ts_summaries:
        page.heading("TS-Guessing")
        page.table(pd.DataFrame([{"benchmark/mode": k, **v} for k, v in result.ts_summaries.items()]),
                   table_id="tsguessing", formats={"exact_match": "{:.3f}".format,
                                                   "rouge_l": "{:.3f}".format})
    if result.overlap is not None:   # only with --corpus: without it the page is unchanged
        _overlap_section(page, result)
    order = {Verdict.CONTAMINATED: 0, Verdict.UNDECIDED: 1, Verdict.CLEAN: 2}
    rows = sorted(result.merged, key=lambda f: (order[f.verdict], f.benchmark, id_order(f.instance_id)))
    page.heading("Per instance (merged verdicts)")
    page.paragraph("One score column per method, each in its own unit (higher = more likely "
                   "seen); the methods' scores are not comparable with each other.", note=True)
    if len(rows) > max_rows:
        page.paragraph(f"Showing {max_rows} of {len(rows)} instances; all are in flags.jsonl.", note=True)
    page.table(_instance_table(rows[:max_rows], result.questions), table_id="instances")
    return page.write(path)


def _overlap_section(page: HtmlPage, result: CheckResult) -> None:
    audit = result.overlap
    assert audit is not None
    page.heading("Corpus overlap (benchchecker.overlap)")
    page.paragraph(f"Rule {audit.rule}: {audit.to_dict()['rule_text']}. Scan engine over "
                   f"{', '.join(audit.corpora)}: {audit.shards} shard(s), {audit.documents} "
                   f"documents, {audit.bytes / 1e6:.1f} MB"
                   + (f"; {len(audit.failed)} shard(s) failed (items not found are undecided, "
                      "not clean)" if audit.failed else "") + ".", note=True)
    page.table(pd.DataFrame([{"benchmark": b, "method": "benchchecker.overlap", "rule": audit.rule,
                              "items": v["items"], **audit.counts(b), "too short to decide":
                              v["undecidable"], "template n-grams masked": v["masked_ngrams"]}
                             for b, v in audit.benchmarks.items()]), table_id="overlap")


#: The score of each method, named with its unit (the merged record's max of them mixes units).
SCORE_COLUMNS = {"benchchecker.stage1": "Stage I -log10 p", "benchchecker.stage2":
                 "Stage II line similarity", "ts_guessing.multichoice": "TS-Guessing Rouge-L",
                 "ts_guessing.question": "TS-Guessing exact match",
                 "benchchecker.overlap": "Corpus overlap (rule's share)"}


#: Characters of a question the per-item table shows (the flags hold the ids).
QUESTION_CHARS = 160


def _instance_table(rows: list[ContaminationFlag],
                    questions: Mapping[tuple[str, str], str] | None = None) -> pd.DataFrame:
    methods = sorted({m for f in rows for m in f.evidence.get("methods", {})})
    questions = questions or {}
    columns = ["benchmark", "instance", "question", "verdict", "note"] + [
        SCORE_COLUMNS.get(m, f"{m} score") for m in methods]
    records = []
    for f in rows:
        q = " ".join(questions.get((f.benchmark, f.instance_id), "").split())
        record: dict[str, object] = {
            "benchmark": f.benchmark, "instance": f.instance_id,
            "question": q if len(q) <= QUESTION_CHARS else q[: QUESTION_CHARS - 1] + "…",
            "verdict": f.verdict.value, "note": str(f.evidence.get("note", ""))}
        for m, vote in f.evidence.get("methods", {}).items():
            score = vote.get("score") if isinstance(vote, Mapping) else None
            record[SCORE_COLUMNS.get(m, f"{m} score")] = (
                round(float(score), 4) if isinstance(score, (int, float)) else None)
        records.append(record)
    return pd.DataFrame(records, columns=columns)
