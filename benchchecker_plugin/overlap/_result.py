"""Per-item overlap results and their flags (one per instance, method ``benchchecker.overlap``).

``contaminated`` follows the chosen rule (a metric name; default :data:`._rules.DEFAULT_RULE`),
``score`` is that rule's measure, and ``evidence`` holds every metric's value, the kind of
evidence (question, question+answer, question+options), the masked template n-grams and the
matches: the question and gold answer as found, then the item's longest exact matches (at most
:data:`~._match.QUOTES` per item; ``quotes_cut`` says when it had more). Each match quotes the raw
document: corpus file, document id, code-point offsets and ``text == raw[start:end]``. An item
with no match while a shard failed is undecided, never clean.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..flags import ANY_MODEL, ContaminationFlag
from ._metrics import DEFAULT_RULE, ItemWindows, Measure, Metric, Parts, PartsEvidence, window_metrics
from ._partial import ScanPartial
from ._table import BenchmarkTable

METHOD = "benchchecker.overlap"


@dataclass(frozen=True)
class OverlapResult:
    benchmark: str
    instance_id: str
    n_tokens: int
    measures: dict[str, Measure]
    masked: dict[int, int]
    matches: tuple[dict[str, Any], ...]
    quotes_cut: bool = False


def dense_counts(table: BenchmarkTable, partial: ScanPartial) -> dict[int, np.ndarray]:
    """Per window size: documents found per stream position (0 where none)."""
    out = {}
    for n, (pos, cnt) in partial.counts.items():
        dense = np.zeros(table.stok.size, np.int64)
        dense[pos] = cnt
        out[n] = dense
    return out


def item_windows(table: BenchmarkTable, dense: dict[int, np.ndarray], n: int, index: int) -> ItemWindows:
    """Item ``index``'s size-``n`` windows with their document counts (``-1``: masked)."""
    starts, masked = table.windows(n, index)
    lo = int(table.soff[index])
    counts = np.where(masked, -1, dense[n][lo + starts]) if starts.size else np.zeros(0, np.int64)
    return ItemWindows(int(table.soff[index + 1]) - lo, n, starts, counts)


def parts_evidence(table: BenchmarkTable, partial: ScanPartial, index: int) -> PartsEvidence:
    item = table.items[index]
    has_answer = int(table.gold_part[index]) >= 0
    return PartsEvidence(
        int(partial.kind[index]), float(partial.sim[index]), int(partial.matched[index]),
        int(partial.options[index]), int(table.opt_hi[index] - table.opt_lo[index]),
        int(partial.docs[index]),
        int(table.info_q[index]) + (int(table.info_g[index]) if has_answer else 0),
        int(table.info_q[index]), bool(table.q_shared[index]), bool(table.seeded[index]),
        item.parts in ("question", "text", "patch", "problem_statement+patch"))


def item_results(table: BenchmarkTable, partial: ScanPartial, metrics: Sequence[Metric]) -> list[OverlapResult]:
    """Every metric on every item of a scanned table."""
    dense = dense_counts(table, partial)
    windowed = window_metrics(metrics)
    parts = [m for m in metrics if isinstance(m, Parts)]
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        for index, item in enumerate(table.items):
            measures: dict[str, Measure] = {}
            masked = {}
            for n in sorted({m.n for m in windowed}):
                w = item_windows(table, dense, n, index)
                masked[n] = w.masked
                for m in windowed:
                    if m.n == n:
                        measures[m.name] = m.measure(w)
            for p in parts:
                measures[p.name] = p.measure_parts(parts_evidence(table, partial, index))
            matches = [loc.to_dict() for loc in partial.evidence.get(index, ())]
            for _, loc in partial.quotes.get(index, ()):
                d = loc.to_dict()
                if not any(m["doc"] == d["doc"] and m["corpus"] == d["corpus"] and
                           m["start"] == d["start"] and m["end"] == d["end"] for m in matches):
                    matches.append(d)
            cut = int(partial.quoted[index]) > len(partial.quotes.get(index, ()))
            out.append(OverlapResult(item.benchmark, item.instance_id, int(table.n_tokens[index]),
                                  measures, masked, tuple(matches), cut))
    nan = sum(1 for w in caught if issubclass(w.category, RuntimeWarning))
    if nan:
        warnings.warn(f"{nan} item score(s) are nan (too short to be distinctive, every n-gram a "
                      "benchmark template, or no token); those items are undecided",
                      RuntimeWarning, stacklevel=2)
    return out


def overlap_flags(results: Sequence[OverlapResult], failed: Sequence[str], shards: int, documents: int,
                  *, rule: str = DEFAULT_RULE, model: str = ANY_MODEL) -> list[ContaminationFlag]:
    """One flag per item (see the module); ``failed``: the shards that could not be read."""
    flags = []
    for r in results:
        if rule not in r.measures:
            raise InputError(f"--rule {rule}: not among the metrics run ({', '.join(r.measures)})")
        m = r.measures[rule]
        verdict = m.contaminated
        if verdict is False and failed:
            verdict = None   # a failed shard could hold it
        kind = r.measures["parts"].values.get("kind") if "parts" in r.measures else None
        evidence = {
            "rule": rule,
            "kind": kind,
            "tokens": r.n_tokens,
            "metrics": {name: {"score": None if math.isnan(x.score) else x.score,
                               "contaminated": x.contaminated, **x.values}
                        for name, x in r.measures.items()},
            "masked_ngrams": {str(n): k for n, k in r.masked.items()},
            "matches": list(r.matches),
            "quotes_cut": r.quotes_cut,
            "corpus": {"shards": shards, "documents": documents, "failed_shards": sorted(failed)},
        }
        flags.append(ContaminationFlag(r.benchmark, r.instance_id, model, METHOD, verdict,
                                       0.0 if math.isnan(m.score) else m.score, evidence=evidence))
    return flags
