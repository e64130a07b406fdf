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
``resume`` (the shards on an executor, ``--state``), ``run`` (the driver), ``rules`` (each rule's wording),
``planting`` / ``background`` / ``janitor`` / ``controlled`` (``benchchecker eval overlap``).

The face is what a user calls: the driver and its records, the items, the corpus listing, the
rules and metrics, the token stream, the controlled evaluation, and (for a table built once and
scanned many times) ``build_table`` with ``scan_corpus`` / ``scan_texts``. Importing it is light: the numba
kernels load on first use of a name that needs them.
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
from ._items import OverlapItem, bug_queries, load_overlap_items, mc_queries, mc_query
from ._rules import DEFAULT_RULE, RULE_TEXT, RULES, rules_help

if TYPE_CHECKING:
    from ._audit import OverlapAudit
    from ._controlled import EVAL_DEMO, EVAL_FULL, EVAL_QUICK, format_overlap_eval, run_overlap_eval
    from ._metrics import DEFAULT_METRICS, Parts, get_metric, metric_names
    from ._normalize import token_hash, token_spans, tokens
    from ._partial import MatchLocation
    from ._run import OverlapCorpus, OverlapRun, overlap_settings, run_overlap
    from ._scan import scan_corpus, scan_texts
    from ._table import build_table

_LAZY = {
    **dict.fromkeys(("EVAL_DEMO", "EVAL_FULL", "EVAL_QUICK", "format_overlap_eval", "run_overlap_eval"),
                    "._controlled"),
    **dict.fromkeys(("DEFAULT_METRICS", "Parts", "get_metric", "metric_names"), "._metrics"),
    **dict.fromkeys(("token_hash", "token_spans", "tokens"), "._normalize"),
    "MatchLocation": "._partial",
    **dict.fromkeys(("OverlapCorpus", "OverlapRun", "overlap_settings", "run_overlap"), "._run"),
    "OverlapAudit": "._audit",
    **dict.fromkeys(("scan_corpus", "scan_texts"), "._scan"),
    "build_table": "._table",
}

__getattr__ = lazy_names(__name__, _LAZY)

__all__ = [
    "CorpusShards",
    "DEFAULT_METRICS",
    "DEFAULT_RULE",
    "EVAL_DEMO",
    "EVAL_FULL",
    "EVAL_QUICK",
    "MAX_RECORD_BYTES",
    "MatchLocation",
    "OverlapAudit",
    "OverlapCorpus",
    "OverlapItem",
    "OverlapRun",
    "Parts",
    "RULES",
    "RULE_TEXT",
    "Shard",
    "ShardError",
    "bug_queries",
    "build_table",
    "corpus_shards",
    "format_overlap_eval",
    "get_metric",
    "iter_documents",
    "load_overlap_items",
    "mc_queries",
    "mc_query",
    "metric_names",
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
