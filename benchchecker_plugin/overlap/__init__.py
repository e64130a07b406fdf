"""Corpus overlap: which benchmark items occur in a training corpus you have.

Start with :func:`run_overlap` (items of any number of benchmarks, an :class:`OverlapCorpus` and an
:class:`OverlapRun`: rule, engine, state, executor), as ``benchchecker overlap``, ``check --corpus``
and the harness wrappers do. Modules: ``normalize`` (the storage-aware token stream, its raw
offsets and stable hashes; ``fold``, ``tokenize``: its table and one-pass kernel), ``items``
(benchmark instances as queries and parts), ``table`` (the benchmark side), ``match`` / ``verify``
(exact runs from seeds, questions aligned, answers and options near them), ``found`` / ``scan``
(the corpus streamed), ``partial`` (per-shard results that merge), ``metrics`` (``parts`` and the
published rules: GPT-3, PaLM, Llama 2, ConTAM, Deng et al.'s retrieval), ``result`` (flags),
``corpus`` (streamed readers), ``index`` / ``index_parts`` / ``index_run`` (the BM25 engine),
``resume`` (``--state``), ``remote`` (Ray), ``run`` (the driver), ``rules`` (each rule's wording).

Importing the package is light: the numba kernels load on first use of a name that needs them.
"""

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names
from ._corpus import (
    MAX_RECORD_BYTES,
    CorpusShards,
    Shard,
    ShardError,
    corpus_shards,
    iter_documents,
    shards_of,
)
from ._items import BUG_BENCHMARKS, OverlapItem, bug_queries, load_overlap_items, mc_item, mc_queries
from ._rules import DEFAULT_RULE, RULE_TEXT, RULES, rules_help

if TYPE_CHECKING:
    from ._audit import OverlapAudit
    from ._controlled import DEMO, FULL, QUICK, format_table, run_overlap_eval
    from ._metrics import (
        DEFAULT_METRICS,
        AnyNgram,
        Coverage,
        ItemWindows,
        LongestMatch,
        Measure,
        Metric,
        Parts,
        Retrieval,
        TokenLevel,
        get_metric,
        metric_names,
    )
    from ._normalize import ngram_key, normalize, token_hash, token_spans, tokens
    from ._partial import Location, ScanPartial, combine
    from ._result import ItemResult, item_results, overlap_flags
    from ._run import OverlapCorpus, OverlapRun, overlap_settings, run_overlap
    from ._scan import ScanStats, scan_corpus, scan_texts
    from ._table import BenchmarkTable, build_table

_LAZY = {
    **dict.fromkeys(("DEMO", "FULL", "QUICK", "format_table", "run_overlap_eval"), "._controlled"),
    **dict.fromkeys(("DEFAULT_METRICS", "AnyNgram", "Coverage", "ItemWindows", "LongestMatch", "Measure",
                     "Metric", "Parts", "Retrieval", "TokenLevel", "get_metric", "metric_names"), "._metrics"),
    **dict.fromkeys(("ngram_key", "normalize", "token_hash", "token_spans", "tokens"), "._normalize"),
    **dict.fromkeys(("Location", "ScanPartial", "combine"), "._partial"),
    **dict.fromkeys(("ItemResult", "item_results", "overlap_flags"), "._result"),
    **dict.fromkeys(("OverlapCorpus", "OverlapRun", "overlap_settings", "run_overlap"), "._run"),
    **dict.fromkeys(("ScanStats", "scan_corpus", "scan_texts"), "._scan"),
    **dict.fromkeys(("BenchmarkTable", "build_table"), "._table"),
    "OverlapAudit": "._audit",
}

__getattr__ = lazy_names(__name__, _LAZY)

__all__ = [
    "AnyNgram",
    "BUG_BENCHMARKS",
    "BenchmarkTable",
    "Coverage",
    "CorpusShards",
    "DEFAULT_METRICS",
    "DEFAULT_RULE",
    "DEMO",
    "FULL",
    "ItemResult",
    "ItemWindows",
    "Location",
    "LongestMatch",
    "MAX_RECORD_BYTES",
    "Measure",
    "Metric",
    "OverlapAudit",
    "OverlapCorpus",
    "OverlapItem",
    "OverlapRun",
    "Parts",
    "QUICK",
    "RULES",
    "RULE_TEXT",
    "Retrieval",
    "ScanPartial",
    "ScanStats",
    "Shard",
    "ShardError",
    "TokenLevel",
    "bug_queries",
    "build_table",
    "combine",
    "corpus_shards",
    "format_table",
    "get_metric",
    "item_results",
    "iter_documents",
    "load_overlap_items",
    "mc_item",
    "mc_queries",
    "metric_names",
    "ngram_key",
    "normalize",
    "overlap_flags",
    "overlap_settings",
    "rules_help",
    "run_overlap",
    "run_overlap_eval",
    "scan_corpus",
    "scan_texts",
    "shards_of",
    "token_hash",
    "token_spans",
    "tokens",
]
