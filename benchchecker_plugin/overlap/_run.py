"""One driver for every overlap run: ``benchchecker overlap``, ``check --corpus`` and the harness
wrappers' ``--contamination-detect overlap`` all call :func:`run_overlap`.

A run is a :class:`OverlapCorpus` (the ``--corpus`` paths, text and id fields) and an
:class:`OverlapRun` (rule, engine, index, state, executor), over the items of any number of
benchmarks: all of them go into one benchmark table (template masking, shared passages and
near-duplicate competition within each benchmark) and the corpus is read **once**.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..execution import Executor, make_executor
from ..flags import ANY_MODEL
from ._audit import OverlapAudit
from ._corpus import CorpusShards, Shard, corpus_shards
from ._items import OverlapItem
from ._metrics import DEFAULT_METRICS, Metric, Retrieval, window_sizes
from ._partial import ScanPartial
from ._result import item_results, overlap_flags
from ._rules import DEFAULT_RULE, RULES
from ._table import TEMPLATE_ITEMS, BenchmarkTable, build_table

ENGINES = ("scan", "index")


@dataclass(frozen=True)
class OverlapCorpus:
    """The corpus: ``--corpus`` paths (files, folders, ``hf:NAME``) and the record fields."""

    paths: tuple[str, ...]
    text_field: str = "text"
    id_field: str = "id"

    def __post_init__(self) -> None:
        if not self.paths:
            raise InputError("no corpus given (--corpus PATH)")

    def listing(self) -> CorpusShards:
        """Every shard of every path, each once (a shard reached twice is read once, with a
        note); a path that cannot be read is a failed shard with its reason."""
        return corpus_shards(self.paths)

    def shards(self) -> list[Shard]:
        return list(self.listing().shards)


@dataclass(frozen=True)
class OverlapRun:
    """How to look: the rule that decides, the engine (``scan``: the corpus streamed once;
    ``index``: BM25 top-k then verified), ``--state`` for a resumable scan, the executor."""

    rule: str = DEFAULT_RULE
    engine: str = "scan"
    index_dir: Path | None = None
    index_partitions: int = 1
    top_k: int = 10
    template_items: int = TEMPLATE_ITEMS
    model: str = ANY_MODEL
    state: Path | None = None
    executor: str = "local"
    ray_address: str | None = None
    ray_retries: int = 3
    metrics: tuple[Metric, ...] = field(default=DEFAULT_METRICS)

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise InputError(f"--rule {self.rule}: unknown; choose from {', '.join(RULES)}")
        if self.engine not in ENGINES:
            raise InputError(f"--engine {self.engine}: unknown; choose from {', '.join(ENGINES)}")
        if self.engine == "index" and self.index_dir is None:
            raise InputError("--engine index needs --index DIR (the index is built there if new or empty)")
        if self.rule == "retrieval" and self.engine != "index":
            raise InputError("--rule retrieval needs --engine index (it reads each item's retrieved "
                             "documents)")
        if self.template_items < 2:
            raise InputError(f"--template-items must be >= 2, got {self.template_items}")
        if self.top_k < 1 or self.index_partitions < 1 or self.ray_retries < 0:
            raise InputError(f"--top-k and --index-partitions must be >= 1 and --ray-retries >= 0, "
                             f"got {self.top_k}, {self.index_partitions}, {self.ray_retries}")
        if self.executor not in ("local", "ray"):
            raise InputError(f"--executor {self.executor}: choose local or ray")

    @property
    def is_ray(self) -> bool:
        return self.executor == "ray"

    def make_executor(self) -> Executor:
        """Where the shards (or the index's partitions) run: this process, or a Ray cluster."""
        return make_executor(self.executor, ray_address=self.ray_address, ray_retries=self.ray_retries)


def _scan(table: BenchmarkTable, shards: list[Shard], corpus: OverlapCorpus, run: OverlapRun,
          on_bytes: Callable[[int], None] | None) -> tuple[ScanPartial, list[ScanPartial]]:
    from ._resume import scan_shards

    size = {s.name: s.size for s in shards}
    return scan_shards(table, shards, text_field=corpus.text_field, id_field=corpus.id_field,
                       state=run.state, executor=run.make_executor(),
                       on_resumed=(lambda p: on_bytes(sum(size.get(n, 0) for n in p.shards)))
                       if on_bytes else None, on_bytes=on_bytes)


def run_overlap(items: Sequence[OverlapItem], corpus: OverlapCorpus, run: OverlapRun = OverlapRun(), *,
                on_bytes: Callable[[int], None] | None = None,
                say: Callable[[str], None] | None = None,
                listing: CorpusShards | None = None) -> OverlapAudit:
    """Look ``items`` (of one or more benchmarks) up in ``corpus`` (see the module): one flag per
    item under ``run.model``. A corpus that yields no document is an error; a shard that fails is
    named in the audit and its items not found elsewhere are undecided. ``listing``: the corpus
    as the caller already listed it (``corpus.listing()``, e.g. for a progress total), else
    listed here."""
    if not items:
        raise InputError("the benchmark has no item to look for")
    start = time.perf_counter()
    listing = listing if listing is not None else corpus.listing()
    shards = list(listing.shards)
    if say is not None:
        for note in listing.notes:
            say(f"note: {note}")
    metrics = run.metrics + ((Retrieval(),) if run.engine == "index" else ())
    table = build_table(items, window_sizes(metrics), template_items=run.template_items)
    per: dict[str, dict[str, int]] = {}
    undecidable = ~table.decidable()
    for b, name in enumerate(table.benchmarks):
        mine = table.bench == b
        per[name] = {"items": int(mine.sum()), "undecidable": int((undecidable & mine).sum()),
                     "masked_ngrams": int(table.n_masked[b])}
    if say is not None:
        for name, v in per.items():
            say(f"{name}: {v['items']} items ({v['undecidable']} too short to be distinctive: "
                f"undecided)")
        say(f"{len(shards)} corpus shard(s); one scan for {len(table.benchmarks)} benchmark(s)")
    resumed: list[ScanPartial] = []
    if run.engine == "index":
        from ._index_run import index_results

        assert run.index_dir is not None
        results, partial = index_results(table, shards, corpus, run, metrics, say=say, on_bytes=on_bytes)
    else:
        partial, resumed = _scan(table, shards, corpus, run, on_bytes)
        results = item_results(table, partial, metrics)
    if partial.documents == 0 and not partial.failed:
        raise InputError(f"the corpus ({', '.join(corpus.paths)}) holds no document: nothing was "
                         "read, so no item can be called clean")
    failed = dict(partial.failed)
    flags = overlap_flags(results, list(failed), len(shards), partial.documents, rule=run.rule,
                          model=run.model)
    return OverlapAudit(tuple(flags), run.rule, tuple(corpus.paths), len(shards), partial.documents,
                        partial.bytes, partial.seconds, failed, per, run.engine, len(resumed),
                        sum(p.bytes for p in resumed), time.perf_counter() - start)


#: ``--corpus-option KEY=VALUE`` keys (check, the harness wrappers) -> (field, type, record)
OPTION_KEYS = {"rule": ("rule", str, "run"), "engine": ("engine", str, "run"),
               "index": ("index_dir", Path, "run"), "index-partitions": ("index_partitions", int, "run"),
               "top-k": ("top_k", int, "run"), "template-items": ("template_items", int, "run"),
               "state": ("state", Path, "run"), "executor": ("executor", str, "run"),
               "ray-address": ("ray_address", str, "run"), "ray-retries": ("ray_retries", int, "run"),
               "text-field": ("text_field", str, "corpus"), "id-field": ("id_field", str, "corpus")}


def overlap_settings(corpora: Sequence[str], options: Sequence[str], *, model: str = ANY_MODEL,
                     spelling: str = "--corpus-option") -> tuple[OverlapCorpus, OverlapRun]:
    """The corpus and run of ``--corpus PATH ... --corpus-option KEY=VALUE ...`` (what ``check``
    and the harness wrappers accept: every setting ``benchchecker overlap`` has, by its option's
    name without the dashes); a bad key or value is one line naming it."""
    run: dict[str, object] = {"model": model}
    corp: dict[str, object] = {}
    for value in options:
        key, sep, raw = value.partition("=")
        key = key.strip().lstrip("-")
        if not sep or key not in OPTION_KEYS:
            raise InputError(f"{spelling} {value}: expected KEY=VALUE with KEY one of "
                             f"{', '.join(OPTION_KEYS)}")
        name, kind, where = OPTION_KEYS[key]
        try:
            parsed = kind(raw.strip())
        except ValueError:
            raise InputError(f"{spelling} {value}: {raw!r} is not a whole number") from None
        (run if where == "run" else corp)[name] = parsed
    return OverlapCorpus(tuple(corpora), **corp), OverlapRun(**run)  # type: ignore[arg-type]
