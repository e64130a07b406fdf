"""What a republication is made from: :class:`RepublishConfig`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..rescore_options import RescoreOptions
from ._boards import BoardSource


@dataclass(frozen=True)
class RepublishConfig:
    """A republication's inputs and rules.

    ``boards``: one or more :class:`~.boards.BoardSource` (several are pooled over their shared
    instances). ``model_map``: submission -> model(s) CSV (default: each submission's metadata;
with a map, a submission it does not name is not scored); ``cutoffs``: the models' training
    cutoffs (any format ``benchchecker patch-presence --cutoffs`` reads; default: the model map's
    ``model_cutoffs`` column); ``cutoff_sources``: a ``model,quote,confidence`` CSV whose quote
    narrows a cutoff ("Early 2023") and whose ``derived`` confidence marks a lower bound.

    The verdicts come from exactly one of: ``repos_dir`` (Stage II on clones, with
    ``releases_dir``, ``lag_margin``, ``stage2_cache``, ``cached_only``, ``extra_dates``,
    ``own_fix``, ``similarity``, ``state``: Stage II's tasks kept as they finish, so that a killed
    run resumes; ``fetch`` clones the missing first), ``flags`` (Stage II flags made before), or
    ``from_bundle`` (an earlier bundle's verdicts; ``release_repos`` read from release sdists).
    ``repos`` / ``submissions`` restrict the run (the page says so). The rest: the rescoring
    options, the MDE simulation, the plausible-interval floor of submissions without a published
    cutoff (default: the latest pull-request creation date among the instances), the page's
    title and data line, and the command recorded in the build facts."""

    boards: tuple[BoardSource, ...]
    model_map: Path | None = None
    cutoffs: Path | None = None
    cutoff_sources: Path | None = None
    repos_dir: Path | None = None
    releases_dir: Path | None = None
    lag_margin: float | None = None
    stage2_cache: Path | None = None
    cached_only: bool = False
    extra_dates: tuple[str, ...] = ()
    own_fix: bool = True
    similarity: str = "difflib+minilm"
    state: Path | None = None
    fetch: bool = False
    fetch_source: str | None = None
    flags: Path | None = None
    from_bundle: Path | None = None
    release_repos: tuple[str, ...] = ()
    repos: tuple[str, ...] | None = None
    submissions: tuple[str, ...] | None = None
    resamples: int = RescoreOptions.n_boot
    seed: int = RescoreOptions.seed
    min_clean: int = RescoreOptions.min_clean
    min_resolved_clean: int = RescoreOptions.min_resolved_clean
    mde_sims: int = 100
    mde_resamples: int = 200
    band_floor: str | None = None
    band_floor_basis: str | None = None
    title: str | None = None
    data: str | None = None
    command: str = "benchchecker republish"

    def __post_init__(self) -> None:
        if not self.boards:
            raise InputError("no board: give --board NAME=FOLDER")
        names = [b.name for b in self.boards]
        if len(set(names)) != len(names):
            raise InputError(f"boards named twice: {', '.join(sorted({n for n in names if names.count(n) > 1}))}")
        sources = [s for s in (self.repos_dir, self.flags, self.from_bundle) if s is not None]
        if len(sources) != 1:
            raise InputError("give exactly one source of verdicts: --repos-dir (run Stage II), "
                             "--flags FILE (Stage II flags made before) or --from-bundle DIR")
        if self.release_repos and self.from_bundle is None:
            raise InputError("--release-repos goes with --from-bundle")
        if self.fetch and self.repos_dir is None:
            raise InputError("--fetch clones into --repos-dir: give it")
        if self.state is not None and self.repos_dir is None:
            raise InputError("--state keeps Stage II's work on the clones: it goes with --repos-dir")
        for name in ("resamples", "mde_sims", "mde_resamples", "min_clean", "min_resolved_clean"):
            if getattr(self, name) < 0:
                raise InputError(f"{name.replace('_', '-')} must be >= 0, got {getattr(self, name)}")
