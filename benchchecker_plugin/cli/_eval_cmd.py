"""``benchchecker eval``: controlled evaluations of the detectors (``eval membership``,
``eval ts-guess``, ``eval overlap``)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import click


@click.group("eval")
def eval_group() -> None:
    """Controlled evaluations: how well do the detectors separate known members from non-members?

    \b
    Examples:
      benchchecker eval membership --out results/membership --quick
      benchchecker eval ts-guess --data ../shared/data/mmlu --out results/tsguess
      benchchecker eval overlap --out results/overlap --quick
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

    Stage I is scored twice from the same samples: stage1, the paper's exact-hit test, and
    stage1_graded, for partial memorisation: each sample's edit similarity to the file's
    continuation minus its similarity to non-member code, averaged per repository and decided
    at --alpha against the other non-members' scores. A model that has half-memorised a
    repository (the weak regime: no exact hit yet) is invisible to the first, not the second.

    Writes OUT/membership.json:
    {"runs": [{"regime": "strong", "methods": {"stage1": {"auc", "tpr", "fpr", ...},
    "stage1_graded": {...}, "loss": {...}, "zlib": {...}, "min_k": {...}, "min_k_pp": {...}}},
    {"regime": "weak", ...}],
    "setup": {members, nonmembers, training record (config, steps, seed, timings)}}
    and OUT/membership_flags.jsonl (every flag that was scored; benchmark "repo").

    \b
    Example:
      benchchecker eval membership --out results/membership --quick
    """
    from ..membership import MEMBERSHIP_FULL, MEMBERSHIP_QUICK, run_membership

    config = (MEMBERSHIP_QUICK if quick else MEMBERSHIP_FULL).seeded(seed)
    if steps is not None:
        config = dataclasses.replace(config, train=dataclasses.replace(
            config.train, steps=steps, weak_step=min(config.train.weak_step, steps)))
    doc = run_membership(out_dir, config=config, alpha=alpha)
    for run in doc["runs"]:
        parts = []
        for name, m in run["methods"].items():
            auc = "n/a" if m["auc"] is None else f"{m['auc']:.3f}"
            parts.append(f"{name} AUC {auc}")
        click.echo(f"{run['regime']}: " + ", ".join(parts))
    click.echo(f"wrote {os.fspath(out_dir / 'membership.json')} "
               f"({doc['total_seconds']:.0f} s)", err=True)


@eval_group.command("ts-guess")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for tsguess.json and tsguess_flags.jsonl (created).")
@click.option("--data", default=None, metavar="[mmlu=]PATH",
              help="The MMLU folder of <subject>_test.csv files (or its parent with test/). "
                   "Default: cais/mmlu through datasets.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the item draw, the seen/unseen split and the fine-tune.")
@click.option("--items", type=click.IntRange(min=4), default=None,
              help="Items drawn (half seen in training) [default: 100; 40 with --quick].")
@click.option("--mode", type=click.Choice(("multichoice", "question")), default="multichoice",
              show_default=True, help="multichoice: hide a wrong option; question: hide a word.")
@click.option("--max-steps", type=click.IntRange(min=1), default=None,
              help="Cap on fine-tuning steps (batches of 25) [default: 400].")
@click.option("--quick", is_flag=True,
              help="Reduced form for CI: 40 items, the same model and stopping rule (well under a "
                   "minute of training on 2 CPU cores).")
def ts_guess(out_dir: Path, data: str | None, seed: int, items: int | None, mode: str,
             max_steps: int | None, quick: bool) -> None:
    """TS-Guessing on a small model fine-tuned here on a known half of some MMLU items.

    \b
    1. Draws --items usable probes (prompts of at most 700 characters) and splits them at
       random into a seen and an unseen half (--seed).
    2. Fine-tunes a GPT-2 (2 layers, width 128, byte-level BPE fitted to both halves) from
       scratch on the seen probes followed by their hidden text, until, with teacher forcing,
       greedy decoding reproduces every seen target (checked every 10 steps; at most
       --max-steps). The share it memorised is reported: below 90% the run is not a test of
       the detector, no AUC is given, and the command exits 1.
    3. Asks every probe (greedy, through the model layer, as `benchchecker ts-guess` does) and
       scores exact match and Rouge-L against the hidden text.

    Writes OUT/tsguess.json: {"verified", "headline", "memorised_share", "halves": {"seen",
    "unseen": {"items", "exact_match", "rouge_l", "flagged_rate"}}, "auc": {"rouge_l",
    "exact_match"} (null when not verified), "training" (steps, stop reason, loss and memorised
    share at every check, per-target share reproduced, seconds), "setup", "config"} and
    OUT/tsguess_flags.jsonl (one flag per probe).

    \b
    Example:
      benchchecker eval ts-guess --data ../shared/data/mmlu --seed 0 --out results/tsguess
    """
    from ..errors import HubUnavailableError
    from ..local_data import local_path
    from ..tsguessing import CONTROLLED, CONTROLLED_QUICK, run_controlled

    config = (CONTROLLED_QUICK if quick else CONTROLLED).seeded(seed)
    config = dataclasses.replace(config, mode=mode, items=items or config.items)
    if max_steps is not None:
        config = dataclasses.replace(config, finetune=dataclasses.replace(config.finetune,
                                                                          max_steps=max_steps))
    try:
        result, doc = run_controlled(out_dir, local_path(data, "mmlu"), config)
    except HubUnavailableError as exc:
        raise exc.naming("--data PATH") from exc
    seen, unseen = doc["halves"]["seen"], doc["halves"]["unseen"]
    click.echo(f"{mode}, {len(result.labels)} items, seed {seed}: {result.memorised_line()} "
               f"({doc['training']['train_seconds']:.0f} s)")
    for name, half in (("seen", seen), ("unseen", unseen)):
        click.echo(f"  {name:<6} {half['items']:>3} items: EM {half['exact_match']:.3f}, Rouge-L "
                   f"{half['rouge_l']:.3f}, flagged {half['flagged_rate']:.3f}")
    if doc["auc"] is not None:
        click.echo(f"  AUC seen vs unseen: Rouge-L {doc['auc']['rouge_l']:.3f}, "
                   f"EM {doc['auc']['exact_match']:.3f}")
    click.echo(f"wrote {os.fspath(out_dir / 'tsguess.json')} ({doc['total_seconds']:.0f} s)",
               err=True)
    if not result.verified:
        raise click.ClickException(doc["auc_withheld"])


def _data_dir(explicit: Path | None) -> Path:
    from ._demo_cmd import find_data_dir

    if explicit is not None:
        return explicit
    env = os.environ.get("BENCHCHECKER_DATA_DIR")
    found = Path(env) if env else find_data_dir(None)
    if found is None:
        raise click.UsageError("no benchmark data folder found: give --data-dir (a folder holding "
                               "mmlu/ and truthfulqa/TruthfulQA.csv)")
    return found


@eval_group.command("overlap")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for overlap_eval.json (created).")
@click.option("--quick", is_flag=True,
              help="Reduced form: 25 planted items per form per benchmark, 4 MB of background "
                   "(what CI runs; about 10 CPU-seconds). Default: 100 per form, 48 MB.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the item draw, host documents, positions and perturbations.")
@click.option("--items", type=click.IntRange(min=1), default=None,
              help="Planted items per form per benchmark (capped so that some items stay clean).")
@click.option("--background-mb", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Characters of background text to stream, in millions.")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder holding mmlu/ and truthfulqa/TruthfulQA.csv "
                   "[default: $BENCHCHECKER_DATA_DIR or ../shared/data].")
def overlap(out_dir: Path, quick: bool, seed: int, items: int | None, background_mb: float | None,
            data_dir: Path | None) -> None:
    """Plant benchmark items into real text and measure what every overlap rule finds.

    \b
    1. Background: real text read offline, one document from each source in turn:
       Python's standard library sources (always), and when installed the Debian packages
       python3.11-doc, linux-doc-6.1, dict-gcide, wordnet-base
       (apt-get install python3.11-doc linux-doc-6.1 dict-gcide wordnet-base).
    2. Every MMLU test and TruthfulQA item goes into one benchmark table (template masking
       sees the whole benchmark). Per benchmark and form, --items items are planted into copies
       of background documents, as they appear on the web:
         verbatim       question and answer as their own paragraph
         mid_paragraph  question and answer spliced into a paragraph
         perturbed      5% of words dropped, swapped or substituted (at least one)
         question_only  the question alone
         quiz_page      "Question 7: ..." then "A) ... B) ..." and "Answer: C"
         csv_row        a row of the benchmark's own CSV file
       Every other item is clean: any flag on it is a false positive.
    3. One scan; per form and metric the recall, on the clean items the false-positive rate
       (n and 95% Wilson interval each), against lm-eval's 13-gram rule (its Janitor:
       any 13-gram, no masking, items under 13 words invisible) run on the same text.
       Metrics: any_ngram (GPT-3, any 13-gram), any_8gram (the same at n = 8), coverage
       (PaLM, >= 70% of 8-grams), token_level (Llama 2, the dirty bucket), longest (ConTAM,
       longest match >= 50% of the item); items shorter than n by the whole-item rule.

    Writes OUT/overlap_eval.json: {"results": {FORM: {"metrics": {METRIC: {"flagged", "n",
    "rate", "ci", "by_benchmark"}}}, ..., "verbatim_short", "clean"}, "best_rule", "goals",
    "masking" (template windows removed; clean rates without masking), "clean_examples",
    "setup" (sizes, sources used and missing), "timing"}; prints the table.

    \b
    Example:
      benchchecker eval overlap --out results/overlap --quick
    """
    import dataclasses

    from ..overlap import EVAL_FULL, EVAL_QUICK, format_overlap_eval, run_overlap_eval

    config = dataclasses.replace(EVAL_QUICK if quick else EVAL_FULL, seed=seed)
    if items is not None:
        config = dataclasses.replace(config, items_per_form=items)
    if background_mb is not None:
        config = dataclasses.replace(config, background_bytes=background_mb * 1e6)
    doc = run_overlap_eval(out_dir, _data_dir(data_dir), config)
    click.echo(format_overlap_eval(doc))
    bg = doc["setup"]["background"]
    used = ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in bg["chars"].items())
    missing = f"; not installed: {', '.join(bg['missing'])}" if bg["missing"] else ""
    click.echo(f"background: {used}{missing}")
    click.echo(f"wrote {os.fspath(out_dir / 'overlap_eval.json')} "
               f"({doc['timing']['total_seconds']:.0f} s)", err=True)
