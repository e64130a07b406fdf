"""One overlap audit: benchmark items against corpora, flags out (what ``check --corpus`` and the
harness wrappers' ``--contamination-detect overlap`` run).

The items are grouped by benchmark and each benchmark gets its own table and scan (the scan
engine, :mod:`._scan`), so template masking counts items of that benchmark alone and every flag
equals what ``benchchecker overlap`` writes for the same benchmark, corpus and rule; the corpus
is read once per benchmark. A shard that fails is recorded (``failed``, with its one-line reason)
and the others are scanned; items not found are then undecided, never clean.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from ..flags import ANY_MODEL, ContaminationFlag
from ._items import OverlapItem
from ._metrics import DEFAULT_METRICS, DEFAULT_RULE

#: what each rule's ``contaminated`` means (the reports quote it beside the counts)
RULE_TEXT = {
    "coverage": "PaLM: contaminated when >= 70% of the item's 8-grams are in the corpus",
    "any_ngram": "GPT-3: contaminated when any 13-gram of the item is in 1-10 corpus documents",
    "token_level": "Llama 2: contaminated (dirty) when >= 80% of the item's tokens are in matched "
                   "spans, clean below 20%, else undecided",
    "longest": "ConTAM: contaminated when the longest matched run covers >= 50% of the item",
}


@dataclass(frozen=True)
class OverlapAudit:
    """What one audit found: its flags, the rule, and per benchmark what was read."""

    flags: tuple[ContaminationFlag, ...]
    rule: str
    corpora: tuple[str, ...]
    shards: int
    documents: int
    bytes: int
    seconds: float
    #: shard name -> why it failed (one line)
    failed: Mapping[str, str] = field(default_factory=dict)
    #: per benchmark: items, items shorter than 13 tokens, masked template n-grams
    benchmarks: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    def counts(self, benchmark: str | None = None) -> dict[str, int]:
        """``{"contaminated", "clean", "undecided"}`` counts (of one benchmark, or all)."""
        out = {"contaminated": 0, "clean": 0, "undecided": 0}
        for f in self.flags:
            if benchmark is None or f.benchmark == benchmark:
                out[f.verdict.value] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"method": "benchchecker.overlap", "rule": self.rule,
                "rule_text": RULE_TEXT.get(self.rule, self.rule), "engine": "scan",
                "corpora": list(self.corpora), "shards": self.shards,
                "documents": self.documents, "bytes": self.bytes,
                "seconds": round(self.seconds, 3), "failed_shards": dict(self.failed),
                "benchmarks": {b: {**v, **self.counts(b)} for b, v in self.benchmarks.items()}}


def audit_corpus(items: Sequence[OverlapItem], corpora: Sequence[str], *, rule: str = DEFAULT_RULE,
                 model: str = ANY_MODEL, text_field: str = "text", id_field: str = "id",
                 template_items: int | None = None,
                 on_bytes: Callable[[int], None] | None = None) -> OverlapAudit:
    """Scan ``corpora`` (``--corpus`` arguments) for ``items``, one scan per benchmark (see the
    module). An empty item list or corpus list is one :class:`InputError` line."""
    from ._corpus import shards_of
    from ._result import item_results, overlap_flags
    from ._scan import TEMPLATE_ITEMS, build_table, scan_corpus

    if not corpora:
        raise InputError("no corpus given (--corpus PATH)")
    if not items:
        raise InputError("the benchmark has no item to look for")
    shards = [s for c in corpora for s in shards_of(c)]
    groups: dict[str, list[OverlapItem]] = {}
    for it in items:
        groups.setdefault(it.benchmark, []).append(it)
    flags: list[ContaminationFlag] = []
    failed: dict[str, str] = {}
    per: dict[str, dict[str, int]] = {}
    documents = size = 0
    seconds = 0.0
    for benchmark, mine in groups.items():
        table = build_table(mine, DEFAULT_METRICS,
                            template_items=TEMPLATE_ITEMS if template_items is None else template_items)
        stats = scan_corpus(table, shards, text_field=text_field, id_field=id_field,
                            on_bytes=on_bytes)
        flags += overlap_flags(item_results(table, DEFAULT_METRICS), stats, rule=rule, model=model)
        failed.update(stats.failed)
        documents, size, seconds = stats.documents, stats.bytes, seconds + stats.seconds
        per[benchmark] = {"items": len(mine), "short": int((table.n_tokens < 13).sum()),
                          "masked_ngrams": table.masked}
    return OverlapAudit(tuple(flags), rule, tuple(corpora), len(shards), documents, size, seconds,
                        failed, per)
