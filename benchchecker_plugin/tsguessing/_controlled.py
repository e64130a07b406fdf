"""A controlled TS-Guessing check: deliberately contaminate a small model with half of some MMLU
items, verify that it memorised them, then see whether TS-Guessing tells the seen half from the
unseen half.

``items`` usable probes (prompts of at most ``max_chars`` characters) are drawn with ``seed`` and
split at random into a seen and an unseen half. A GPT-2 built from config (byte-level BPE fitted to
both halves, so only the weights carry what was seen) is trained from scratch on the seen probes'
prompts followed by their hidden part: the deliberate-contamination setting of Deng et al., who
report ~100% exact match when the test data is in training (:mod:`._finetune`). Training runs
until the model reproduces every seen target under teacher forcing (or a step cap), and the share
it memorised is part of the result: below ``min_memorised`` the run is *not a test of the
detector* (a model that did not learn the seen half cannot show whether TS-Guessing finds it) and
no AUC is reported. The model is then asked every probe through the model layer (in memory, never
through the response cache), exactly as ``benchchecker ts-guess`` asks any model.

:func:`run_controlled` writes ``tsguess.json`` and the flags; ``benchchecker eval ts-guess`` and the
demo's TS-Guessing step call it.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic import write_text_atomic
from ..errors import DataError, InputError
from ..flags import ContaminationFlag, write_flags
from ._data import load_mmlu
from ._finetune import FinetuneConfig, finetune
from ._guess import MAX_TOKENS, run_probes
from ._probes import Probe, prepare_probes
from ._prompts import Mode
from ._scoring import normalize

FLAGS_FILE = "tsguess_flags.jsonl"
REPORT_FILE = "tsguess.json"


@dataclass(frozen=True)
class ControlledConfig:
    """One controlled run: how many items, which mode, the draw's seed, the fine-tune."""

    items: int = 100
    mode: str = "multichoice"
    max_chars: int = 700
    seed: int = 0
    min_memorised: float = 0.9    # below this memorised share, the run is not a detector test
    finetune: FinetuneConfig = FinetuneConfig()

    def __post_init__(self) -> None:
        if self.items < 4:
            raise InputError(f"the controlled check needs at least 4 items, got {self.items}")
        Mode(self.mode)
        if not 0 < self.min_memorised <= 1:
            raise InputError(f"min_memorised must be in (0, 1], got {self.min_memorised}")

    def seeded(self, seed: int) -> ControlledConfig:
        """This configuration with ``seed`` for the draw and the fine-tune alike."""
        return replace(self, seed=seed, finetune=replace(self.finetune, seed=seed))


CONTROLLED = ControlledConfig()
#: CI's size: 40 items (20 seen), the same model and stopping rule
CONTROLLED_QUICK = ControlledConfig(items=40)


@dataclass(frozen=True)
class ControlledResult:
    """Per-half means and the AUC of the flags' score (Rouge-L) and of exact match, with the
    fine-tune's record. ``verified``: the fine-tune memorised at least ``min_memorised`` of the
    seen targets; otherwise the numbers describe a model that did not learn its training set and
    say nothing about the detector."""

    flags: tuple[ContaminationFlag, ...]
    labels: tuple[bool, ...]
    em_contaminated: float
    em_clean: float
    rouge_contaminated: float
    rouge_clean: float
    flagged_contaminated: float
    flagged_clean: float
    auc_rouge: float
    auc_em: float
    memorised_share: float = math.nan
    min_memorised: float = 0.9
    seed: int = 0
    mode: str = "multichoice"
    training: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def verified(self) -> bool:
        return self.memorised_share >= self.min_memorised

    @property
    def n_seen(self) -> int:
        return sum(self.labels)

    def memorised_line(self) -> str:
        steps = self.training.get("steps")
        how = f" in {steps} steps" if steps is not None else ""
        return (f"fine-tune memorised {self.memorised_share:.0%} of the {self.n_seen} seen "
                f"targets{how}")

    def headline(self) -> str:
        """One line: the detector's separation, or why this draw is not a test of it."""
        if not self.verified:
            return f"{self.memorised_line()}; not a test of the detector"
        return (f"EM seen {self.em_contaminated:.2f} vs unseen {self.em_clean:.2f}, Rouge-L AUC "
                f"{self.auc_rouge:.3f} (seed {self.seed}; {self.memorised_line()})")


def draw_probes(mmlu: str | os.PathLike[str] | None, config: ControlledConfig) -> list[Probe]:
    """``config.items`` probes drawn at random (``config.seed``) among MMLU's usable ones whose
    prompt has at most ``config.max_chars`` characters and whose hidden text can be scored (not
    all punctuation, like an option ``/``: exact match and Rouge-L are 0 whatever the answer):
    the items in a seeded random order, probed one by one until enough are usable (all of MMLU
    need not be probed)."""
    items = load_mmlu(mmlu)
    out: list[Probe] = []
    for k in random.Random(config.seed).sample(range(len(items)), len(items)):
        out += [p for p in prepare_probes([items[k]], config.mode).probes
                if len(p.prompt) <= config.max_chars and normalize(p.target)]
        if len(out) == config.items:
            return out
    raise DataError(f"MMLU gives {len(out)} usable {config.mode} probes of at most "
                    f"{config.max_chars} characters; the check asked for {config.items}")


def controlled_check(mmlu: str | os.PathLike[str] | None, config: ControlledConfig = CONTROLLED) -> ControlledResult:
    """Draw the items, fine-tune on a random half until memorised, ask every probe, and score
    seen vs unseen (see the module). ``mmlu``: an MMLU folder, or ``None`` for the hub."""
    from ..scoring import roc_auc_score

    probes = draw_probes(mmlu, config)
    n = len(probes)
    seen = set(random.Random(f"{config.seed}:halves").sample(range(n), n // 2))
    tuned = finetune([(p.prompt, p.target) for i, p in enumerate(probes) if i in seen],
                     [p.prompt + " " + p.target for p in probes], config.finetune,
                     spec=f"local/tiny-contaminated-seed{config.seed}", reply_tokens=MAX_TOKENS)
    flags = run_probes(tuned.model, probes, batch_size=16, model_name="tiny-contaminated")
    y = np.array([i in seen for i in range(n)], dtype=int)
    answered = np.array(["error" not in f.evidence for f in flags])
    em = np.array([float(f.evidence.get("exact_match", 0.0)) for f in flags])
    rouge = np.array([float(f.evidence.get("rouge_l", 0.0)) for f in flags])
    flagged = np.array([bool(f.contaminated) for f in flags], dtype=float)
    seen_mask, clean_mask = (y == 1) & answered, (y == 0) & answered
    record = dict(tuned.record)
    record["seen_instance_ids"] = [p.instance_id for i, p in enumerate(probes) if i in seen]
    record["failed_probes"] = int((~answered).sum())
    return ControlledResult(
        tuple(flags), tuple(bool(v) for v in y),
        _mean(em[seen_mask]), _mean(em[clean_mask]), _mean(rouge[seen_mask]), _mean(rouge[clean_mask]),
        _mean(flagged[seen_mask]), _mean(flagged[clean_mask]),
        float(roc_auc_score(y[answered], rouge[answered])), float(roc_auc_score(y[answered], em[answered])),
        tuned.memorised_share, config.min_memorised, config.seed, config.mode, record)


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if values.size else math.nan


def _num(x: float) -> float | None:
    return None if math.isnan(x) else round(float(x), 4)


def report(result: ControlledResult, config: ControlledConfig, *, data: str) -> dict[str, Any]:
    """The ``tsguess.json`` document of one run (the AUCs only when the fine-tune is verified)."""
    seen, unseen = result.n_seen, len(result.labels) - result.n_seen
    halves = {"seen": {"items": seen, "exact_match": _num(result.em_contaminated),
                       "rouge_l": _num(result.rouge_contaminated),
                       "flagged_rate": _num(result.flagged_contaminated)},
              "unseen": {"items": unseen, "exact_match": _num(result.em_clean),
                         "rouge_l": _num(result.rouge_clean), "flagged_rate": _num(result.flagged_clean)}}
    auc = {"rouge_l": _num(result.auc_rouge), "exact_match": _num(result.auc_em)}
    return {
        "verified": result.verified,
        "headline": result.headline(),
        "memorised_share": round(result.memorised_share, 4),
        "halves": halves,
        "auc": auc if result.verified else None,
        "auc_withheld": None if result.verified else (
            f"{result.memorised_line()} (at least {config.min_memorised:.0%} needed); not a test "
            "of the detector"),
        "measures": {
            "exact_match": "share of the half whose answer equals the hidden text (normalised)",
            "rouge_l": "mean Rouge-L F1 of the answer against the hidden text",
            "flagged_rate": ("share of the half flagged contaminated (Rouge-L >= 0.8)"
                             if result.mode == "multichoice" else "share flagged (exact match)"),
            "auc": "seen vs unseen, by each probe's Rouge-L and by its exact match",
            "memorised_share": ("share of the seen targets greedy decoding reproduces in full "
                                "under teacher forcing, after the fine-tune"),
        },
        "setup": {"data": data, "mode": result.mode, "items": len(result.labels), "seed": result.seed,
                  "max_chars": config.max_chars, "min_memorised": config.min_memorised},
        "training": dict(result.training),
        "config": asdict(config),
    }


def run_controlled(out_dir: str | os.PathLike[str], mmlu: str | os.PathLike[str] | None,
                   config: ControlledConfig = CONTROLLED) -> tuple[ControlledResult, dict[str, Any]]:
    """:func:`controlled_check`, then ``tsguess.json`` and ``tsguess_flags.jsonl`` in ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    result = controlled_check(mmlu, config)
    doc = report(result, config, data=os.fspath(mmlu) if mmlu is not None else "cais/mmlu (hub)")
    doc["total_seconds"] = round(time.perf_counter() - t0, 1)
    write_flags(out / FLAGS_FILE, result.flags)
    write_text_atomic(out / REPORT_FILE, json.dumps(doc, indent=2) + "\n")
    return result, doc
