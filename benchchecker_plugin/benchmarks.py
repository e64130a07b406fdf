"""Benchmark names: any name is accepted; known benchmarks bring their tier scheme and hub dataset.

A flag's ``benchmark`` field is a lower-case name (``[a-z0-9][a-z0-9._-]*``). The names below are
known: their instances are recognised from a dataset name or file name, and their difficulty
tiers are read with their scheme (``multi-swe-bench`` maps its labels to easy / medium / hard;
``swe-bench-verified`` checks its four labels, so a typo is an error, not a fifth tier; every other
benchmark keeps the labels as written). Any other name works everywhere a benchmark
is named (flags, ``rescore --benchmark``, ``--benchmark`` of the instance loaders) with the
labels-as-written scheme.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import InputError

__all__ = ["KNOWN", "Benchmark", "benchmark_of_source", "check_name", "tier_scheme"]


@dataclass(frozen=True)
class Benchmark:
    """A known benchmark: its flags name, hub dataset and the words that name it in a path."""

    name: str
    hub: str | None
    words: tuple[str, ...]
    tier_scheme: str = "labels"
    #: the size of its test split, the base of an official board's percentages (``None``: unknown)
    n_instances: int | None = None


KNOWN: dict[str, Benchmark] = {b.name: b for b in (
    Benchmark("swe-bench-verified", "princeton-nlp/SWE-bench_Verified",
              ("swe-bench_verified", "swe-bench-verified", "swebench_verified",
               "swe_bench_verified"), "swe-bench-verified", 500),
    Benchmark("swe-bench-lite", "princeton-nlp/SWE-bench_Lite",
              ("swe-bench_lite", "swe-bench-lite", "swebench_lite", "swe_bench_lite"), n_instances=300),
    Benchmark("swe-bench-multimodal", "princeton-nlp/SWE-bench_Multimodal",
              ("swe-bench_multimodal", "swe-bench-multimodal", "swebench_multimodal")),
    Benchmark("multi-swe-bench", "ByteDance-Seed/Multi-SWE-bench",
              ("multi-swe-bench", "multi_swe_bench", "multiswebench"), "multi-swe-bench"),
    Benchmark("swe-bench", "princeton-nlp/SWE-bench", (), n_instances=2294),
    Benchmark("bugsinpy", None, ("bugsinpy",)),
    Benchmark("defects4j", None, ("defects4j",)),
    Benchmark("mmlu", "cais/mmlu", ("mmlu",)),
    Benchmark("truthfulqa", "truthfulqa/truthful_qa", ("truthfulqa", "truthful_qa")),
)}

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")
_FULL_SWE_BENCH = re.compile(r"(^|/)swe-bench$|(^|/)swe_bench$|(^|/)swebench$")


def check_name(name: str) -> str:
    """``name`` lower-cased, or an :class:`InputError` naming it when it is not a usable name."""
    low = str(name).strip().lower()
    if not _NAME.fullmatch(low):
        raise InputError(f"benchmark name {name!r}: use lower-case letters, digits, '.', '_' or "
                         f"'-' (known: {', '.join(sorted(KNOWN))})")
    return low


def benchmark_of_source(source: str, default: str = "swe-bench-verified") -> str:
    """The benchmark a SWE-bench-style dataset name or file path holds (``default`` when the name
    says nothing): ``princeton-nlp/SWE-bench_Lite`` -> ``swe-bench-lite``."""
    low = str(source).lower()
    for bench in KNOWN.values():
        if bench.hub and low == bench.hub.lower():
            return bench.name
    # the longest word first: "multi-swe-bench" before "swe-bench"
    hits = [(len(w), b.name) for b in KNOWN.values() for w in b.words if w in low]
    if hits:
        return max(hits)[1]
    stem = low.rsplit(".", 1)[0] if low.endswith((".jsonl", ".json", ".parquet")) else low
    if _FULL_SWE_BENCH.search(stem):
        return "swe-bench"
    return default


def tier_scheme(benchmark: str) -> str:
    """How the benchmark's difficulty labels are read: ``multi-swe-bench`` or ``labels``."""
    bench = KNOWN.get(benchmark)
    return bench.tier_scheme if bench else "labels"
