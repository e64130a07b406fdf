"""The recorded test outcomes of ``--verify venv``: one JSON line per run, by key, in
``outcomes.jsonl`` of the environments folder (a resumed run reuses them).

The file is read once, on first use; a line that does not parse (a run killed mid-write leaves a
torn last line) is skipped with a warning naming the file and the line, and the run is redone.
The store has its own lock, held only while reading or appending (never through a build or a test
run).
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from pathlib import Path

from ._outcome import VerifyOutcome


class OutcomeStore:
    """Test outcomes by key, kept in the JSON Lines file ``path``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._outcomes: dict[str, VerifyOutcome] | None = None

    def _load(self) -> dict[str, VerifyOutcome]:
        lines = self.path.read_text(encoding="utf-8").splitlines() if self.path.is_file() else []
        found: dict[str, VerifyOutcome] = {}
        for number, line in enumerate(lines, 1):
            try:
                rec = json.loads(line)
                out = rec["outcome"]
                out["tests"] = tuple(map(tuple, out.get("tests", {}).items()))
                found.setdefault(rec["key"], VerifyOutcome(**out))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                warnings.warn(f"{self.path}:{number}: skipped a recorded outcome that does not parse "
                              f"({type(exc).__name__}); that run is redone", stacklevel=3)
        return found

    def get(self, key: str) -> VerifyOutcome | None:
        """The outcome recorded under ``key``, or ``None``."""
        with self._lock:
            if self._outcomes is None:
                self._outcomes = self._load()
            return self._outcomes.get(key)

    def put(self, key: str, outcome: VerifyOutcome) -> None:
        """Record ``outcome`` under ``key`` (appended; the first record of a key wins)."""
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a+b") as fh:
                fh.seek(0, os.SEEK_END)
                if fh.tell():   # a torn last line (a killed run) stays one line of its own
                    fh.seek(-1, os.SEEK_END)
                    if fh.read(1) != b"\n":
                        fh.write(b"\n")
                fh.write((json.dumps({"key": key, "outcome": outcome.to_dict()}) + "\n").encode())
            if self._outcomes is not None:
                self._outcomes.setdefault(key, outcome)
