"""From benchmark items to probes (filter, mask, prompt), and from an answer to a flag.

A :class:`Probe` is everything a harness needs to ask about one item and to score the reply; it
turns into a plain dict (:meth:`Probe.to_dict`) so lm-eval docs and Inspect sample metadata carry
it, and every harness builds its flag with the same :func:`probe_flag`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..flags import ContaminationFlag
from ._data import BenchmarkItem
from ._filters import DropReason, option_filter, option_in_question, question_filter, similar
from ._masking import MASK, mask_option, mask_word, select_options
from ._prompts import LETTERS, Mode, multichoice_prompt, question_prompt
from ._rules import task_rules
from ._scoring import MULTICHOICE_THRESHOLD, GuessScore, score_guess

if TYPE_CHECKING:
    from ..models import LogprobModel


@dataclass(frozen=True)
class Probe:
    """One masked item: ``prompt`` to send, ``target`` (the hidden text) to score against.

    ``masked_item`` is the question (question mode: with the mask) and the options as shown
    (multichoice: with the mask); ``details`` holds the masked letter or word and item metadata.
    """

    benchmark: str
    instance_id: str
    mode: Mode
    prompt: str
    target: str
    masked_item: str
    details: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "instance_id": self.instance_id, "mode": self.mode.value,
                "prompt": self.prompt, "target": self.target, "masked_item": self.masked_item,
                "details": dict(self.details)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Probe:
        return cls(data["benchmark"], data["instance_id"], Mode(data["mode"]), data["prompt"],
                   data["target"], data["masked_item"], dict(data["details"]))


@dataclass(frozen=True)
class Preparation:
    """The probes made, and how many items each rule dropped."""

    probes: tuple[Probe, ...]
    dropped: Mapping[DropReason, int]

    @property
    def n_items(self) -> int:
        return len(self.probes) + sum(self.dropped.values())

    def no_probe_reason(self) -> str:
        """The line saying why no item gave a probe (the reasons, counted)."""
        reasons = ", ".join(f"{r.value} {n}" for r, n in sorted(self.dropped.items(),
                                                                key=lambda kv: kv[0].value))
        return f"no option can be hidden in any of its items ({reasons or 'no items'})"


def _multichoice(item: BenchmarkItem, seed: int, hints: bool) -> Probe | DropReason:
    rules = task_rules(item.benchmark)
    shown = select_options(item, seed, similar=similar)
    reason = option_filter([item.options[i] for i in shown], answer=0, min_wrong=rules.min_wrong)
    if reason is not None:
        return reason
    m = mask_option(item, seed, shown)
    hidden = item.options[m.masked]
    if len(shown) == 2 and option_in_question(hidden, item.question):
        return DropReason.OPTION_IN_QUESTION
    if rules.max_hidden_words and len(hidden.split()) > rules.max_hidden_words:
        return DropReason.LONG_OPTION
    letter = LETTERS[m.masked_position]
    masked_item = item.question + "\n" + "\n".join(
        f"{LETTERS[p]}: {MASK if i == m.masked else item.options[i]}" for p, i in enumerate(shown))
    return Probe(item.benchmark, item.instance_id, Mode.MULTICHOICE,
                 multichoice_prompt(item, shown, m.masked, hints=hints), hidden,
                 masked_item, {"masked_letter": letter, "masked_option_index": m.masked,
                               "correct_option_index": item.answer, "seed": seed, **item.metadata})


def _question(item: BenchmarkItem, hints: bool, reference: LogprobModel | None) -> Probe | DropReason:
    reason = question_filter(item)
    if reason is not None:
        return reason
    masked = mask_word(item.question, reference)
    if masked is None:
        return DropReason.NO_CONTENT_WORD
    return Probe(item.benchmark, item.instance_id, Mode.QUESTION,
                 question_prompt(item, masked.masked_question, hints=hints), masked.word,
                 masked.masked_question, {"masked_word": masked.word, "word_start": masked.start,
                                          "proper_noun": masked.proper_noun, **item.metadata})


def prepare_probes(items: Iterable[BenchmarkItem], mode: Mode | str, *, seed: int = 0, hints: bool = True,
                   reference: LogprobModel | None = None) -> Preparation:
    """Filter, mask and prompt every item; the result keeps the items' order.

    ``reference`` (question mode only) picks the least predictable content word; without it the
    masking heuristic decides (see :mod:`._masking`).
    """
    mode = Mode(mode)
    probes: list[Probe] = []
    dropped: Counter[DropReason] = Counter()
    for item in items:
        if mode is Mode.MULTICHOICE:
            out = _multichoice(item, seed, hints)
        else:
            out = _question(item, hints, reference)
        if isinstance(out, DropReason):
            dropped[out] += 1
        else:
            probes.append(out)
    return Preparation(tuple(probes), dict(dropped))


def probe_flag(probe: Probe, completion: str | None, model: str, *, error: str | None = None,
               threshold: float = MULTICHOICE_THRESHOLD) -> ContaminationFlag:
    """The flag for ``probe`` given the model's raw ``completion``.

    multichoice: ``score`` = Rouge-L F1 against the masked option, contaminated when
    ``score >= threshold``; question: ``score`` = exact match, contaminated when 1. A failed
    generation (``error`` set) gives ``contaminated = None`` and ``score = 0`` with the error in
    the evidence: undecided, never counted as an answer.
    """
    evidence: dict[str, Any] = {"mode": probe.mode.value, "masked_item": probe.masked_item,
                                "target": probe.target, **{k: v for k, v in probe.details.items()}}
    if error is not None or completion is None:
        evidence["error"] = error or "no completion"
        return ContaminationFlag(probe.benchmark, probe.instance_id, model, probe.mode.method, None, 0.0,
                                 evidence=evidence)
    s: GuessScore = score_guess(completion, probe.target)
    evidence.update({"answer": s.answer, "exact_match": s.exact_match,
                     "rouge_l": s.rouge_l})
    if probe.mode is Mode.MULTICHOICE:
        evidence["threshold"] = threshold
        score, contaminated = s.rouge_l, s.rouge_l >= threshold
    else:
        score, contaminated = s.exact_match, s.exact_match == 1.0
    return ContaminationFlag(probe.benchmark, probe.instance_id, model, probe.mode.method,
                             contaminated, score, evidence=evidence)
