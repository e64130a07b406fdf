"""``benchchecker eval``: controlled evaluations of the detectors (``eval membership``)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import click

__all__ = ["eval_group", "membership"]


@click.group("eval")
def eval_group() -> None:
    """Controlled evaluations: how well do the detectors separate known members from non-members?

    \b
    Example:
      benchchecker eval membership --out results/membership --quick
    """


@eval_group.command("membership")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for membership.json and membership_flags.jsonl (created).")
@click.option("--quick", is_flag=True,
              help="Reduced form (5+5 repositories of 4 KB, a 0.5M-parameter GPT-2, 400 steps; "
                   "what CI runs, about a minute). Default: 6+6 of 6 KB, 600 steps of twice the batch, "
                   "learning rate decayed after the weak checkpoint (about 4 minutes on 2 CPU cores).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the corpus split, training and sampling.")
@click.option("--steps", type=click.IntRange(min=2), default=None,
              help="Override the training steps (the weak checkpoint stays at the same step).")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Stage I significance level.")
def membership(out_dir: Path, quick: bool, seed: int, steps: int | None, alpha: float) -> None:
    """Stage I vs the four logit baselines on a GPT-2 trained here, from scratch.

    Members and non-members are disjoint sets of installed packages' source trees (equal size);
    a GPT-2 and its tokenizer are trained on the members only; the final model is the "strong"
    memorisation regime, an early checkpoint the "weak" one. Stage I (binomial test at --alpha,
    p0 = 0.08) and loss / zlib / Min-K% / Min-K%++ score every repository; the scorer reports AUC,
    TPR, FPR and TPR at 5% FPR per method and regime.

    Writes OUT/membership.json:
    {"runs": [{"regime": "strong", "methods": {"stage1": {"auc", "tpr", "fpr", ...},
    "loss": {...}, "zlib": {...}, "min_k": {...}, "min_k_pp": {...}}}, {"regime": "weak", ...}],
    "setup": {members, nonmembers, training record (config, steps, seed, timings)}}
    and OUT/membership_flags.jsonl (every flag that was scored; benchmark "repo").

    \b
    Example:
      benchchecker eval membership --out results/membership --quick
    """
    from ..membership import FULL, QUICK, run_membership

    config = dataclasses.replace(QUICK if quick else FULL, seed=seed)
    train = dataclasses.replace(config.train, seed=seed)
    if steps is not None:
        train = dataclasses.replace(train, steps=steps, weak_step=min(train.weak_step, steps))
    config = dataclasses.replace(config, train=train)
    doc = run_membership(out_dir, config=config, alpha=alpha)
    for run in doc["runs"]:
        parts = []
        for name, m in run["methods"].items():
            auc = "n/a" if m["auc"] is None else f"{m['auc']:.3f}"
            parts.append(f"{name} AUC {auc}")
        click.echo(f"{run['regime']}: " + ", ".join(parts))
    click.echo(f"wrote {os.fspath(out_dir / 'membership.json')} "
               f"({doc['total_seconds']:.0f} s)", err=True)
