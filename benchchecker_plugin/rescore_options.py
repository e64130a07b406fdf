"""What a rescore is configured by, in one record with one set of defaults.

:class:`RescoreOptions` travels from the command line (``benchchecker rescore`` / ``leaderboard``,
``benchchecker swebench rescore``), the harness wrappers and the republished page down to the
scorer (:mod:`benchchecker_plugin.scoring._rates`) instead of a dozen loose parameters:

* the inputs: ``benchmark`` (its tier scheme), ``tiers_path`` (per-instance tiers: a file or a
  datasets name) with its ``tier_field`` and ``id_field`` columns, ``instances_path`` (the
  instance list, the denominator);
* the estimate: ``group_hard`` (SWE-bench Verified's two longest tiers as one), ``n_boot``
  cluster-bootstrap resamples seeded by ``seed``, ``ci`` the coverage of every interval;
* the minimums: a drop needs ``min_clean`` clean and ``min_resolved_clean`` resolved clean
  instances (distinct ones, in a summary), else it reads "too few";
* the screening: a leaderboard submission whose resolved count differs from the official board's
  by more than ``tolerance`` of the instances is not scored.

The defaults (20 clean, 10 resolved clean, 1,000 resamples, seed 0, 95% intervals, 2% tolerance)
are the ones every entry point applies, the command line's included. Functions that take a
record also take its fields by name as overrides (``rate_table(..., n_boot=0)``):
``RescoreOptions.of(options, **overrides)``. This module imports nothing heavy, so ``--help``
reads its defaults.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack

from .errors import InputError

__all__ = ["DEFAULT_N_BOOT", "DEFAULT_SEED", "MIN_CLEAN", "MIN_RESOLVED_CLEAN", "RescoreOptions",
           "RescoreOverrides"]

#: bootstrap resamples and their seed: a rescore's defaults, and the detector score's
DEFAULT_N_BOOT = 1000
DEFAULT_SEED = 0
#: a drop needs this many clean instances, and this many of them resolved (distinct instances)
MIN_CLEAN = 20
MIN_RESOLVED_CLEAN = 10


@dataclass(frozen=True)
class RescoreOptions:
    """How a rescore is configured (module docstring); every field has its one default here."""

    benchmark: str = "swe-bench-verified"
    tiers_path: Path | str | None = None
    instances_path: Path | str | None = None
    tier_field: str = "difficulty"
    id_field: str = "instance_id"
    group_hard: bool = False
    n_boot: int = DEFAULT_N_BOOT
    seed: int = DEFAULT_SEED
    ci: float = 0.95
    min_clean: int = MIN_CLEAN
    min_resolved_clean: int = MIN_RESOLVED_CLEAN
    tolerance: float = 0.02

    @classmethod
    def of(cls, options: RescoreOptions | None = None, **overrides: Unpack[RescoreOverrides]
           ) -> RescoreOptions:
        """``options`` (default: the defaults) with ``overrides`` (field names) replaced; a name
        that is no field is a :class:`TypeError`, as an unknown keyword argument is."""
        unknown = sorted(set(overrides) - _FIELDS)
        if unknown:
            raise TypeError(f"unexpected keyword argument {unknown[0]!r} (RescoreOptions fields: "
                            f"{', '.join(sorted(_FIELDS))})")
        base = options if options is not None else cls()
        return dataclasses.replace(base, **overrides) if overrides else base

    def check(self) -> RescoreOptions:
        """``self``, or an :class:`InputError` naming the first bad number."""
        if not _count(self.n_boot):
            raise InputError(f"n_boot must be a non-negative integer, got {self.n_boot!r}")
        if not 0.0 < self.ci < 1.0:
            raise InputError(f"ci must lie strictly between 0 and 1, got {self.ci!r}")
        for name in ("min_clean", "min_resolved_clean"):
            value = getattr(self, name)
            if not _count(value):
                raise InputError(f"{name} must be a non-negative integer, got {value!r}")
        return self


class RescoreOverrides(TypedDict, total=False):
    """:class:`RescoreOptions`' fields by name, for ``**overrides`` (no defaults here)."""

    benchmark: str
    tiers_path: Path | str | None
    instances_path: Path | str | None
    tier_field: str
    id_field: str
    group_hard: bool
    n_boot: int
    seed: int
    ci: float
    min_clean: int
    min_resolved_clean: int
    tolerance: float


_FIELDS = frozenset(f.name for f in dataclasses.fields(RescoreOptions))


def _count(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) >= 0
