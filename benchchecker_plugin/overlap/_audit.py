"""What one overlap run found: its flags, the rule, and per benchmark what was read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..flags import ContaminationFlag
from ._rules import RULE_TEXT


@dataclass(frozen=True)
class OverlapAudit:
    """What one run found (:func:`._run.run_overlap`): its flags, the rule and engine, the corpus
    read (shards, documents, characters, seconds; ``resumed_*``: taken from ``--state``), the
    shards that failed with why, and per benchmark its items and what decided them."""

    flags: tuple[ContaminationFlag, ...]
    rule: str
    corpora: tuple[str, ...]
    shards: int
    documents: int
    bytes: int
    seconds: float
    #: shard name -> why it failed (one line)
    failed: Mapping[str, str] = field(default_factory=dict)
    #: per benchmark: items, undecidable items, masked template n-grams
    benchmarks: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    engine: str = "scan"
    resumed_shards: int = 0
    resumed_bytes: int = 0
    #: the whole run (the benchmark table built, the corpus read, the flags made); ``seconds`` is
    #: the reading (and, with the index engine, the retrieval and verification) alone
    total_seconds: float = 0.0

    def counts(self, benchmark: str | None = None) -> dict[str, int]:
        """``{"contaminated", "clean", "undecided"}`` counts (of one benchmark, or all)."""
        out = {"contaminated": 0, "clean": 0, "undecided": 0}
        for f in self.flags:
            if benchmark is None or f.benchmark == benchmark:
                out[f.verdict.value] += 1
        return out

    def kinds(self, benchmark: str | None = None) -> dict[str, int]:
        """Contaminated items per kind of evidence (question, question+answer, ...)."""
        out: dict[str, int] = {}
        for f in self.flags:
            if (benchmark is None or f.benchmark == benchmark) and f.verdict.value == "contaminated":
                kind = str(f.evidence.get("kind") or "n-grams")
                out[kind] = out.get(kind, 0) + 1
        return out

    @property
    def scanned_bytes(self) -> int:
        """Characters read by this run (without the shards taken from ``--state``)."""
        return self.bytes - self.resumed_bytes

    def to_dict(self) -> dict[str, Any]:
        return {"method": "benchchecker.overlap", "rule": self.rule,
                "rule_text": RULE_TEXT.get(self.rule, self.rule), "engine": self.engine,
                "corpora": list(self.corpora), "shards": self.shards,
                "documents": self.documents, "bytes": self.bytes,
                "seconds": round(self.seconds, 3), "total_seconds": round(self.total_seconds, 3),
                "failed_shards": dict(self.failed),
                "resumed": {"shards": self.resumed_shards, "bytes": self.resumed_bytes},
                "benchmarks": {b: {**v, **self.counts(b), "kinds": self.kinds(b)}
                               for b, v in self.benchmarks.items()}}
