"""What the three harness wrappers share: the contamination options, resolving flags for a run's
benchmark and model, choosing the subset to evaluate, and grouping per-instance scores.

The options are the same on every wrapped command, declared once in :data:`FILTER_OPTIONS`
(:class:`~harness_adapters.options.OptionSpec`: name, help, default, choices) and rendered for
click (:func:`click_options`) and argparse (:func:`~harness_adapters.options.add_argparse_options`):

``--contamination-filter FLAGS``
    a flags file or a folder of ``*.jsonl`` flags files (``benchchecker_plugin.flags`` format);
``--contamination-mode both|clean|contaminated``
    ``both`` (default) runs everything and reports full, clean and contaminated scores with the
    relative drop; ``clean`` / ``contaminated`` evaluate only that subset;
``--contamination-model NAME``
    the model name the flags use, when it differs from the run's own model name.

Flags are matched to the run's model (or ``"*"``) through
:func:`benchchecker_plugin.flags.verdicts_for`. An instance is *clean* or *contaminated* when its
merged verdict says so, *undecided* when the methods could not decide, and *unflagged* when no
flag mentions it; undecided and unflagged instances belong to neither subset and are counted and
shown, never silently dropped.
"""

from __future__ import annotations

import contextlib
import enum
import warnings
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from benchchecker_plugin.benchmarks import KNOWN
from benchchecker_plugin.errors import InputError
from benchchecker_plugin.flags import ANY_MODEL, ContaminationFlag, Verdict, read_flags, verdicts_for

from .options import OptionSpec, add_argparse_options

__all__ = [
    "BENCHMARK_ALIASES",
    "ContaminationFilterWarning",
    "FILTER_OPTIONS",
    "FilterMode",
    "FilterOptions",
    "Group",
    "OptionSpec",
    "Selection",
    "add_argparse_options",
    "click_options",
    "echo",
    "echo_warnings",
    "flags_digest",
    "load_flags",
    "pop_filter_options",
    "resolve_benchmark",
    "resolve_model",
    "run_filter",
    "select",
    "warn",
]

#: Words in a task / dataset name that name a known benchmark (``benchchecker_plugin.benchmarks``).
BENCHMARK_ALIASES: Mapping[str, tuple[str, ...]] = {b.name: b.words for b in KNOWN.values() if b.words}


class ContaminationFilterWarning(UserWarning):
    """A problem with the contamination filter that does not stop the run (an empty group,
    flags for instances the run does not have)."""


def warn(message: str) -> None:
    """Emit a :class:`ContaminationFilterWarning` (shown as one line by :func:`echo_warnings`)."""
    warnings.warn(message, ContaminationFilterWarning, stacklevel=2)


@contextlib.contextmanager
def echo_warnings() -> Iterator[None]:
    """Show our warnings as one ``benchchecker: warning: ...`` line on stderr while the block runs
    (other warnings keep their usual display)."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", ContaminationFilterWarning)
        original = warnings.showwarning

        def show(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None,
                 line: str | None = None) -> None:
            if issubclass(category, ContaminationFilterWarning):
                click.echo(f"benchchecker: warning: {message}", err=True)
            else:
                original(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield


class FilterMode(enum.Enum):
    """Which instances a filtered run evaluates."""

    BOTH = "both"
    CLEAN = "clean"
    CONTAMINATED = "contaminated"


class Group(enum.Enum):
    """Where one instance of a run falls for a given flags file, model and benchmark."""

    CLEAN = "clean"
    CONTAMINATED = "contaminated"
    UNDECIDED = "undecided"
    UNFLAGGED = "unflagged"


_FROM_VERDICT = {Verdict.CLEAN: Group.CLEAN, Verdict.CONTAMINATED: Group.CONTAMINATED,
                 Verdict.UNDECIDED: Group.UNDECIDED}


@dataclass(frozen=True)
class FilterOptions:
    """The values of the contamination options on one command line (``flags is None``: off)."""

    flags: Path | None
    mode: FilterMode = FilterMode.BOTH
    model: str | None = None
    detect: bool = False
    """Flags are also made in the run (``--contamination-detect``) and merged with ``flags``."""

    @property
    def enabled(self) -> bool:
        return self.flags is not None or self.detect

    @classmethod
    def from_values(cls, flags: str | Path | None, mode: str | FilterMode | None,
                    model: str | None, detect: bool = False) -> FilterOptions:
        mode = FilterMode(mode or FilterMode.BOTH.value)
        if flags is None and not detect:
            if mode is not FilterMode.BOTH or model:
                raise InputError("--contamination-mode and --contamination-model need "
                                 "--contamination-filter FLAGS or --contamination-detect")
            return cls(None)
        return cls(Path(flags) if flags is not None else None, mode, model or None, bool(detect))

    def source(self) -> str:
        """How error messages name the flags of this run."""
        parts = ([str(self.flags)] if self.flags is not None else []) + \
            (["the flags detected in this run"] if self.detect else [])
        return " + ".join(parts)


FILTER_HELP = ("Contamination flags: a .jsonl flags file or a folder of them. Turns on grouped "
               "full / clean / contaminated scores.")
MODE_HELP = ("both: evaluate everything and report full, clean and contaminated scores with the "
             "relative drop; clean / contaminated: evaluate only that subset.  [default: both]")
MODEL_HELP = ("Model name the flags use, when it differs from the run's model name "
              "(default: matched from the run's model; flags for model '*' always apply).")


#: ``--contamination-filter``, ``--contamination-mode``, ``--contamination-model``: the options of
#: every wrapped command, read into :meth:`FilterOptions.from_values`.
FILTER_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("--contamination-filter", FILTER_HELP, metavar="FLAGS",
               click_type=click.Path(exists=True, path_type=Path)),
    OptionSpec("--contamination-mode", MODE_HELP, metavar="MODE", default=FilterMode.BOTH.value,
               choices=tuple(m.value for m in FilterMode)),
    OptionSpec("--contamination-model", MODEL_HELP, metavar="NAME"),
)


def click_options() -> list[click.Option]:
    """The three options as click ``Option`` objects (to append to a command's ``params``)."""
    return [o.click_option() for o in FILTER_OPTIONS]


def pop_filter_options(values: dict[str, Any], *, detect: bool = False) -> FilterOptions:
    """Remove the three options' values from parsed ``values`` (click params, an argparse
    namespace's ``__dict__``) and read them into :class:`FilterOptions`."""
    flags, mode, model = (values.pop(o.key) for o in FILTER_OPTIONS)
    return FilterOptions.from_values(flags, mode, model, detect=detect)


def load_flags(path: Path) -> list[ContaminationFlag]:
    """Read and validate the flags (file or folder); an empty file is an error."""
    flags = read_flags(path)
    if not flags:
        raise InputError(f"{path}: holds no flags records")
    return flags


def resolve_benchmark(flags: Sequence[ContaminationFlag], hints: Iterable[str], *,
                      source: str) -> str:
    """The benchmark a run evaluates, from names that describe it (task names, dataset names,
    explicit ``benchmark`` fields), checked against the benchmarks the flags hold.

    A hint that is itself a benchmark name wins; otherwise aliases are searched in the hints.
    With no recognisable hint, flags for exactly one benchmark decide.
    """
    in_flags = sorted({f.benchmark for f in flags})
    named: list[str] = []
    for hint in hints:
        low = hint.lower()
        if low in BENCHMARK_ALIASES or low in in_flags:
            named.append(low)
            continue
        named.extend(b for b, aliases in BENCHMARK_ALIASES.items() if any(a in low for a in aliases))
    named = sorted(set(named))
    if len(named) > 1:
        raise InputError(f"the run mixes benchmarks {', '.join(named)}; filter one benchmark per run")
    if named:
        if named[0] not in in_flags:
            raise InputError(f"{source}: has no flags for benchmark '{named[0]}' (it holds flags "
                             f"for: {', '.join(in_flags)})")
        return named[0]
    if len(in_flags) == 1:
        return in_flags[0]
    raise InputError(f"cannot tell which benchmark the run evaluates; {source} holds flags for "
                     f"{', '.join(in_flags)}: keep one benchmark's flags in the file")


def resolve_model(flags: Sequence[ContaminationFlag], benchmark: str, candidates: Sequence[str],
                  *, source: str) -> str:
    """The model name to match flags with: the first candidate the flags name for ``benchmark``,
    else ``"*"`` when the flags hold ``"*"`` records; otherwise an error naming the models."""
    models = {f.model for f in flags if f.benchmark == benchmark}
    for name in candidates:
        if name in models:
            return name
    if ANY_MODEL in models:
        return ANY_MODEL
    shown = ", ".join(sorted(models)[:8]) + (" ..." if len(models) > 8 else "")
    raise InputError(f"{source}: no flags for model '{candidates[0] if candidates else '?'}' on "
                     f"benchmark '{benchmark}' (flags name: {shown}); pass --contamination-model")


@dataclass(frozen=True)
class Selection:
    """Which of a run's instances fall in which group, and which ones to evaluate."""

    benchmark: str
    model: str
    mode: FilterMode
    groups: Mapping[str, Group]
    """Every instance id of the run, in run order, with its group."""

    def ids(self, group: Group) -> tuple[str, ...]:
        return tuple(i for i, g in self.groups.items() if g is group)

    @property
    def selected(self) -> tuple[str, ...]:
        """The instance ids to evaluate under :attr:`mode`."""
        if self.mode is FilterMode.BOTH:
            return tuple(self.groups)
        return self.ids(Group(self.mode.value))

    def counts(self) -> dict[str, int]:
        return {g.value: len(self.ids(g)) for g in Group}

    def summary(self) -> str:
        c = self.counts()
        return (f"{self.benchmark} / model '{self.model}': {len(self.groups)} instances: "
                f"{c['clean']} clean, {c['contaminated']} contaminated, {c['undecided']} undecided, "
                f"{c['unflagged']} unflagged; mode {self.mode.value}: evaluating "
                f"{len(self.selected)}")


def select(flags: Sequence[ContaminationFlag], *, benchmark: str, model: str,
           instance_ids: Sequence[str], mode: FilterMode, source: str,
           known_ids: Collection[str] | None = None) -> Selection:
    """Group the run's instances by the flags' verdicts for (benchmark, model).

    Errors (one line): the run has no instances or lists one twice; no flagged id is in the
    run's dataset (another benchmark slice or id scheme); the chosen subset is empty.
    Warnings: flagged ids that are not in ``known_ids`` (the whole dataset the run draws from;
    default: the run's ids; empty: no check); an empty clean or contaminated group when both are
    reported.
    """
    if not instance_ids:
        raise InputError("the run has no instances to filter")
    seen: set[str] = set()
    dupes = [i for i in instance_ids if i in seen or seen.add(i)]  # type: ignore[func-returns-value]
    if dupes:
        raise InputError(f"the run lists instance id '{dupes[0]}' more than once")
    verdicts = verdicts_for(flags, benchmark=benchmark, model=model)
    groups = {i: _FROM_VERDICT[verdicts[i]] if i in verdicts else Group.UNFLAGGED
              for i in instance_ids}
    universe = set(known_ids) if known_ids else set(groups)
    if verdicts and not universe.intersection(verdicts):
        example = min(verdicts)
        raise InputError(
            f"{source}: none of the {len(verdicts)} instance ids flagged for {benchmark} / "
            f"'{model}' is in this run (unknown instance ids such as '{example}'; the run has "
            f"e.g. '{next(iter(groups))}')")
    outside = sorted(set(verdicts) - universe)
    if outside and (known_ids is None or known_ids):
        warn(f"{source}: {len(outside)} flagged instance id(s) are not in this run's dataset "
             f"(e.g. '{outside[0]}'); they are ignored")
    sel = Selection(benchmark, model, mode, groups)
    if mode is not FilterMode.BOTH and not sel.selected:
        raise InputError(f"empty subset: {source} leaves no {mode.value} instance to evaluate "
                         f"({sel.summary()})")
    if mode is FilterMode.BOTH:
        for g in (Group.CLEAN, Group.CONTAMINATED):
            if not sel.ids(g):
                warn(f"the {g.value} subset is empty ({sel.summary()}); its score is nan")
    return sel


def run_filter(options: FilterOptions, *, hints: Iterable[str], model_candidates: Sequence[str],
               instance_ids: Sequence[str] | Callable[[str], Sequence[str]],
               known_ids: Collection[str] | Callable[[str], Collection[str]] | None = None,
               detected: Sequence[ContaminationFlag] = (),
               loaded: Sequence[ContaminationFlag] | None = None) -> Selection:
    """Load the flags and build the :class:`Selection` for one run.

    ``instance_ids`` is the run's instance list, or a function of the resolved benchmark that
    returns it (when the ids depend on it); ``known_ids`` likewise (see :func:`select`).
    ``detected`` are the flags the run made itself (``--contamination-detect``); they are merged
    with the ``--contamination-filter`` flags per instance (one verdict per instance and method,
    merged across methods by :func:`benchchecker_plugin.flags.verdicts_for`). ``loaded`` are the
    ``--contamination-filter`` flags when the caller has read them already (to report a bad
    flags file before the slower loading of the run's tasks).
    """
    assert options.enabled
    source = options.source()
    if loaded is None:
        loaded = load_flags(options.flags) if options.flags is not None else []
    flags = list(loaded) + list(detected)
    if not flags:
        raise InputError(f"{source}: holds no flags records")
    benchmark = resolve_benchmark(flags, hints, source=source)
    candidates = [options.model] if options.model else list(model_candidates)
    model = resolve_model(flags, benchmark, candidates, source=source)
    ids = instance_ids(benchmark) if callable(instance_ids) else instance_ids
    known = known_ids(benchmark) if callable(known_ids) else known_ids
    return select(flags, benchmark=benchmark, model=model, instance_ids=list(ids),
                  mode=options.mode, source=source, known_ids=known)


def flags_digest(paths: Iterable[Path | None]) -> str:
    """``sha256:<hex>`` over the flags files a run used (a folder: its ``*.jsonl`` files, sorted),
    so a shared results file names exactly which flags filtered it."""
    import hashlib

    h = hashlib.sha256()
    for path in paths:
        if path is None:
            continue
        files = sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
        for file in files:
            h.update(file.name.encode("utf-8") + b"\0")
            h.update(file.read_bytes())
    return "sha256:" + h.hexdigest()


def echo(message: str) -> None:
    """One informational line of ours on stderr (the harness keeps stdout)."""
    click.echo(f"benchchecker: {message}", err=True)
