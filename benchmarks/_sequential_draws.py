"""The leaderboard's bootstrap draws as they were before the split draws: one generator, drawn in
order (``Generator.multinomial``, 32 resamples at a time), tier after tier, in one background
thread -- kept only so that ``flags_scale.py`` can time that path beside the new one in the same
run. :func:`install` makes ``benchchecker_plugin.scoring.bootstrap_draws`` hand these out (the
leaderboard takes the draws it is given when their seed, resamples and tier sizes are its own)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

_ROWS = 32   # resamples drawn per multinomial call


class SequentialDraws:
    """The draw counts of ``seed`` for ``n_boot`` resamples of tiers of ``sizes`` instances, made
    from construction on in one thread: one generator, tier by tier, row by row (uint8)."""

    def __init__(self, seed: int, n_boot: int, sizes: Sequence[int]) -> None:
        self.key = (int(seed), int(n_boot), tuple(int(m) for m in sizes))
        self._tiers: list[np.ndarray | None] = [None] * len(self.key[2])
        self._ready = [threading.Event() for _ in self.key[2]]
        self._stop = threading.Event()
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="sequential-draws", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        seed, n_boot, sizes = self.key
        rng = np.random.default_rng(np.random.SeedSequence(seed))
        try:
            for t, m in enumerate(sizes):
                if m:
                    self._tiers[t] = self._tier(rng, m, 1 + n_boot)
                self._ready[t].set()
        except BaseException as exc:   # raised by take(), in the caller's thread
            self._failed = exc
        finally:
            for ready in self._ready:
                ready.set()

    def _tier(self, rng: np.random.Generator, m: int, n_rows: int) -> np.ndarray | None:
        out = np.ones((n_rows, m), np.uint8)
        p = np.full(m, 1.0 / m)
        for r in range(1, n_rows, _ROWS):
            if self._stop.is_set():
                return None
            k = min(_ROWS, n_rows - r)
            out[r:r + k] = rng.multinomial(m, p, size=k)
        return out

    def take(self, t: int) -> np.ndarray:
        self._ready[t].wait()
        if self._failed is not None:
            raise self._failed
        out, self._tiers[t] = self._tiers[t], None
        if out is None:
            raise RuntimeError(f"the draws of tier {t} were taken already or never made")
        return out

    def close(self) -> None:
        self._stop.set()
        self._tiers = [None] * len(self._tiers)


def install() -> None:
    """``benchchecker_plugin.scoring.bootstrap_draws`` gives :class:`SequentialDraws` of the key
    the library's own draws would have (the library's are closed at once)."""
    import benchchecker_plugin.scoring as scoring

    split = scoring.bootstrap_draws

    def sequential(*args: Any, **kwargs: Any) -> SequentialDraws | None:
        mine = split(*args, **kwargs)
        if mine is None:
            return None
        mine.close()
        return SequentialDraws(*mine.key)

    scoring.bootstrap_draws = sequential  # type: ignore[assignment]
