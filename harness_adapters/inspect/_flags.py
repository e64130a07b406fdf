"""``benchchecker flags from-inspect``: TS-Guessing flags from an Inspect eval log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.flags import ContaminationFlag, validate_record, write_flags
from benchchecker_plugin.tsguessing import Probe, probe_flag


def flags_from_log(path: Path, model: str | None = None) -> Iterator[ContaminationFlag]:
    """The flag each scored sample carries in ``Score.metadata["flag"]`` (the TS-Guessing scorer
    puts it there); a sample that errored gives an undecided flag with the error. ``model``
    replaces the flags' model name (default: the canonical name of Inspect's ``provider/model``,
    :func:`benchchecker_plugin.models.canonical_model_name`)."""
    from inspect_ai.log import read_eval_log

    from benchchecker_plugin.inspect_tasks import PROBE_KEY
    from benchchecker_plugin.models import canonical_model_name

    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # Inspect raises several types for unreadable logs
        raise DataError(f"{path}: cannot read Inspect log ({exc})") from exc
    name = model or canonical_model_name(log.eval.model)
    for sample in log.samples or []:
        record = next((s.metadata["flag"] for s in (sample.scores or {}).values()
                       if s.metadata and "flag" in s.metadata), None)
        if record is None:
            if PROBE_KEY not in (sample.metadata or {}):
                raise DataError(f"{path}: sample {sample.id} has no TS-Guessing flag or probe; "
                                "is this a ts_guessing_* log?")
            error = sample.error.message if sample.error else "sample was not scored"
            flag = probe_flag(Probe.from_dict(sample.metadata[PROBE_KEY]), None, name, error=error)
        else:
            validate_record(record, source=f"{path} sample {sample.id}")
            flag = ContaminationFlag.from_dict(record)
        yield flag.with_(model=name)


@click.command("from-inspect")
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--model", default=None,
              help="Model name for the flags (default: the log's model, canonical: "
                   "benchchecker/hf/smollm2-135m -> hf/smollm2-135m).")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Flags file to write.")
def from_inspect(logs: tuple[Path, ...], model: str | None, output: Path) -> None:
    """Convert Inspect TS-Guessing logs into contamination flags.

    Reads .eval (or .json) logs of the benchchecker_plugin/ts_guessing_* tasks and writes the flag
    the scorer stored in each sample's score metadata (method ts_guessing.multichoice or
    ts_guessing.question).

    \b
    Example:
      inspect eval benchchecker_plugin/ts_guessing_mmlu_multichoice --model benchchecker/hf/MODEL_DIR \\
          -T data=../shared/data/mmlu --limit 50 --log-dir logs/
      benchchecker flags from-inspect logs/*.eval -o flags.jsonl
    """
    flags = [f for path in logs for f in flags_from_log(path, model)]
    write_flags(output, flags)
    n = sum(bool(f.contaminated) for f in flags)
    click.echo(f"{len(flags)} flags from {len(logs)} log(s), {n} contaminated -> {output}")
