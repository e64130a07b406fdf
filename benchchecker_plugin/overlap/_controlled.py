"""The controlled overlap evaluation: benchmark items planted into real text, recall and false
positives of every rule against lm-eval's 13-gram rule, measured in the same run.

1. Benchmark: every MMLU test and TruthfulQA item, their queries and parts as ``benchchecker
   overlap`` builds them (:func:`._items.load_overlap_items`), all in one benchmark table, as in
   a real audit of both.
2. Per benchmark and per form of :mod:`._planting`, ``items_per_form`` items are drawn (seeded;
   at most a ``1 / (forms + 1)`` share each, so some are always left); every other item is a
   *clean* item: planted nowhere, so any flag on it is a false positive.
3. The background (:mod:`._background`: real text, offline) is streamed through the scan engine
   and the baseline; planted documents are copies of background documents (a seeded reservoir
   sample) each holding ``items_per_host`` planted items, scanned last.
4. Per form and per metric: recall (flagged share of the planted items) and, on the clean items,
   the false-positive rate, each with its ``n`` and a 95% Wilson interval; ``verbatim_short`` is
   the verbatim items of fewer than 13 tokens (invisible to any 13-gram rule). A clean item's
   false positive comes from the background or from a planted copy of *another* item sharing its
   words (a near-duplicate, or a template in fewer than ``template_items`` items): the clean rate
   counts both, ``background_only`` the background alone (the table read before the planted
   documents are scanned).

A flag is ``contaminated is True`` (Llama 2's *mixed* bucket and ``parts``' undecided items are
not flags). The baseline ``lm_eval_13gram`` is :class:`._janitor.Janitor`. Template masking is also
switched off once (a second table over the same documents) to report what it removes.
"""

from __future__ import annotations

import json
import math
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, is_dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic import write_text_atomic
from ..errors import DataError, InputError
from ..scoring import wilson_interval
from ..tsguessing import BenchmarkItem, load_items
from ._background import BackgroundStats, Document, iter_background
from ._found import Found
from ._items import OverlapItem, load_overlap_items
from ._janitor import Janitor
from ._metrics import (
    AnyNgram,
    Coverage,
    ItemWindows,
    LongestMatch,
    Measure,
    Metric,
    Parts,
    TokenLevel,
    WindowMetric,
)
from ._partial import ScanPartial
from ._planting import PERTURB_RATE, Form, plant, render
from ._result import item_results
from ._table import TEMPLATE_ITEMS, BenchmarkTable, build_table

BASELINE = "lm_eval_13gram"
SHORT = 13
BATCH_CHARS = 8_000_000


@dataclass(frozen=True)
class Labelled:
    """A registered metric under another name (to run one metric at two sizes side by side)."""

    name: str
    metric: WindowMetric

    @property
    def n(self) -> int:
        return self.metric.n

    def measure(self, w: ItemWindows) -> Measure:
        return self.metric.measure(w)


EVAL_METRICS: tuple[Metric, ...] = (Parts(), AnyNgram(), Labelled("any_8gram", AnyNgram(n=8)),
                                    Coverage(), TokenLevel(), LongestMatch())


@dataclass(frozen=True)
class OverlapEvalConfig:
    """Sizes of one run: planted items per form *per benchmark*, background characters."""

    items_per_form: int = 50
    background_bytes: float = 48e6
    seed: int = 0
    rate: float = PERTURB_RATE
    items_per_host: int = 4
    template_items: int = TEMPLATE_ITEMS
    forms: tuple[Form, ...] = tuple(Form)

    def __post_init__(self) -> None:
        if self.items_per_form < 1 or self.items_per_host < 1 or self.background_bytes <= 0:
            raise InputError("the overlap evaluation needs items per form >= 1, items per host >= 1 "
                             f"and a background > 0 MB (got {self.items_per_form}, "
                             f"{self.items_per_host}, {self.background_bytes / 1e6:g} MB)")
        if not 0 <= self.rate <= 1:
            raise InputError(f"perturbation rate must lie in [0, 1], got {self.rate}")


EVAL_FULL = OverlapEvalConfig()
EVAL_QUICK = OverlapEvalConfig(items_per_form=20, background_bytes=4e6)
EVAL_DEMO = OverlapEvalConfig(items_per_form=5, background_bytes=1e6)


def eval_items(data_dir: Path) -> list[tuple[BenchmarkItem, OverlapItem]]:
    """Every MMLU test and TruthfulQA item with its overlap query, from ``data_dir``."""
    paths = {"mmlu": data_dir / "mmlu", "truthfulqa": data_dir / "truthfulqa" / "TruthfulQA.csv"}
    out: list[tuple[BenchmarkItem, OverlapItem]] = []
    for benchmark, path in paths.items():
        if not path.exists():
            raise DataError(f"{path}: not found (the overlap evaluation needs MMLU and TruthfulQA "
                            "under --data-dir)")
        raw = load_items(benchmark, path)
        queries = load_overlap_items(benchmark, path)
        if [r.instance_id for r in raw] != [q.instance_id for q in queries]:
            raise DataError(f"{path}: items and overlap queries disagree")
        out.extend(zip(raw, queries))
    return out


def assign_forms(benchmarks: Sequence[str], config: OverlapEvalConfig) -> dict[int, Form]:
    """Item index -> the form it is planted in (absent: clean), drawn per benchmark."""
    rng = np.random.default_rng([config.seed, 1])
    out: dict[int, Form] = {}
    names = np.asarray(benchmarks)
    for benchmark in sorted(set(benchmarks)):
        idx = rng.permutation(np.flatnonzero(names == benchmark))
        k = min(config.items_per_form, idx.size // (len(config.forms) + 1))
        for f, form in enumerate(config.forms):
            for j in idx[f * k:(f + 1) * k]:
                out[int(j)] = form
    return out


def _planted(pairs: Sequence[tuple[BenchmarkItem, OverlapItem]], assignment: Mapping[int, Form],
             hosts: Sequence[Document], config: OverlapEvalConfig,
             rng: np.random.Generator) -> list[str]:
    order = [int(i) for i in rng.permutation(sorted(assignment))]
    docs = []
    for g in range(0, len(order), config.items_per_host):
        host = hosts[(g // config.items_per_host) % len(hosts)]
        group = order[g:g + config.items_per_host]
        snippets = [(assignment[i], render(assignment[i], pairs[i][0], rng, rate=config.rate,
                                           others=[pairs[int(j)][0] for j in rng.integers(len(pairs), size=3)]))
                    for i in group]
        docs.append(plant(host.text, snippets, rng))
    return docs


def rate(flags: np.ndarray) -> dict[str, Any]:
    """Flagged count, n, share and its 95% Wilson interval (share and interval ``None`` at n = 0)."""
    k, n = int(flags.sum()), int(flags.size)
    if n == 0:
        return {"flagged": 0, "n": 0, "rate": None, "ci": [None, None]}
    lo, hi = wilson_interval(k, n)
    return {"flagged": k, "n": n, "rate": k / n, "ci": [float(lo), float(hi)]}


def flag_items(table: BenchmarkTable, partial: ScanPartial, metrics: Sequence[Metric]) -> dict[str, np.ndarray]:
    """Per metric, which items of a scanned ``table`` it flags (``contaminated is True``, as
    :func:`._result.item_results` decides), measured only on the items with something found: no
    rule flags an item with nothing, so the others need no measure."""
    out = {m.name: np.zeros(len(table.items), bool) for m in metrics}
    found = partial.kind > 0
    for pos, cnt in partial.counts.values():
        found[table.item_of[pos[cnt > 0]]] = True
    idx = np.flatnonzero(found)
    if not idx.size:
        return out
    sub = _subset(table, partial, idx)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # a nan measure is undecided: no flag
        results = item_results(sub[0], sub[1], metrics)
    for k, r in zip(idx, results):
        for m in metrics:
            out[m.name][k] = r.measures[m.name].contaminated is True
    return out


def _subset(table: BenchmarkTable, partial: ScanPartial, idx: np.ndarray) -> tuple[BenchmarkTable, ScanPartial]:
    """The table and partial restricted to items ``idx`` (their measures only need their rows)."""
    keep = np.zeros(table.stok.size, bool)
    for i in idx.tolist():
        keep[table.soff[i]:table.soff[i + 1]] = True
    new_pos = np.cumsum(keep) - 1
    lens = np.diff(table.soff)[idx]
    soff = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    counts = {}
    for n, (pos, cnt) in partial.counts.items():
        ok = keep[pos]
        counts[n] = (new_pos[pos[ok]].astype(np.int64), cnt[ok])
    where = {int(i): k for k, i in enumerate(idx.tolist())}
    sub_t = replace(table, items=tuple(table.items[i] for i in idx.tolist()), bench=table.bench[idx],
                    stok=table.stok[keep], soff=soff, item_of=np.repeat(np.arange(idx.size, dtype=np.int32), lens),
                    q_own=table.q_own[idx], q_end=table.q_end[idx], g_lo=table.g_lo[idx], g_hi=table.g_hi[idx],
                    gold_part=table.gold_part[idx], opt_lo=table.opt_lo[idx], opt_hi=table.opt_hi[idx],
                    info_q=table.info_q[idx], info_g=table.info_g[idx], q_shared=table.q_shared[idx],
                    seeded=table.seeded[idx], q_seeded=table.q_seeded[idx], masked={n: m[keep] for n, m in table.masked.items()})
    sub_p = replace(partial, counts=counts, kind=partial.kind[idx], sim=partial.sim[idx],
                    matched=partial.matched[idx], options=partial.options[idx], docs=partial.docs[idx],
                    evidence={where[i]: e for i, e in partial.evidence.items() if i in where},
                    quoted=partial.quoted[idx],
                    quotes={where[i]: q for i, q in partial.quotes.items() if i in where})
    return sub_t, sub_p


def _first_match(partial: ScanPartial, index: int) -> dict[str, object] | None:
    ev = partial.evidence.get(index) or tuple(loc for _, loc in partial.quotes.get(index, ()))
    return ev[0].to_dict() if ev else None


def _params(m: Metric) -> dict[str, Any]:
    inner = m.metric if isinstance(m, Labelled) else m
    params: dict[str, Any] = asdict(inner) if is_dataclass(inner) else {}
    return {"metric": type(inner).__dict__.get("name", m.name), **params}


def _forms(results: Mapping[str, Any]) -> list[str]:
    return [g for g in results if g not in ("clean", "verbatim_short")]


def _best(results: Mapping[str, Any], metrics: Sequence[str]) -> str:
    """The rule with the highest worst-form recall among those flagging <= 1% of clean items."""
    def recall(metric: str, group: str) -> float:
        r = results[group]["metrics"][metric]["rate"]
        return -1.0 if r is None else r

    fpr_ok = [m for m in metrics if recall(m, "clean") <= 0.01] or list(metrics)
    return max(fpr_ok, key=lambda m: (min(recall(m, g) for g in _forms(results)), -recall(m, "clean")))


def _goals(results: Mapping[str, Any], rule: str) -> list[dict[str, Any]]:
    def value(group: str) -> float | None:
        return results[group]["metrics"][rule]["rate"] if group in results else None

    def check(goal: str, v: float | None, target: float, above: bool) -> dict[str, Any]:
        reached = v is not None and (v >= target if above else v <= target)
        return {"goal": goal, "metric": rule, "value": v, "target": target, "reached": reached}

    rates = {g: value(g) for g in _forms(results)}
    known = [v for v in rates.values() if v is not None]
    worst = min(known) if known else None
    which = min((g for g in rates if rates[g] is not None), key=lambda g: rates[g] or 0.0, default="-")
    return [check(f"recall >= 0.85 in every planted form (worst: {which})", worst, 0.85, True),
            check("clean items flagged <= 1%", value("clean"), 0.01, False)]


def _scan_all(founds: Sequence[Found], janitor: Janitor, texts: list[str], name: str,
              clock: dict[str, float]) -> None:
    t0 = time.perf_counter()
    for found in founds:
        found.batch(name, [str(i) for i in range(len(texts))], texts)
    t1 = time.perf_counter()
    janitor.scan(texts)
    clock["scan_seconds"] += t1 - t0
    clock["baseline_seconds"] += time.perf_counter() - t1


def _background(config: OverlapEvalConfig, founds: Sequence[Found], janitor: Janitor,
                roots: Mapping[str, Path | None] | None, n_hosts: int, rng: np.random.Generator,
                clock: dict[str, float]) -> tuple[list[Document], BackgroundStats]:
    """Stream the background through the scans and the baseline; a reservoir sample of hosts."""
    hosts: list[Document] = []
    bg = BackgroundStats()
    batch: list[str] = []
    size = seen = 0
    for doc in iter_background(config.background_bytes, bg, roots=roots):
        seen += 1
        if len(hosts) < n_hosts:
            hosts.append(doc)
        else:
            j = int(rng.integers(seen))
            if j < n_hosts:
                hosts[j] = doc
        batch.append(doc.text)
        size += len(doc.text)
        if size >= BATCH_CHARS:
            _scan_all(founds, janitor, batch, "background", clock)
            batch, size = [], 0
    if batch:
        _scan_all(founds, janitor, batch, "background", clock)
    if not hosts:
        raise DataError("the background corpus is empty: no source produced a document")
    return hosts, bg


def run_overlap_eval(out_dir: Path | None, data_dir: Path, config: OverlapEvalConfig = EVAL_FULL, *,
                     roots: Mapping[str, Path | None] | None = None,
                     pairs: Sequence[tuple[BenchmarkItem, OverlapItem]] | None = None) -> dict[str, Any]:
    """Run the evaluation (see the module); writes ``out_dir/overlap_eval.json`` when given.
    ``pairs`` replaces the items read from ``data_dir``; ``roots`` the background's sources."""
    start = time.perf_counter()
    pairs = list(pairs) if pairs is not None else eval_items(data_dir)
    queries = [q for _, q in pairs]
    benchmarks = [q.benchmark for q in queries]
    assignment = assign_forms(benchmarks, config)
    sizes = (8, 13)
    table = build_table(queries, sizes, template_items=config.template_items)
    unmasked = build_table(queries, sizes, template_items=max(2, len(queries) + 1))
    found, found_plain = Found(table), Found(unmasked)
    janitor = Janitor([q.text for q in queries])
    clock = {"scan_seconds": 0.0, "baseline_seconds": 0.0}
    rng = np.random.default_rng([config.seed, 2])
    hosts, bg = _background(config, (found, found_plain), janitor, roots,
                            max(1, math.ceil(len(assignment) / config.items_per_host)), rng, clock)
    background_only = flag_items(table, found.partial(("background",)), EVAL_METRICS)
    background_only[BASELINE] = np.array(janitor.hit, bool) & np.array(janitor.visible, bool)
    planted = _planted(pairs, assignment, hosts, config, rng)
    _scan_all((found, found_plain), janitor, planted, "planted", clock)
    scanned = found.partial(("background", "planted"))
    flags = flag_items(table, scanned, EVAL_METRICS)
    flags[BASELINE] = np.array(janitor.hit, bool) & np.array(janitor.visible, bool)
    plain = flag_items(unmasked, found_plain.partial(("background", "planted")), EVAL_METRICS)
    label = np.array([assignment[i].value if i in assignment else "clean" for i in range(len(pairs))])
    n_tokens = np.asarray(table.n_tokens)
    groups = {f.value: label == f.value for f in config.forms}
    if Form.VERBATIM in config.forms:
        groups["verbatim_short"] = (label == Form.VERBATIM.value) & (n_tokens < SHORT)
    groups["clean"] = label == "clean"
    names = [*[m.name for m in EVAL_METRICS], BASELINE]
    bench = np.asarray(benchmarks)
    out: dict[str, Any] = {}
    for group, mask in groups.items():
        out[group] = {"metrics": {
            m: {**rate(flags[m][mask]),
                "by_benchmark": {b: rate(flags[m][mask & (bench == b)]) for b in sorted(set(benchmarks))}}
            for m in names}}
    clean = groups["clean"]
    out["clean"]["background_only"] = {m: rate(background_only[m][clean]) for m in names}
    best = _best(out, [m.name for m in EVAL_METRICS])
    default = EVAL_METRICS[0].name
    examples = [{"instance_id": queries[i].instance_id, "tokens": int(n_tokens[i]),
                 "match": _first_match(scanned, int(i))}
                for i in np.flatnonzero(flags[default] & clean)[:10]]
    masking = {"template_items": config.template_items, "masked_windows": int(table.n_masked.sum()),
               "items_with_masked_windows": {
                   str(n): int(np.unique(table.item_of[np.flatnonzero(table.masked[n])]).size)
                   for n in table.sizes},
               "clean_flagged_without_masking": {m.name: rate(plain[m.name][clean]) for m in EVAL_METRICS}}
    report = {
        "results": out,
        "default_rule": default,
        "best_rule": best,
        "goals": _goals(out, default),
        "masking": masking,
        "clean_examples": examples,
        "setup": {
            "config": {**asdict(config), "forms": [f.value for f in config.forms]},
            "metrics": {m.name: _params(m) for m in EVAL_METRICS},
            "baseline": {"name": BASELINE, "n": janitor.n, "visible_items": int(sum(janitor.visible))},
            "items": {b: int((bench == b).sum()) for b in sorted(set(benchmarks))},
            "planted": {b: {f.value: int(((label == f.value) & (bench == b)).sum()) for f in config.forms}
                        for b in sorted(set(benchmarks))},
            "background": bg.to_dict(),
            "host_documents": len(hosts),
            "planted_documents": len(planted),
            "planted_chars": sum(len(t) for t in planted),
        },
        "timing": {**clock, "baseline_mb_per_s": janitor.chars / 1e6 / clock["baseline_seconds"]
                   if clock["baseline_seconds"] > 0 else None,
                   "total_seconds": time.perf_counter() - start},
    }
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        write_text_atomic(out_dir / "overlap_eval.json", json.dumps(report, indent=2) + "\n")
    return report


def format_overlap_eval(doc: Mapping[str, Any]) -> str:
    """Recall per form (and the clean items' false-positive rate) per metric, as printed text."""
    results = doc["results"]
    names = list(next(iter(results.values()))["metrics"])
    width = max(len(n) for n in names) + 1
    lines = [f"{'form':<16}{'n':>6}  " + "".join(f"{n:>{width}}" for n in names)]
    for group, row in results.items():
        cells = []
        for n in names:
            r = row["metrics"][n]["rate"]
            cells.append(f"{'-' if r is None else f'{r:.3f}':>{width}}")
        label = "clean (FPR)" if group == "clean" else group
        lines.append(f"{label:<16}{row['metrics'][names[0]]['n']:>6}  " + "".join(cells))
    only = results["clean"]["background_only"]
    lines.append(f"{'clean, bg only':<16}{only[names[0]]['n']:>6}  "
                 + "".join(f"{only[n]['rate']:>{width}.3f}" for n in names))
    lines.append(f"default rule: {doc['default_rule']}; best rule: {doc['best_rule']}; template masking removed "
                 f"{doc['masking']['masked_windows']} windows")
    for g in doc["goals"]:
        v = "n/a" if g["value"] is None else f"{g['value']:.3f}"
        lines.append(f"goal {'met' if g['reached'] else 'NOT met'}: {g['goal']} ({g['metric']}: {v})")
    return "\n".join(lines)
