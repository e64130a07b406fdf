"""What ``--contamination-detect`` shares across the three harness wrappers.

A wrapped run with ``--contamination-detect`` makes its own flags before it evaluates: the
harness-specific part (which documents are MMLU / TruthfulQA, which SWE-bench instances and
cutoff) lives in each adapter; this module holds the options, the response-cache wrapping of the
run's model, the count of model calls (``--dry-run``), the timing line and where the flags file
goes.

Options (the same on every wrapped command):

``--contamination-detect``
    make flags in this run (TS-Guessing through the run's own model for MMLU / TruthfulQA and
    any multiple-choice task;
    Stage II at the model's cutoff for SWE-bench). Combinable with ``--contamination-filter``
    (flags made elsewhere): both sets are merged per instance.
``--dry-run``
    say how many model calls detection would add (and how many are already cached); run nothing.
``--contamination-cache-dir DIR`` / ``--contamination-no-cache``
    where detection answers are kept (default: benchchecker's response cache), or no cache.
``--contamination-detect overlap --contamination-corpus PATH``
    instead of asking the model, look the run's items up in its training corpus (corpus overlap,
    scan engine, default rule; :mod:`harness_adapters.corpus_overlap`); the flags are written and
    used exactly as TS-Guessing's are.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import ContaminationFlag

from .options import OptionSpec

__all__ = [
    "DETECT_METHODS",
    "DETECT_OPTIONS",
    "DetectOptions",
    "Detection",
    "LazyModel",
    "click_detect_options",
    "count_calls",
    "flags_path_beside",
    "pop_detect_options",
    "timing_line",
    "ts_guess_probes",
]

DETECT_METHODS = ("ts-guess", "overlap")
DETECT_HELP = ("Make contamination flags in this run: TS-Guessing through the run's own model for "
               "MMLU / TruthfulQA and any multiple-choice task (Stage II at the model's cutoff for "
               "SWE-bench), "
               "written beside the harness's results and used to score clean / contaminated "
               "groups. Combinable with --contamination-filter (flags are merged). "
               "`--contamination-detect overlap --contamination-corpus PATH`: look the run's items "
               "up in the model's training corpus instead (benchchecker.overlap, no model call).")
CORPUS_HELP = ("With --contamination-detect overlap (repeatable): the training corpus, as "
               "`benchchecker overlap --corpus` reads it (.jsonl[.gz|.zst], .parquet, .txt, a "
               "folder, hf:NAME).")
CORPUS_OPTION_HELP = ("With --contamination-corpus (repeatable): any setting of `benchchecker overlap` "
                      "by its option's name, KEY=VALUE: rule=coverage, engine=index, index=DIR, "
                      "top-k=5, text-field=content, id-field=url, state=DIR, template-items=10.")
DRY_RUN_HELP = ("With --contamination-detect: print how many model calls detection would add "
                "(and how many are already cached) and run nothing.")
CACHE_DIR_HELP = ("Response cache for detection answers (a re-run asks nothing twice). "
                  "[default: benchchecker's cache folder]")
NO_CACHE_HELP = "Ask the model every detection probe again; keep nothing."


@dataclass(frozen=True)
class DetectOptions:
    """The detection options of one command line (``enabled`` False: no detection).

    ``method``: ``ts-guess`` (the run's model is asked) or ``overlap`` (the run's items are looked
    for in ``corpora``, the model's training corpus: :mod:`harness_adapters.corpus_overlap`)."""

    enabled: bool = False
    dry_run: bool = False
    cache_dir: Path | None = None
    use_cache: bool = True
    method: str = "ts-guess"
    corpora: tuple[str, ...] = ()
    corpus_options: tuple[str, ...] = ()

    @classmethod
    def from_values(cls, detect: bool | str | None, dry_run: bool = False,
                    cache_dir: str | Path | None = None, no_cache: bool = False,
                    corpus: Sequence[str] | None = None,
                    corpus_option: Sequence[str] | None = None) -> DetectOptions:
        method = detect if isinstance(detect, str) else "ts-guess"
        corpora = tuple(str(c) for c in corpus or ())
        options = tuple(str(o) for o in corpus_option or ())
        if options and not corpora:
            raise InputError("--contamination-corpus-option needs --contamination-corpus")
        if not detect and (dry_run or cache_dir or no_cache):
            given = [n for n, v in (("--dry-run", dry_run), ("--contamination-cache-dir", cache_dir),
                                    ("--contamination-no-cache", no_cache)) if v]
            raise InputError(f"{', '.join(given)} need(s) --contamination-detect")
        if corpora and method != "overlap" or (detect and method == "overlap" and not corpora):
            raise InputError("--contamination-detect overlap and --contamination-corpus PATH go "
                             "together (the corpus the run's items are looked for in)")
        if method == "overlap" and (cache_dir or no_cache):
            raise InputError("--contamination-cache-dir / --contamination-no-cache: the model's "
                             "answer cache, not used by --contamination-detect overlap")
        if cache_dir and no_cache:
            raise InputError("--contamination-cache-dir and --contamination-no-cache exclude each other")
        if options:   # a bad setting is one line now, before the harness starts
            from benchchecker_plugin.overlap import overlap_settings

            overlap_settings(corpora, options, spelling="--contamination-corpus-option")
        return cls(bool(detect), bool(dry_run), Path(cache_dir) if cache_dir else None, not no_cache,
                   method, corpora, options)

    def cache(self) -> Any:
        """The :class:`~benchchecker_plugin.models.ResponseCache` to use, or ``None``."""
        if not self.use_cache:
            return None
        from benchchecker_plugin.models import ResponseCache, default_cache_dir

        return ResponseCache(self.cache_dir or default_cache_dir())


#: The detection options of the lm-eval and Inspect wrappers, in :meth:`DetectOptions.from_values`
#: order (``--dry-run`` is read as ``contamination_dry_run``: the harness may have its own).
DETECT_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("--contamination-detect", DETECT_HELP, choices=DETECT_METHODS,
               flag_value="ts-guess"),
    OptionSpec("--dry-run", DRY_RUN_HELP, is_flag=True, dest="contamination_dry_run"),
    OptionSpec("--contamination-cache-dir", CACHE_DIR_HELP, metavar="DIR",
               click_type=click.Path(file_okay=False, path_type=Path)),
    OptionSpec("--contamination-no-cache", NO_CACHE_HELP, is_flag=True),
    OptionSpec("--contamination-corpus", CORPUS_HELP, metavar="PATH", multiple=True),
    OptionSpec("--contamination-corpus-option", CORPUS_OPTION_HELP, metavar="KEY=VALUE", multiple=True),
)


def click_detect_options() -> list[click.Option]:
    """The detection options as click ``Option`` objects (appended to a wrapped command)."""
    return [o.click_option() for o in DETECT_OPTIONS]


def pop_detect_options(values: dict[str, Any]) -> DetectOptions:
    """Remove the detection options' values from parsed ``values`` (click params, an argparse
    namespace's ``__dict__``) and read them into :class:`DetectOptions`."""
    return DetectOptions.from_values(*(values.pop(o.key) for o in DETECT_OPTIONS))


class LazyModel:
    """A :class:`~benchchecker_plugin.models.TextModel` whose backend is built on the first
    ``generate`` call (a run whose answers are all cached never loads the model)."""

    def __init__(self, spec: str, identity: str, factory: Callable[[], Any]) -> None:
        self.spec = spec
        self.cache_identity = identity
        self._factory = factory
        self._model: Any = None

    @property
    def built(self) -> bool:
        return self._model is not None

    def generate(self, prompts: Sequence[str], params: Any) -> list[Any]:
        if self._model is None:
            self._model = self._factory()
        return self._model.generate(prompts, params)


def count_calls(identity: str, prompts: Sequence[str], params: Any, cache: Any) -> tuple[int, int]:
    """``(model calls, cached)`` for asking ``prompts`` once each: distinct prompts not in the
    cache are calls."""
    from benchchecker_plugin.models import completion_key

    keys = list(dict.fromkeys(completion_key(identity, p, params) for p in prompts))
    cached = len(cache.get_completions(keys)) if cache is not None else 0
    return len(keys) - cached, cached


@dataclass(frozen=True)
class Detection:
    """What detection did in one run: its flags, what was asked, and how long it took."""

    flags: tuple[ContaminationFlag, ...]
    tasks: Mapping[str, str | None]
    """Every task (or dataset) of the run and the benchmark its detector handles (``None``: no
    detector for this task)."""
    probes: int = 0
    calls: int = 0
    cached: int = 0
    seconds: float = 0.0
    dropped: Mapping[str, int] = field(default_factory=dict)
    method: str = "ts-guess"
    #: with ``method`` overlap: the audit's summary (:meth:`OverlapAudit.to_dict`)
    corpus: Mapping[str, Any] | None = None

    @property
    def no_detector(self) -> tuple[str, ...]:
        return tuple(t for t, b in self.tasks.items() if b is None)

    @property
    def failed(self) -> int:
        return sum("error" in f.evidence for f in self.flags)

    @property
    def contaminated(self) -> int:
        return sum(f.contaminated is True for f in self.flags)

    def to_dict(self) -> dict[str, Any]:
        out = {"tasks": dict(self.tasks), "no_detector": list(self.no_detector),
               "probes": self.probes, "model_calls": self.calls, "cached": self.cached,
               "failed": self.failed, "contaminated": self.contaminated,
               "dropped": dict(self.dropped), "seconds": round(self.seconds, 3)}
        if self.method != "ts-guess":
            out.update(method=self.method, corpus=dict(self.corpus or {}))
        return out

    def summary(self) -> str:
        if self.method == "overlap":
            corpus = self.corpus or {}
            failed = len(corpus.get("failed_shards", {}))
            return (f"detection: corpus overlap ({corpus.get('rule')}) of {self.probes} items in "
                    f"{corpus.get('documents', 0)} documents ({corpus.get('shards', 0)} shard(s)"
                    + (f", {failed} failed: items not found are undecided" if failed else "")
                    + f"), {self.contaminated} flagged contaminated")
        dropped = sum(self.dropped.values())
        return (f"detection: {self.probes} probes ({self.calls} model calls, {self.cached} cached, "
                f"{self.failed} failed), {self.contaminated} flagged contaminated"
                + (f", {dropped} items dropped by the TS-Guessing filters" if dropped else ""))


def ts_guess_probes(model: Any, probes: Sequence[Any], *, model_name: str, cache: Any,
                    batch_size: int = 16, dry_run: bool = False
                    ) -> tuple[list[ContaminationFlag], int, int, float]:
    """Ask ``model`` every probe through the response cache, as ``benchchecker ts-guess`` does.

    Returns ``(flags, calls, cached, seconds)``; with ``dry_run`` nothing is asked and the flags
    are empty.
    """
    from benchchecker_plugin.models import with_cache
    from benchchecker_plugin.tsguessing import DEFAULT_PARAMS, run_probes

    identity = getattr(model, "cache_identity", model.spec)
    calls, cached = count_calls(identity, [p.prompt for p in probes], DEFAULT_PARAMS, cache)
    if dry_run or not probes:
        return [], calls, cached, 0.0
    start = time.perf_counter()
    asked = with_cache(model, cache, chunk_size=batch_size) if cache is not None else model
    flags = run_probes(asked, probes, batch_size=batch_size, model_name=model_name)
    return flags, calls, cached, time.perf_counter() - start


def flags_path_beside(folder: Path, date: str) -> Path:
    """``benchchecker_flags_<date>.jsonl`` in ``folder`` (never over an existing file)."""
    target = folder / f"benchchecker_flags_{date}.jsonl"
    n = 1
    while target.exists():
        target, n = folder / f"benchchecker_flags_{date}.{n}.jsonl", n + 1
    return target


def timing_line(detection: Detection | None, evaluation_s: float) -> str:
    """The run's summary line: detection time next to the evaluation's."""
    if detection is None:
        return f"evaluation {evaluation_s:.1f} s"
    share = detection.seconds / (detection.seconds + evaluation_s) if evaluation_s > 0 else 0.0
    return (f"detection {detection.seconds:.1f} s ({detection.calls} model calls, "
            f"{detection.cached} cached) + evaluation {evaluation_s:.1f} s; detection took "
            f"{share:.0%} of the run")
