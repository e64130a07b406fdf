"""Running TS-Guessing through the model layer: probes in, one flag per probe out."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError
from ..execution import LocalExecutor
from ..flags import ContaminationFlag
from ..models import Completion, GenerationParams, TextModel
from ..progress import model_label
from ._data import BenchmarkItem
from ._filters import DropReason
from ._probes import Probe, prepare_probes, probe_flag
from ._prompts import Mode
from ._scoring import MULTICHOICE_THRESHOLD

if TYPE_CHECKING:
    from ..models import LogprobModel

#: Tokens a TS-Guessing reply may take: one option or one word, after any leading blank lines.
MAX_TOKENS = 32

#: Greedy decoding with *no* stop string: generation ends at EOS or after ``max_tokens``, and the
#: answer is read from the reply by :func:`._scoring.clean_answer` (its first line with text). Every
#: harness uses the same rule (lm-eval ``until: []``, Inspect ``stop_seqs=None``), so the three paths
#: give the same flags. A newline stop would cut the many replies that begin with a blank line to "".
DEFAULT_PARAMS = GenerationParams(max_tokens=MAX_TOKENS, temperature=0.0, stop=(), seed=0)


def generation_params(max_tokens: int = MAX_TOKENS, temperature: float = 0.0) -> GenerationParams:
    """:data:`DEFAULT_PARAMS` with another token limit or temperature."""
    return GenerationParams(max_tokens=max_tokens, temperature=temperature, stop=(), seed=0)


@dataclass(frozen=True)
class TSGuessResult:
    """Flags (one per probe, in order) and the items dropped by the filters, per reason."""

    flags: tuple[ContaminationFlag, ...]
    dropped: Mapping[DropReason, int]

    def summary(self) -> dict[str, float | int]:
        """Counts and mean EM / Rouge-L over the answered probes (``nan`` when none)."""
        answered = [f for f in self.flags if "error" not in f.evidence]
        n = len(answered)
        if n == 0:
            warnings.warn("no probe was answered: mean exact match and Rouge-L are nan", RuntimeWarning,
                          stacklevel=2)
        mean = (lambda k: sum(float(f.evidence[k]) for f in answered) / n) if n else (lambda k: float("nan"))
        return {"probes": len(self.flags), "answered": n, "failed": len(self.flags) - n,
                "dropped": sum(self.dropped.values()), "exact_match": mean("exact_match"),
                "rouge_l": mean("rouge_l"), "contaminated": sum(bool(f.contaminated) for f in answered)}


def _chunks(seq: Sequence[Probe], size: int) -> list[Sequence[Probe]]:
    return [seq[i:i + size] for i in range(0, len(seq), size)]


def run_probes(model: TextModel, probes: Sequence[Probe], *, params: GenerationParams = DEFAULT_PARAMS,
               batch_size: int = 16, model_name: str | None = None,
               threshold: float = MULTICHOICE_THRESHOLD) -> list[ContaminationFlag]:
    """Ask ``model`` every probe (``batch_size`` prompts per ``generate`` call) and build the flags.

    A batch whose call raises, or a completion with ``error`` set, yields undecided flags carrying
    the error; nothing failed is scored as an answer.
    """
    if batch_size < 1:
        raise InputError(f"batch_size must be >= 1, got {batch_size}")
    name = model_name or model.spec
    batches = _chunks(probes, batch_size)
    results = LocalExecutor().map(lambda b: model.generate([p.prompt for p in b], params), batches,
                                  desc=f"ts-guessing {model_label(name)}",
                                  weights=[len(b) for b in batches])
    flags: list[ContaminationFlag] = []
    for batch, result in zip(batches, results):
        completions: list[Completion | None] = list(result.value or [])
        result_error: str | None
        if result.error is None and len(completions) != len(batch):
            result_error = f"model returned {len(completions)} completions for {len(batch)} prompts"
        else:
            result_error = result.error
        for i, probe in enumerate(batch):
            if result_error is not None:
                flags.append(probe_flag(probe, None, name, error=result_error, threshold=threshold))
                continue
            c = completions[i]
            assert c is not None
            flags.append(probe_flag(probe, c.text if c.ok else None, name, error=c.error,
                                    threshold=threshold))
    return flags


def ts_guess(model: TextModel, items: Iterable[BenchmarkItem], mode: Mode | str, *, seed: int = 0,
             hints: bool = True, limit: int | None = None, params: GenerationParams = DEFAULT_PARAMS,
             batch_size: int = 16, model_name: str | None = None, threshold: float = MULTICHOICE_THRESHOLD,
             reference: LogprobModel | None = None) -> TSGuessResult:
    """TS-Guessing on ``items``: filter, mask, prompt, generate, score, flag.

    ``limit`` keeps the first N *probes* (after filtering), so ``limit`` items are asked about.
    ``model_name`` (default ``model.spec``) is written into the flags' ``model`` field.
    """
    prep = prepare_probes(items, mode, seed=seed, hints=hints, reference=reference)
    probes = prep.probes[:limit] if limit is not None else prep.probes
    flags = run_probes(model, probes, params=params, batch_size=batch_size, model_name=model_name,
                       threshold=threshold)
    return TSGuessResult(tuple(flags), prep.dropped)
