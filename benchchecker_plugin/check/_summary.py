"""``summary.md`` and ``summary.json`` of a pre-release check: the rates a model card can quote.

Per benchmark and method: items sampled, probed, answered, dropped by the filters (of the sampled
items only), guessed, and the guessed rate with its exact 95% interval and what it rules out
("0 of 200 guessed: at most 1.5% at 95%"). Merged verdicts per benchmark count undecided items
on their own; with a corpus, the overlap audit (rule, shards, per-benchmark counts) follows; the
notes (Stage I's power among them) close it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from ..atomic import write_text_atomic
from ..flags import Verdict
from ..report import markdown_text
from ._pipeline import OVERLAP_METHOD, CheckResult
from ._rates import exact_rate


def check_summary(result: CheckResult) -> dict[str, Any]:
    """The summary as plain data (what ``summary.json`` holds)."""
    methods = []
    for flags in result.stage_flags.values():
        groups: dict[tuple[str, str], list] = {}
        for f in flags:
            groups.setdefault((f.benchmark, f.method), []).append(f)
        for (benchmark, method), group in sorted(groups.items()):
            answered = [f for f in group if "error" not in f.evidence and f.contaminated is not None]
            k = sum(1 for f in answered if f.contaminated)
            summary = next((v for key, v in result.ts_summaries.items()
                            if key.split("/")[0] == benchmark and method.endswith(key.split("/")[1])), {})
            rate = exact_rate(k, len(answered)) if answered else None
            methods.append({
                "benchmark": benchmark, "method": method,
                "sampled": result.sampled.get(benchmark, len(group)), "probed": len(group),
                "answered": len(answered), "failed": sum(1 for f in group if "error" in f.evidence),
                "dropped": summary.get("dropped", 0), "flagged": k,
                "rate": rate.to_json() if rate else None,
                "statement": rate.sentence("flagged") if rate else f"too few (n={len(answered)})",
                **({"rule": result.overlap.rule}
                   if result.overlap is not None and method == OVERLAP_METHOD else {})})
    merged = []
    for benchmark in sorted({f.benchmark for f in result.merged}):
        c = Counter(f.verdict for f in result.merged if f.benchmark == benchmark)
        merged.append({"benchmark": benchmark, "items": sum(c.values()),
                       "contaminated": c[Verdict.CONTAMINATED], "clean": c[Verdict.CLEAN],
                       "undecided": c[Verdict.UNDECIDED]})
    data: dict[str, Any] = {"model": result.model, "cutoff": result.config.cutoff,
            "benchmarks": list(result.config.benchmarks), "methods": methods, "merged": merged,
            "stage1": [{"benchmark": r.benchmark, "repository": r.repo, "hits": r.hits,
                        "queries": r.queries, "statement": exact_rate(r.hits, r.queries).sentence("hits")
                        if r.queries else "too few (n=0)"} for r in result.repos],
            "notes": list(result.notes)}
    if result.overlap is not None:   # only with --corpus: without it the summary is unchanged
        data["overlap"] = result.overlap.to_dict()
    return data


def _md_table(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)] + [
        "| " + " | ".join(markdown_text(str(r.get(c, ""))) for c in columns) + " |" for r in rows]


def _overlap_lines(audit: dict[str, Any]) -> list[str]:
    rows = [{"benchmark": b, **v} for b, v in audit["benchmarks"].items()]
    failed = audit["failed_shards"]
    return ["## Corpus overlap (benchchecker.overlap)", "",
            f"Rule {markdown_text(audit['rule'])} ({markdown_text(audit['rule_text'])}); "
            f"{markdown_text(audit['engine'])} engine over "
            f"{audit['shards']} shard(s), {audit['documents']} documents, "
            f"{audit['bytes'] / 1e6:.1f} MB" + (f"; {len(failed)} shard(s) failed: items not found "
                                                "are undecided, not clean" if failed else "") + ".",
            ""] + _md_table(rows, ["benchmark", "items", "contaminated", "clean", "undecided",
                                   "undecidable", "masked_ngrams"]) + [""]


def write_check_summary(result: CheckResult, out_dir: Path) -> dict[str, Path]:
    """Write ``summary.json`` and ``summary.md`` into ``out_dir``; returns both paths."""
    data = check_summary(result)
    out_dir.mkdir(parents=True, exist_ok=True)
    js = out_dir / "summary.json"
    write_text_atomic(js, json.dumps(data, indent=2, allow_nan=False) + "\n")
    esc = markdown_text   # every value below is escaped: a model name can hold markup
    lines = [f"# Contamination check: {esc(data['model'])}", "",
             f"Training cutoff {esc(data['cutoff'])}; benchmarks {esc(', '.join(data['benchmarks']))}. "
             "Rates are exact (Clopper–Pearson) at 95%; undecided items are counted on their own.", ""]
    if data["methods"]:
        lines += ["## Per method", ""] + _md_table(
            data["methods"], ["benchmark", "method", "sampled", "probed", "answered", "dropped",
                              "failed", "statement"]) + [""]
    if data["merged"]:
        lines += ["## Merged verdicts", ""] + _md_table(
            data["merged"], ["benchmark", "items", "contaminated", "clean", "undecided"]) + [""]
    if data["stage1"]:
        lines += ["## Stage I (repository presence)", ""] + _md_table(
            data["stage1"], ["benchmark", "repository", "statement"]) + [""]
    if "overlap" in data:
        lines += _overlap_lines(data["overlap"])
    if data["notes"]:
        lines += ["## Notes", ""] + [f"- {esc(n)}" for n in data["notes"]] + [""]
    md = out_dir / "summary.md"
    write_text_atomic(md, "\n".join(lines))
    return {"json": js, "markdown": md}
