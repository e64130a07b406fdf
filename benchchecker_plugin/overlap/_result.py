"""Per-item overlap results and their flags (one per instance, method ``benchchecker.overlap``).

``contaminated`` follows the chosen rule (a metric name; default :data:`._metrics.DEFAULT_RULE`),
``score`` is that rule's measure, and ``evidence`` holds every metric's value, the masked template
n-grams and up to :data:`MAX_MATCHES` matches (corpus file, document id, character offsets, text
of at most 200 characters). An item with no match while a shard failed is undecided, never clean.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..flags import ANY_MODEL, ContaminationFlag
from ._metrics import DEFAULT_RULE, Measure, Metric
from ._scan import BenchmarkTable, ScanStats

METHOD = "benchchecker.overlap"
MAX_MATCHES = 5


@dataclass(frozen=True)
class ItemResult:
    benchmark: str
    instance_id: str
    n_tokens: int
    measures: dict[str, Measure]
    masked: dict[int, int]
    matches: tuple[dict[str, Any], ...]


def item_results(table: BenchmarkTable, metrics: Sequence[Metric]) -> list[ItemResult]:
    """Every metric on every item of a scanned ``table``."""
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        for index, item in enumerate(table.items):
            measures = {}
            masked = {}
            for n in table.sizes:
                w = table.item_windows(n, index)
                masked[n] = w.masked
                for m in metrics:
                    if m.n == n:
                        measures[m.name] = m.measure(w)
            matches: list[dict[str, Any]] = []
            for n in sorted(table.sizes, reverse=True):
                for e in table.item_entries(n, index):
                    loc = table.locations.get(int(e)) if e >= 0 else None
                    if loc is not None and len(matches) < MAX_MATCHES and loc.to_dict() not in matches:
                        matches.append(loc.to_dict())
            out.append(ItemResult(item.benchmark, item.instance_id, int(table.n_tokens[index]),
                                  measures, masked, tuple(matches)))
    nan = sum(1 for w in caught if issubclass(w.category, RuntimeWarning))
    if nan:
        warnings.warn(f"{nan} item score(s) are nan (every n-gram a benchmark template, or no "
                      "token); those items are undecided", RuntimeWarning, stacklevel=2)
    return out


def overlap_flags(results: Sequence[ItemResult], stats: ScanStats, *, rule: str = DEFAULT_RULE,
                  model: str = ANY_MODEL) -> list[ContaminationFlag]:
    """One flag per item (see the module)."""
    flags = []
    for r in results:
        if rule not in r.measures:
            raise InputError(f"--rule {rule}: not among the metrics run ({', '.join(r.measures)})")
        m = r.measures[rule]
        verdict = m.contaminated
        if verdict is False and stats.failed:
            verdict = None   # a failed shard could hold it
        evidence = {
            "rule": rule,
            "tokens": r.n_tokens,
            "metrics": {name: {"score": None if math.isnan(x.score) else x.score,
                               "contaminated": x.contaminated, **x.values}
                        for name, x in r.measures.items()},
            "masked_ngrams": {str(n): k for n, k in r.masked.items()},
            "matches": list(r.matches),
            "corpus": {"shards": stats.shards, "documents": stats.documents,
                       "failed_shards": sorted(stats.failed)},
        }
        flags.append(ContaminationFlag(r.benchmark, r.instance_id, model, METHOD, verdict,
                                       0.0 if math.isnan(m.score) else m.score, evidence=evidence))
    return flags
