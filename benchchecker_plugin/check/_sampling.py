"""Which items a ``check --limit`` probes: a per-benchmark limit, a stratified, seeded sample.

lm-eval applies ``--limit`` per subtask; the check does the same across a benchmark's strata
(MMLU subjects, TruthfulQA categories, a bug benchmark's repositories): every stratum gives items
in turn, the strata's turn order and each stratum's own order shuffled by ``seed``, so
``--limit 200`` on MMLU covers every subject instead of the first four alphabetically, and
``--limit 8`` takes eight random subjects. The same seed gives the same sample.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from ..errors import InputError

T = TypeVar("T")

#: ``{benchmark: limit}``; the key ``"*"`` is the limit of every benchmark not named.
Limits = Mapping[str, int]


def parse_limits(value: str | int | None) -> dict[str, int]:
    """``"200"`` → ``{"*": 200}``; ``"mmlu=200,truthfulqa=100"`` → per benchmark (``"*"`` for a
    plain number among them); ``None`` → ``{}`` (no limit)."""
    if value is None:
        return {}
    if isinstance(value, int):
        value = str(value)
    out: dict[str, int] = {}
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        name, sep, number = part.rpartition("=") if "=" in part else ("*", "", part)
        name = name.strip() or "*"
        try:
            n = int(number)
        except ValueError:
            n = 0
        if n < 1 or (sep and name == "*"):
            raise InputError(f"--limit {value!r}: expected N or BENCHMARK=N[,BENCHMARK=N] with N >= 1, "
                             "e.g. --limit mmlu=200,truthfulqa=100")
        if name in out:
            raise InputError(f"--limit {value!r}: {name} given twice")
        out[name] = n
    return out


def limit_for(limits: Limits, benchmark: str) -> int | None:
    """The limit of ``benchmark`` (its own, else the plain one, else none)."""
    return limits.get(benchmark, limits.get("*"))


def stratified_sample(items: Sequence[T], n: int | None, stratum: Callable[[T], str], *,
                      seed: int = 0) -> list[T]:
    """``n`` of ``items`` taken in turn from each stratum, each stratum in a seeded random order;
    all items when ``n`` is ``None`` or not below ``len(items)``.

    The strata take their turns in a seeded random order too: when ``n`` is smaller than the
    number of strata (``--limit 8`` over MMLU's 57 subjects), the last round's strata are a random
    few, not the first ones alphabetically. Every stratum gives ``n // k`` or one more item (``k``
    strata, while it has items). The sample comes back in the input's order, so reports read as the
    benchmark does.
    """
    if n is None or n >= len(items):
        return list(items)
    groups: dict[str, list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        groups[str(stratum(item))].append(i)
    rng = random.Random(seed)
    queues = []
    for name in sorted(groups):
        order = list(groups[name])
        rng.shuffle(order)
        queues.append(order)
    rng.shuffle(queues)   # the turn order: which strata give first in every round
    chosen: list[int] = []
    depth = 0
    while len(chosen) < n:
        for queue in queues:
            if depth < len(queue) and len(chosen) < n:
                chosen.append(queue[depth])
        depth += 1
    return [items[i] for i in sorted(chosen)]
