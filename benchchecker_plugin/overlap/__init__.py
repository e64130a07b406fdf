"""Corpus overlap: which benchmark items occur in a training corpus you have.

Modules: ``normalize`` (the token stream and its stable hashes), ``items`` (benchmark instances
as queries), ``metrics`` (GPT-3 any-13-gram, PaLM 8-gram coverage, Llama 2 token level, ConTAM
longest match, Deng et al.'s retrieval score), ``corpus`` (streamed readers), ``scan`` (the
hash-table engine), ``index`` (the BM25 index engine), ``index_parts`` (the index in
partitions, built and queried locally or on Ray), ``partial`` (per-shard scan results
that merge), ``result`` (per-item measures and flags), ``audit`` (items against corpora,
flags out, per benchmark).
"""

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names
from ._audit import OverlapAudit, audit_corpus
from ._corpus import (
    MAX_RECORD_BYTES,
    CorpusShards,
    Shard,
    ShardError,
    corpus_shards,
    iter_documents,
    shards_of,
)
from ._index import (
    MANIFEST,
    CorpusIndex,
    Hit,
    IndexManifest,
    build_index,
    index_results,
    normalizer_fingerprint,
    query_terms,
)
from ._index_parts import PARTS, PartedIndex, build_parted_index, local_map, open_index, partition, ray_map
from ._items import OverlapItem, bug_queries, load_overlap_items, mc_queries
from ._metrics import (
    DEFAULT_METRICS,
    DEFAULT_RULE,
    AnyNgram,
    Coverage,
    ItemWindows,
    LongestMatch,
    Measure,
    Metric,
    Retrieval,
    TokenLevel,
    covered_tokens,
    get_metric,
    metric_names,
)
from ._normalize import ngram_key, normalize, token_hash, tokens
from ._partial import ScanPartial, apply, combine, combine_all, scan_shard, table_fingerprint
from ._remote import ray_runner
from ._result import METHOD, ItemResult, item_results, overlap_flags
from ._resume import scan_shards
from ._scan import BenchmarkTable, Location, ScanStats, build_table, scan_corpus, scan_documents, scan_texts

if TYPE_CHECKING:
    from ._controlled import DEMO, FULL, QUICK, format_table, run_overlap_eval

#: The controlled evaluation's names, loaded on first use (it reads the scorer, and pandas with it;
#: a corpus scan, here or on a Ray worker, never needs them)
_LAZY = dict.fromkeys(("DEMO", "FULL", "QUICK", "format_table", "run_overlap_eval"), "._controlled")

__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "AnyNgram",
    "BenchmarkTable",
    "CorpusIndex",
    "CorpusShards",
    "Coverage",
    "DEFAULT_METRICS",
    "DEFAULT_RULE",
    "DEMO",
    "FULL",
    "Hit",
    "IndexManifest",
    "ItemResult",
    "ItemWindows",
    "Location",
    "LongestMatch",
    "MANIFEST",
    "MAX_RECORD_BYTES",
    "METHOD",
    "Measure",
    "Metric",
    "OverlapAudit",
    "OverlapItem",
    "PARTS",
    "PartedIndex",
    "QUICK",
    "Retrieval",
    "ScanPartial",
    "ScanStats",
    "Shard",
    "ShardError",
    "TokenLevel",
    "apply",
    "audit_corpus",
    "bug_queries",
    "build_index",
    "build_parted_index",
    "build_table",
    "combine",
    "combine_all",
    "corpus_shards",
    "covered_tokens",
    "format_table",
    "get_metric",
    "index_results",
    "item_results",
    "iter_documents",
    "load_overlap_items",
    "local_map",
    "mc_queries",
    "metric_names",
    "ngram_key",
    "normalize",
    "normalizer_fingerprint",
    "open_index",
    "overlap_flags",
    "partition",
    "query_terms",
    "ray_map",
    "ray_runner",
    "run_overlap_eval",
    "scan_corpus",
    "scan_documents",
    "scan_shard",
    "scan_shards",
    "scan_texts",
    "shards_of",
    "table_fingerprint",
    "token_hash",
    "tokens",
]
