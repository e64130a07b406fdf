"""Corpus overlap: which benchmark items occur in a training corpus you have.

Modules: ``normalize`` (the token stream and its stable hashes), ``items`` (benchmark instances
as queries), ``metrics`` (GPT-3 any-13-gram, PaLM 8-gram coverage, Llama 2 token level, ConTAM
longest match), ``corpus`` (streamed readers), ``scan`` (the hash-table engine), ``result``
(per-item measures and flags), ``partial`` (per-shard scan results that merge).
"""

from .corpus import Shard, ShardError, iter_documents, shards_of
from .items import OverlapItem, load_overlap_items
from .metrics import (
                      DEFAULT_METRICS,
                      DEFAULT_RULE,
                      AnyNgram,
                      Coverage,
                      ItemWindows,
                      LongestMatch,
                      Measure,
                      Metric,
                      TokenLevel,
                      covered_tokens,
                      get_metric,
                      metric_names,
)
from .normalize import ngram_key, normalize, token_hash, tokens
from .partial import ScanPartial, apply, combine, combine_all, scan_shard, table_fingerprint
from .result import METHOD, ItemResult, item_results, overlap_flags
from .scan import BenchmarkTable, Location, ScanStats, build_table, scan_corpus, scan_texts

__all__ = [
    "AnyNgram",
    "BenchmarkTable",
    "Coverage",
    "DEFAULT_METRICS",
    "DEFAULT_RULE",
    "ItemResult",
    "ItemWindows",
    "Location",
    "LongestMatch",
    "METHOD",
    "Measure",
    "Metric",
    "OverlapItem",
    "ScanPartial",
    "ScanStats",
    "Shard",
    "ShardError",
    "TokenLevel",
    "apply",
    "build_table",
    "combine",
    "combine_all",
    "covered_tokens",
    "get_metric",
    "item_results",
    "iter_documents",
    "load_overlap_items",
    "metric_names",
    "ngram_key",
    "normalize",
    "overlap_flags",
    "scan_corpus",
    "scan_shard",
    "scan_texts",
    "shards_of",
    "table_fingerprint",
    "token_hash",
    "tokens",
]
