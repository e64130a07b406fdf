"""``benchchecker demo``: run every part of the pipeline offline and write one HTML report."""

from __future__ import annotations

import os
import time
from pathlib import Path

import click


def find_data_dir(explicit: Path | None) -> Path | None:
    """``--data-dir``, else ``$BENCHCHECKER_DATA_DIR``, else ``../shared/data`` beside the current
    folder or beside the source checkout; ``None`` when none exists. A ``--data-dir`` without the
    data gives ``None`` (the steps say they are skipped), never another folder's data."""
    if explicit is not None:
        candidates = [explicit]
    else:
        env = os.environ.get("BENCHCHECKER_DATA_DIR")
        candidates = ([Path(env)] if env else []) + [
            Path.cwd() / ".." / "shared" / "data",
            Path(__file__).resolve().parents[2] / ".." / "shared" / "data"]
    for c in candidates:
        if c is not None and (c / "swebench_verified").is_dir():
            return c.resolve()
    return None


def find_republished() -> Path | None:
    """The republished SWE-bench Verified bundle (``published/swebench-verified`` with its
    ``flags.csv``) in the current folder or the source checkout; ``None`` in an installed wheel."""
    from ..demo import REPUBLISHED

    for root in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (root / REPUBLISHED / "flags.csv").is_file():
            return (root / REPUBLISHED).resolve()
    return None


def quiet_library_bars() -> None:
    """No third-party progress bars in the demo's output ("Loading weights" when a step loads an
    embedding model, hub downloads): the demo's own progress lines say what runs. The hub's
    variable is read when transformers is first imported; an already imported one is told."""
    import sys

    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    if "transformers" in sys.modules and os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] == "1":
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()


@click.command("demo")
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("benchchecker-demo"), show_default=True, help="Where the report goes.")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Benchmark data folder [default: $BENCHCHECKER_DATA_DIR or ../shared/data].")
@click.option("--full", is_flag=True, help="The full-size experiments (slower) instead of the quick ones.")
@click.option("--only", multiple=True, help="Run only these steps (repeatable).")
def demo(out_dir: Path, data_dir: Path | None, full: bool, only: tuple[str, ...]) -> None:
    """Run the whole pipeline offline and write an HTML report.

    \b
    Steps (each prints its headline numbers):
      membership   train a small GPT-2 on known repositories; Stage I (exact-hit test and
                   graded score) vs loss, zlib, Min-K%, Min-K%++ on members vs non-members
                   (AUC, TPR, FPR)
      stage2       Stage II on labelled git histories built from real code
      tsguessing   TS-Guessing on a small model fine-tuned on half of 100 MMLU items until
                   it reproduces them (`benchchecker eval ts-guess`); EM and AUC seen vs unseen
      leaderboard  SWE-bench Verified's 82 submissions re-scored without the instances
                   each model could have seen, pooled over submissions (all, each year)
                   with intervals: Stage II's republished verdicts (a source checkout's
                   published/swebench-verified), beside clone-free patch-date flags
      overlap      MMLU/TruthfulQA items planted into real offline text; recall per form
                   and false positives of each overlap rule vs lm-eval's 13-gram rule

    Needs no network. Real benchmark data is read from --data-dir; steps that need it are skipped
    (and say so) when it is absent.
    """
    from ..demo import STEPS, DemoContext, format_value, run_step, write_demo_report

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    quiet_library_bars()
    known = [name for name, _, _ in STEPS]
    unknown = [s for s in only if s not in known]
    if unknown:
        raise click.BadParameter(f"unknown step(s) {', '.join(unknown)}; steps: {', '.join(known)}",
                                 param_hint="--only")
    ctx = DemoContext(out_dir=out_dir.resolve(), data_dir=find_data_dir(data_dir), quick=not full,
                      republished=find_republished())
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    results = []
    for name, title, fn in STEPS:
        if only and name not in only:
            continue
        click.echo(f"== {title} ...", err=True)
        result = run_step(fn, ctx, name, title)
        results.append(result)
        note = f": {result.note}" if result.note else ""
        click.echo(f"   {result.status} in {result.seconds:.0f} s{note}")
        for key, value in result.headline.items():
            click.echo(f"   {key}: {format_value(value)}")
    page = write_demo_report(results, ctx.out_dir / "index.html")
    click.echo(f"report: {page}  ({time.perf_counter() - started:.0f} s in all)")
    failed = [r.name for r in results if r.status == "failed"]
    if failed:
        raise click.ClickException(f"step(s) failed: {', '.join(failed)} (see the report)")
