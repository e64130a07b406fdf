"""``benchchecker flags from-lm-eval``: TS-Guessing flags from lm-eval ``--log_samples`` output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from benchchecker_plugin.errors import DataError
from benchchecker_plugin.flags import ContaminationFlag, write_flags
from benchchecker_plugin.safe_io import open_input
from benchchecker_plugin.tsguessing import MULTICHOICE_THRESHOLD, Probe, probe_flag


def _completion(sample: dict[str, Any]) -> str:
    filtered = sample.get("filtered_resps")
    if isinstance(filtered, list) and filtered and isinstance(filtered[0], str):
        return filtered[0]
    resps = sample.get("resps")
    if isinstance(resps, list) and resps and isinstance(resps[0], list) and resps[0]:
        return str(resps[0][0])
    raise KeyError("filtered_resps")


def flags_from_samples(path: Path, model: str,
                       threshold: float = MULTICHOICE_THRESHOLD) -> Iterator[ContaminationFlag]:
    """One flag per line of a ``samples_ts_guessing_*.jsonl`` file (lm-eval ``--log_samples``).

    Each sample's doc carries the probe (``probe_json``), its response is the model's completion;
    the flag is built exactly as ``benchchecker ts-guess`` builds it.
    """
    with open_input(path) as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(f"{path}:{lineno}: not UTF-8 ({exc.reason})") from None
            if not line.strip():
                continue
            try:
                sample = json.loads(line)
                probe = Probe.from_dict(json.loads(sample["doc"]["probe_json"]))
                completion = _completion(sample)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{lineno}: invalid JSON ({exc})") from None
            except (KeyError, TypeError, ValueError) as exc:
                raise DataError(f"{path}:{lineno}: not a TS-Guessing sample (missing {exc}); "
                                "use the samples file of a ts_guessing_* task") from None
            yield probe_flag(probe, completion, model, threshold=threshold)


def model_from_results(samples: Path) -> str | None:
    """The canonical model name of the lm-eval results file beside ``samples`` (newest), if any:
    the name ``benchchecker lm-eval run --contamination-detect`` and ``ts-guess`` write."""
    from benchchecker_plugin.leaderboard import lm_eval_run_model

    return lm_eval_run_model(samples.parent)


@click.command("from-lm-eval")
@click.argument("samples", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--model", default=None,
              help="Model name for the flags (default: model_name of the results_*.json beside the samples).")
@click.option("--threshold", type=click.FloatRange(0, 1), default=MULTICHOICE_THRESHOLD, show_default=True,
              help="multichoice: contaminated when Rouge-L F1 >= this.")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Flags file to write.")
def from_lm_eval(samples: tuple[Path, ...], model: str | None, threshold: float, output: Path) -> None:
    """Convert lm-eval TS-Guessing samples into contamination flags.

    Reads the samples_ts_guessing_*.jsonl files that `lm-eval run --log_samples --output_path DIR`
    writes for the ts_guessing_* tasks (tasks/lm_eval), and writes one flag per sample (method
    ts_guessing.multichoice or ts_guessing.question), identical to what `benchchecker ts-guess`
    writes for the same model answers.

    \b
    Example:
      lm-eval run --include_path tasks/lm_eval --tasks ts_guessing_mmlu_multichoice \\
          --model hf --model_args pretrained=MODEL_DIR --log_samples --output_path out/
      benchchecker flags from-lm-eval out/*/samples_ts_guessing_*.jsonl -o flags.jsonl
    """
    flags: list[ContaminationFlag] = []
    for path in samples:
        name = model or model_from_results(path)
        if not name:
            raise DataError(f"{path}: no results_*.json beside it names the model; pass --model")
        before = len(flags)
        flags.extend(flags_from_samples(path, name, threshold))
        if len(flags) == before:
            raise DataError(f"{path}: no samples (an empty file); use the samples file of a "
                            "ts_guessing_* task run with --log_samples")
    write_flags(output, flags)
    n = sum(bool(f.contaminated) for f in flags)
    click.echo(f"{len(flags)} flags from {len(samples)} file(s), {n} contaminated -> {output}")
